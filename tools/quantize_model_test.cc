#include "tools/quantize_model.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "checkpoint/formats.h"
#include "checkpoint/llama2c.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "tests/util/reference_data.h"
#include "tools/command.h"

namespace edgeq {
namespace tools {
namespace {

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

const checkpoint::QuantizeDecision* Find(const QuantizeModelResult& r, const std::string& name) {
  for (const auto& d : r.decisions) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

// Relative RMS error of `q` (any encoding) against `f` (f32), after dequantizing.
double RelativeRmse(const Tensor& f, const Tensor& q) {
  absl::StatusOr<const QuantizationEncoding*> e = FindEncoding(q.encoding());
  EXPECT_TRUE(e.ok()) << e.status();
  absl::StatusOr<Tensor> d = (*e)->Dequantize(q);
  EXPECT_TRUE(d.ok()) << d.status();
  const float* a = static_cast<const float*>(f.raw_data());
  const float* b = static_cast<const float*>(d->raw_data());
  double err = 0, ref = 0;
  for (int64_t i = 0; i < f.shape().num_elements(); ++i) {
    err += (a[i] - b[i]) * (a[i] - b[i]);
    ref += a[i] * a[i];
  }
  return std::sqrt(err / ref);
}

TEST(QuantizeModelTest, DefaultQ4_0WithFallbackToBf16) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  const std::string out = TempDir() + "/q4.max";
  int calls = 0, last_total = 0;
  QuantizeModelOptions options;
  options.progress = [&](int done, int total, const std::string&) {
    ++calls;
    last_total = total;
    EXPECT_EQ(done, calls);
  };
  absl::StatusOr<QuantizeModelResult> r = QuantizeModel(bin_path, out, options);
  ASSERT_TRUE(r.ok()) << r.status();
  // stories260K: 47 tensors; dim 64 (q4_0 fits), hidden 172 (ffn_down's k = 172 fits neither
  // q4_0 nor q8_0: bf16), norms f32.
  ASSERT_EQ(r->decisions.size(), 47u);
  EXPECT_EQ(calls, 47);
  EXPECT_EQ(last_total, 47);
  EXPECT_EQ(Find(*r, "token_embd.weight")->chosen, "q4_0");
  EXPECT_EQ(Find(*r, "blk.0.attn_q.weight")->chosen, "q4_0");
  EXPECT_EQ(Find(*r, "blk.0.ffn_gate.weight")->chosen, "q4_0");
  EXPECT_EQ(Find(*r, "blk.4.ffn_down.weight")->chosen, "bf16");
  EXPECT_EQ(Find(*r, "blk.4.ffn_down.weight")->note, "k = 172 is not a multiple of 32");
  EXPECT_EQ(Find(*r, "blk.0.attn_norm.weight")->chosen, "f32");
  EXPECT_EQ(r->input_bytes, 1040128u);  // 260032 f32 parameters (the classifier is shared)
  EXPECT_LT(r->output_bytes, r->input_bytes / 3);
  EXPECT_GT(r->output_file_bytes, r->output_bytes);

  const std::string report = QuantizeModelReport(*r);
  EXPECT_TRUE(absl::StrContains(report, "tensors: bf16 5 f32 11 q4_0 31")) << report;

  // The output loads, keeps the hyperparameters, and each weight decodes close to the f32 one.
  absl::StatusOr<checkpoint::OpenedCheckpoint> q = checkpoint::OpenCheckpoint(out);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->format, checkpoint::Format::kMax);
  absl::StatusOr<checkpoint::Llama2cConfig> config = checkpoint::Llama2cConfigFromMetadata(q->dict);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->dim, 64);
  EXPECT_EQ(config->hidden_dim, 172);
  EXPECT_EQ(config->n_layers, 5);
  absl::StatusOr<checkpoint::TensorDict> f = checkpoint::ReadLlama2c(bin_path);
  ASSERT_TRUE(f.ok()) << f.status();
  const Tensor& wq = **q->dict.Get("blk.0.attn_q.weight");
  EXPECT_EQ(wq.encoding(), "q4_0");
  EXPECT_EQ(wq.logical_shape(), Shape({64, 64}));
  const double q4_error = RelativeRmse(**f->Get("blk.0.attn_q.weight"), wq);
  EXPECT_GT(q4_error, 0.01);
  EXPECT_LT(q4_error, 0.15);
  EXPECT_LT(RelativeRmse(**f->Get("blk.4.ffn_down.weight"), **q->dict.Get("blk.4.ffn_down.weight")),
            0.005);
}

TEST(QuantizeModelTest, RulesFileAndGgufOutput) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  const std::string rules = TempDir() + "/rules.txt";
  std::ofstream(rules) << "# embeddings finer\ntoken_embd.weight -> q8_0\n* -> q4_0\n";
  const std::string out = TempDir() + "/mixed.gguf";
  QuantizeModelOptions options;
  options.rules_path = rules;
  absl::StatusOr<QuantizeModelResult> r = QuantizeModel(gguf_path, out, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Find(*r, "token_embd.weight")->chosen, "q8_0");
  EXPECT_EQ(Find(*r, "blk.1.attn_v.weight")->chosen, "q4_0");
  absl::StatusOr<checkpoint::OpenedCheckpoint> q = checkpoint::OpenCheckpoint(out);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->format, checkpoint::Format::kGguf);
  EXPECT_EQ((*q->dict.Get("token_embd.weight"))->encoding(), "q8_0");
  EXPECT_EQ((*q->dict.Get("blk.1.attn_v.weight"))->encoding(), "q4_0");

  // Quantizing a quantized file again keeps its quantized tensors as they are.
  absl::StatusOr<QuantizeModelResult> again = QuantizeModel(out, TempDir() + "/again.max", {});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(Find(*again, "token_embd.weight")->chosen, "kept");
}

TEST(QuantizeModelTest, NoneKeepsF32) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  QuantizeModelOptions options;
  options.encoding = "none";
  absl::StatusOr<QuantizeModelResult> r = QuantizeModel(bin_path, TempDir() + "/f32.max", options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->output_bytes, r->input_bytes);
  for (const auto& d : r->decisions) EXPECT_EQ(d.chosen, "f32") << d.name;
}

TEST(QuantizeModelTest, NeverOverwritesItsInput) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  // A copy of the model, reached by its own name, a hard link and a symlink.
  const std::string in = TempDir() + "/model.max";
  ASSERT_TRUE(checkpoint::WriteCheckpoint(*checkpoint::ReadLlama2c(bin_path), in).ok());
  struct stat before;
  ASSERT_EQ(::stat(in.c_str(), &before), 0);
  const std::string link = TempDir() + "/hard.max";
  const std::string sym = TempDir() + "/sym.max";
  ::unlink(link.c_str());
  ::unlink(sym.c_str());
  ASSERT_EQ(::link(in.c_str(), link.c_str()), 0);
  ASSERT_EQ(::symlink(in.c_str(), sym.c_str()), 0);
  for (const std::string& out : {in, link, sym}) {
    absl::StatusOr<QuantizeModelResult> r = QuantizeModel(in, out, {});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << out;
    EXPECT_TRUE(absl::StrContains(r.status().message(), "is the input file")) << r.status();
  }
  struct stat after;
  ASSERT_EQ(::stat(in.c_str(), &after), 0);
  EXPECT_EQ(after.st_size, before.st_size);
  EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
}

TEST(QuantizeModelTest, ClearErrors) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  const std::string out = TempDir() + "/bad.max";
  QuantizeModelOptions bad_encoding;
  bad_encoding.encoding = "q3_x";
  absl::StatusOr<QuantizeModelResult> r = QuantizeModel(bin_path, out, bad_encoding);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "q3_x")) << r.status();
  EXPECT_FALSE(Exists(out));

  QuantizeModelOptions missing_rules;
  missing_rules.rules_path = TempDir() + "/no_such_rules.txt";
  r = QuantizeModel(bin_path, out, missing_rules);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "no_such_rules.txt")) << r.status();

  r = QuantizeModel(TempDir() + "/missing.gguf", out, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);

  r = QuantizeModel(bin_path, TempDir() + "/out.onnx", {});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "out.onnx")) << r.status();

  // A llama2.c .bin holds only f32: the error names the output and a quantized tensor, and no
  // file is left behind.
  const std::string bin = TempDir() + "/q.bin";
  r = QuantizeModel(bin_path, bin, {});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "q.bin")) << r.status();
  EXPECT_FALSE(Exists(bin));
}

TEST(QuantizeCommandTest, RunsThroughTheRegistry) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  const Command& quantize = Commands().at("quantize");
  Args ok;
  ok.command = "quantize";
  ok.positional = {bin_path, TempDir() + "/cmd.max"};
  ok.flags = {{"encoding", "q8_0"}, {"quiet", "true"}};
  EXPECT_EQ(quantize.run(ok), 0);
  absl::StatusOr<checkpoint::OpenedCheckpoint> q =
      checkpoint::OpenCheckpoint(TempDir() + "/cmd.max");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ((*q->dict.Get("blk.0.attn_k.weight"))->encoding(), "q8_0");

  Args both = ok;
  both.flags["rules"] = "r.txt";
  EXPECT_EQ(quantize.run(both), 1);
  Args misspelt = ok;
  misspelt.flags = {{"encodng", "q4_0"}};
  EXPECT_EQ(quantize.run(misspelt), 1);
  Args one_arg = ok;
  one_arg.positional = {bin_path};
  EXPECT_EQ(quantize.run(one_arg), 1);
  Args same = ok;
  same.positional = {bin_path, bin_path};
  EXPECT_EQ(quantize.run(same), 1);
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
