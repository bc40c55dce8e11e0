#include "tools/checkpoint_report.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "checkpoint/formats.h"
#include "checkpoint/gguf.h"
#include "checkpoint/max_format.h"
#include "convert/hf_testing.h"
#include "gtest/gtest.h"
#include "llm/random_model.h"
#include "quantization/encoding.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace tools {
namespace {

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

TEST(CheckpointReportTest, InspectGguf) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  absl::StatusOr<std::string> r = InspectCheckpoint(gguf_path, false);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(absl::StrContains(*r, "gguf, 48 tensors, 19 metadata keys, 1185376 bytes")) << *r;
  // token_embd.weight: f32 [512, 64], 131072 bytes at file offset 14176 (data start).
  EXPECT_TRUE(absl::StrContains(*r, "token_embd.weight")) << *r;
  EXPECT_TRUE(absl::StrContains(*r, "131072         14176")) << *r;
  EXPECT_TRUE(absl::StrContains(*r, "total: 48 tensors, 292800 parameters, 1171200 bytes")) << *r;
  EXPECT_TRUE(absl::StrContains(*r, "llama.block_count (u32) = 5")) << *r;
  EXPECT_FALSE(absl::StrContains(*r, "verify:"));
}

TEST(CheckpointReportTest, ConvertAndVerify) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  const std::string out = TempDir() + "/s.max";
  absl::StatusOr<std::string> c = ConvertCheckpoint(bin_path, out);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(absl::StrContains(*c, "(llama2c) ->")) << *c;
  EXPECT_TRUE(absl::StrContains(*c, "47 tensors")) << *c;
  absl::StatusOr<std::string> r = InspectCheckpoint(out, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(absl::StrContains(
      *r, "verify: OK (header/table checksum, 47 tensor checksums, 0 quantized tensor sizes)"))
      << *r;
  // Corrupt one data byte: --verify fails, naming the tensor.
  std::string bytes;
  {
    std::ifstream f(out, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    bytes = ss.str();
  }
  bytes[bytes.size() - 3] ^= 1;
  const std::string bad = TempDir() + "/bad.max";
  std::ofstream(bad, std::ios::binary).write(bytes.data(), bytes.size());
  EXPECT_TRUE(InspectCheckpoint(bad, false).ok());
  absl::StatusOr<std::string> v = InspectCheckpoint(bad, true);
  EXPECT_EQ(v.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_TRUE(absl::StrContains(v.status().message(), "checksum mismatch")) << v.status();

  EXPECT_EQ(ConvertCheckpoint(out, out).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ConvertCheckpoint(out, TempDir() + "/x.onnx").ok());
  EXPECT_EQ(InspectCheckpoint(TempDir() + "/missing.gguf", false).status().code(),
            absl::StatusCode::kNotFound);
}

// Issue 14: a .max with valid checksums whose Q4_0 tensor holds one block for a [32000, 288]
// logical shape is refused by inspect (with and without --verify), naming what is wrong.
TEST(CheckpointReportTest, CutQuantizedTensorIsReported) {
  checkpoint::TensorDict d;
  Tensor t = *Tensor::Create(DType::kUInt8, Shape{18});
  t.SetQuantization("q4_0", Shape{32000, 288});
  ASSERT_TRUE(d.Set("token_embd.weight", t).ok());
  const std::string path = TempDir() + "/cut.max";
  // Save refuses such a tensor itself; the crafted file is written without that check.
  EXPECT_EQ(checkpoint::WriteCheckpoint(d, path).code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::string> bytes = checkpoint::internal::SaveToStringUnchecked(d);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::ofstream(path, std::ios::binary) << *bytes;
  for (bool verify : {false, true}) {
    absl::StatusOr<std::string> r = InspectCheckpoint(path, verify);
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(r.status().message(),
                                  "quantized tensor 'token_embd.weight' (encoding 'q4_0', logical "
                                  "shape [32000, 288]"))
        << r.status();
    EXPECT_TRUE(absl::StrContains(r.status().message(), "expected 5184000 bytes")) << r.status();
  }
}

// `edgeq convert DIR out.gguf|out.max [--rules=FILE]` on a Hugging Face directory.
TEST(CheckpointReportTest, ConvertsHuggingFaceDirectory) {
  llm::RandomModelSpec spec;
  spec.name = "cli";
  spec.dim = 64, spec.layers = 1, spec.heads = 4, spec.kv_heads = 2, spec.ffn = 64;
  spec.vocab = 260, spec.context = 64;
  absl::StatusOr<checkpoint::TensorDict> m = llm::RandomModel(spec);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::string dir = TempDir() + "/hf_cli";
  ASSERT_TRUE(convert::WriteHfCheckpointDir(spec, *m, dir, 2).ok());

  const std::string gguf = TempDir() + "/hf_cli.gguf";
  absl::StatusOr<std::string> c = ConvertCheckpoint(dir, gguf);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(absl::StrContains(*c, "(Hugging Face llama) -> ")) << *c;
  EXPECT_TRUE(absl::StrContains(*c, ": 11 tensors, ")) << *c;
  absl::StatusOr<checkpoint::OpenedCheckpoint> back = checkpoint::OpenCheckpoint(gguf);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dict.size(), m->size());

  const std::string rules = TempDir() + "/hf_rules.txt";
  std::ofstream(rules) << "token_embd.weight -> q8_0\n*norm* -> f32\n* -> q4_0\n";
  const std::string max = TempDir() + "/hf_cli.max";
  c = ConvertCheckpoint(dir, max, rules);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(absl::StrContains(*c, "quantized by")) << *c;
  back = checkpoint::OpenCheckpoint(max);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ((*back->dict.Get("token_embd.weight"))->encoding(), "q8_0");
  EXPECT_EQ((*back->dict.Get("blk.0.attn_q.weight"))->encoding(), "q4_0");
  EXPECT_EQ((*back->dict.Get("blk.0.attn_norm.weight"))->encoding(), "");
  std::ifstream tmp(max + ".convert-tmp.gguf");
  EXPECT_FALSE(tmp.good()) << "the temporary f32 GGUF is removed";

  // Errors name the directory's problem.
  c = ConvertCheckpoint(TempDir(), TempDir() + "/hf_cli2.gguf");  // no config.json
  EXPECT_FALSE(c.ok());
  std::ofstream(dir + "/config.json") << "{\"architectures\": [\"GPT2LMHeadModel\"]}";
  c = ConvertCheckpoint(dir, TempDir() + "/hf_cli3.gguf");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented) << c.status();
  EXPECT_TRUE(absl::StrContains(c.status().message(), "GPT2LMHeadModel is not supported"));
}

// Issue 27: `inspect --values` decodes every tensor (quantized ones too) and refuses NaN or Inf,
// naming the tensors, their counts and the first index.
TEST(CheckpointReportTest, ValuesFindsNaNAndInf) {
  llm::RandomModelSpec s = *llm::RandomModelPreset("stories15m");
  s.dim = 32, s.layers = 1, s.heads = 4, s.kv_heads = 4, s.ffn = 64, s.vocab = 40;
  s.context = 16;
  absl::StatusOr<checkpoint::TensorDict> d = llm::RandomModel(s);
  ASSERT_TRUE(d.ok()) << d.status();
  const std::string good = TempDir() + "/values_good.gguf";
  ASSERT_TRUE(checkpoint::WriteGguf(*d, good).ok());
  absl::StatusOr<std::string> r = InspectCheckpoint(good, true, true);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(absl::StrContains(*r, "values: OK (11 tensors, 11616")) << *r;
  EXPECT_TRUE(absl::StrContains(*r, " values decoded, all finite)")) << *r;

  // f32: a NaN at index 5 and an Inf at 7.
  Tensor norm = *Tensor::Full({32}, 1.0f);
  (*norm.MutableValues<float>())[5] = std::nanf("");
  (*norm.MutableValues<float>())[7] = INFINITY;
  ASSERT_TRUE(d->Set("blk.0.attn_norm.weight", norm).ok());
  // q8_0: the second block's scale (f16 at bytes 34..35) set to +Inf.
  absl::StatusOr<Tensor> q = Q8_0Encoding().Quantize(**d->Get("blk.0.ffn_down.weight"));
  ASSERT_TRUE(q.ok()) << q.status();
  uint8_t* bytes = q->MutableValues<uint8_t>()->data();
  bytes[34] = 0x00, bytes[35] = 0x7c;
  ASSERT_TRUE(d->Set("blk.0.ffn_down.weight", *q).ok());
  const std::string bad = TempDir() + "/values_bad.gguf";
  ASSERT_TRUE(checkpoint::WriteGguf(*d, bad).ok());
  EXPECT_TRUE(InspectCheckpoint(bad, true, false).ok());  // structure alone is fine
  r = InspectCheckpoint(bad, true, true);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string m(r.status().message());
  EXPECT_TRUE(absl::StartsWith(m, "values: 2 of 11 tensors hold NaN or Inf: ")) << m;
  EXPECT_TRUE(absl::StrContains(m, "'blk.0.attn_norm.weight' (1 NaN, 1 Inf, first at index 5)"))
      << m;
  EXPECT_TRUE(absl::StrContains(m, "'blk.0.ffn_down.weight' (")) << m;
  EXPECT_TRUE(absl::StrContains(m, "Inf, first at index 32)")) << m;
  EXPECT_EQ(m.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
