// ModelConfig and Model per architecture (llm/arch/ rows) and on hostile files; split out of
// model_test.cc (the size rule: no file over 800 lines).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/small_model_testing.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

// A tiny model of `shape` (an architecture's preset) with made-up weights.
TensorDict TinyArch(const std::string& shape, int head_dim = -1, int window = -1, int layers = 2) {
  RandomModelSpec s = *RandomModelPreset(shape);
  s.dim = 64, s.layers = layers, s.heads = 4, s.kv_heads = 2, s.ffn = 96, s.vocab = 40;
  if (head_dim >= 0) s.head_dim = head_dim;
  if (window >= 0) s.sliding_window = window;
  absl::StatusOr<TensorDict> d = RandomModel(s);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

TEST(ArchConfigTest, StructurePerArchitecture) {
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(TinyArch("qwen2.5-0.5b"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->architecture, "qwen2");
  EXPECT_EQ(c->rope_type, arch::RopeType::kNeox);
  EXPECT_FALSE(c->qk_norm);
  EXPECT_FALSE(c->post_norms);
  EXPECT_EQ(c->ffn_activation, arch::Activation::kSilu);
  EXPECT_EQ(c->rms_norm_epsilon, 1e-6f);
  EXPECT_FLOAT_EQ(c->attention_scale, 0.25f);  // head dim 16

  c = ModelConfig::FromMetadata(TinyArch("qwen3-0.6b", 32));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->qk_norm);
  EXPECT_EQ(c->head_dim, 32);
  EXPECT_FLOAT_EQ(c->attention_scale, 1.0f / std::sqrt(32.0f));

  c = ModelConfig::FromMetadata(TinyArch("gemma3-270m", 32, 6, 7));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->rope_type, arch::RopeType::kNeox);
  EXPECT_TRUE(c->qk_norm);
  EXPECT_TRUE(c->post_norms);
  EXPECT_EQ(c->ffn_activation, arch::Activation::kGeluTanh);
  EXPECT_FLOAT_EQ(c->embedding_scale, 8.0f);
  EXPECT_EQ(c->sliding_window, 6);
  EXPECT_EQ(c->sliding_layers, std::vector<bool>({true, true, true, true, true, false, true}));
  EXPECT_EQ(c->rope_freq_base_swa, 10000.0f);
  EXPECT_EQ(c->rope_freq_base, 1000000.0f);
  EXPECT_EQ(c->final_logit_softcapping, 0.0f);
  EXPECT_TRUE(
      absl::StrContains(c->ToString(), ", sliding window 6 on 6 of 7 layers (rope base 10000)"))
      << c->ToString();

  c = ModelConfig::FromMetadata(TinyArch("phi3.5-mini"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->fused_gate_up);
  EXPECT_TRUE(c->has_rope_factors);
  EXPECT_FALSE(c->tied_output);
  EXPECT_EQ(c->rope_scaling_original_context_length, 4096);
  EXPECT_NEAR(c->rope_attn_factor, std::sqrt(1 + std::log(32.0) / std::log(4096.0)), 1e-6);
  // Phi-3.5's converter writes attention.sliding_window (262144); llama.cpp ignores it for phi3
  // ("Phi SWA is currently disabled"), and so does edgeq.
  TensorDict phi = TinyArch("phi3.5-mini");
  phi.SetMetadata("phi3.attention.sliding_window", MetadataValue::Int(262144));
  c = ModelConfig::FromMetadata(phi);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->sliding_window, 0);
  EXPECT_TRUE(c->sliding_layers.empty());
}

TEST(ArchConfigTest, BadArchitectureTensorsAndKeysAreNamed) {
  // Phi-3 rope factors: both or none.
  TensorDict phi = TinyArch("phi3.5-mini");
  TensorDict one;
  for (const std::string& k : phi.MetadataKeys()) one.SetMetadata(k, **phi.GetMetadata(k));
  for (const std::string& k : phi.Keys()) {
    if (k != "rope_factors_short.weight") {
      ASSERT_TRUE(one.Set(k, **phi.Get(k)).ok());
    }
  }
  absl::Status s = ModelConfig::FromMetadata(one).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "rope_factors_short.weight")) << s;
  // A q bias of the wrong length.
  TensorDict qwen = TinyArch("qwen2.5-0.5b");
  ASSERT_TRUE(qwen.Set("blk.1.attn_q.bias", *Tensor::Full({7}, 0.0f)).ok());
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(qwen);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "tensor 'blk.1.attn_q.bias'")) << m.status();
  EXPECT_TRUE(absl::StrContains(m.status().message(), "expected f32 [64]")) << m.status();
  // Gemma 3 without its q norm.
  TensorDict gemma = TinyArch("gemma3-270m", 16);
  TensorDict no_norm;
  for (const std::string& k : gemma.MetadataKeys()) no_norm.SetMetadata(k, **gemma.GetMetadata(k));
  for (const std::string& k : gemma.Keys()) {
    if (k != "blk.0.attn_q_norm.weight") {
      ASSERT_TRUE(no_norm.Set(k, **gemma.Get(k)).ok());
    }
  }
  m = Model::Load(no_norm);
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(absl::StrContains(m.status().message(), "'blk.0.attn_q_norm.weight' is missing"))
      << m.status();
  gemma.SetMetadata("gemma3.final_logit_softcapping", MetadataValue::Float(-1.0));
  s = ModelConfig::FromMetadata(gemma).status();
  EXPECT_TRUE(absl::StrContains(s.message(), "gemma3.final_logit_softcapping' is -1")) << s;
}

std::vector<float> LogitsAt(const TensorDict& d, int context, const std::vector<int>& tokens) {
  ModelOptions o;
  o.context_length = context;
  o.prefill_block = 4;
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(d, o);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  absl::StatusOr<absl::Span<const float>> l = (*m)->Prefill(tokens, 0);
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? std::vector<float>(l->begin(), l->end()) : std::vector<float>();
}

TEST(ArchModelTest, Phi3ChoosesLongRopeFactorsBeyondTheOriginalContext) {
  const TensorDict d = TinyArch("phi3.5-mini");
  const std::vector<int> one = {5}, five = {5, 9, 2, 30, 7};
  // Position 0 turns nothing: the factors do not matter.
  EXPECT_EQ(LogitsAt(d, 64, one), LogitsAt(d, 4097, one));
  // Later positions: short factors up to 4096 positions, long ones beyond.
  EXPECT_EQ(LogitsAt(d, 64, five), LogitsAt(d, 4096, five));
  EXPECT_NE(LogitsAt(d, 64, five), LogitsAt(d, 4097, five));
}

TEST(ArchModelTest, SoftCappingBoundsTheLogits) {
  TensorDict d = TinyArch("gemma3-270m", 16);
  const std::vector<int> tokens = {3, 8, 1};
  const std::vector<float> raw = LogitsAt(d, 16, tokens);
  d.SetMetadata("gemma3.final_logit_softcapping", MetadataValue::Float(0.5));
  const std::vector<float> capped = LogitsAt(d, 16, tokens);
  ASSERT_EQ(raw.size(), capped.size());
  ASSERT_FALSE(raw.empty());
  float max_raw = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    EXPECT_NEAR(capped[i], 0.5f * std::tanh(raw[i] / 0.5f), 1e-6f);
    max_raw = std::max(max_raw, std::fabs(raw[i]));
  }
  EXPECT_GT(max_raw, 0.5f);  // the cap changed something
}

TEST(ArchModelTest, SlidingWindowLimitsWhatALayerSees) {
  // One sliding layer of window 2 then the global one (pattern 2): with a window as long as the
  // sequence the model equals the one without a window; with window 2 it differs.
  auto model = [](int window) {
    RandomModelSpec s = *RandomModelPreset("gemma3-270m");
    s.dim = 64, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 96, s.vocab = 40,
    s.head_dim = 16;
    s.sliding_window = window, s.sliding_window_pattern = 2, s.rope_base_swa = 1000000.0f;
    return *RandomModel(s);
  };
  const std::vector<int> tokens = {3, 8, 1, 22, 9, 14};
  // (Equal up to the order of float sums: windowed layers attend row by row, the others in tiles
  // of query rows.)
  const std::vector<float> none = LogitsAt(model(0), 16, tokens);
  auto max_diff = [&](const std::vector<float>& v) {
    float d = 0;
    for (size_t i = 0; i < v.size(); ++i) d = std::max(d, std::fabs(v[i] - none[i]));
    return d;
  };
  EXPECT_LT(max_diff(LogitsAt(model(6), 16, tokens)), 1e-5f);
  EXPECT_GT(max_diff(LogitsAt(model(2), 16, tokens)), 1e-3f);
}

// Every architecture from a file (Load(path): copied weights' pages released, biases, norms and
// rope factors read from the mapping) gives the logits it gives from the dict, f32 and q8_0.
TEST(ArchModelTest, LoadFromFileEqualsLoadFromDict) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  for (const char* shape : {"qwen2.5-0.5b", "qwen3-0.6b", "gemma3-270m", "phi3.5-mini"}) {
    for (const bool quantize : {false, true}) {
      const TensorDict f32 = TinyArch(shape, 32, 2, 3);
      TensorDict d;
      for (const std::string& name : f32.Keys()) {
        const Tensor& t = **f32.Get(name);
        if (quantize && t.rank() == 2) {
          absl::StatusOr<Tensor> qt = Q8_0Encoding().Quantize(t);
          ASSERT_TRUE(qt.ok()) << qt.status();
          ASSERT_TRUE(d.Set(name, *std::move(qt)).ok());
        } else {
          ASSERT_TRUE(d.Set(name, t).ok());
        }
      }
      for (const std::string& k : f32.MetadataKeys()) d.SetMetadata(k, **f32.GetMetadata(k));
      const std::string path = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/arch.gguf");
      ASSERT_TRUE(checkpoint::WriteGguf(d, path).ok());
      absl::StatusOr<std::unique_ptr<Model>> from_dict = Model::Load(d, {.prefill_block = 4});
      absl::StatusOr<std::unique_ptr<Model>> from_file = Model::Load(path, {.prefill_block = 4});
      ASSERT_TRUE(from_dict.ok()) << from_dict.status();
      ASSERT_TRUE(from_file.ok()) << from_file.status();
      const std::vector<int> tokens = {3, 1, 4, 1, 5, 9, 2, 6, 5};
      absl::StatusOr<absl::Span<const float>> a = (*from_dict)->Prefill(tokens, 0);
      ASSERT_TRUE(a.ok()) << a.status();
      const std::vector<float> want(a->begin(), a->end());
      absl::StatusOr<absl::Span<const float>> b = (*from_file)->Prefill(tokens, 0);
      ASSERT_TRUE(b.ok()) << b.status();
      EXPECT_EQ(std::vector<float>(b->begin(), b->end()), want) << shape << " q8_0 " << quantize;
    }
  }
}

// ---- issue 27: hostile GGUF hyperparameters ----

TensorDict With(TensorDict d, const std::string& key, MetadataValue v) {
  d.SetMetadata(key, std::move(v));
  return d;
}

// Loads `d` written as a GGUF file, as `edgeq run` does.
absl::Status LoadAsGguf(const TensorDict& d, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + ".gguf";
  absl::Status w = checkpoint::WriteGguf(d, path);
  if (!w.ok()) return w;
  absl::Status s = Model::Load(path, {.prefill_block = 1, .context_length = 8}).status();
  std::remove(path.c_str());
  return s;
}

// In a child process whose address space is capped at its current size + 64 MiB: Load of the
// file must fail with `want` in its message (exit 0), not abort or run out of memory.
void ExpectRefusedWithin64MiB(const TensorDict& d, const std::string& name,
                              const std::string& want) {
  const std::string path = ::testing::TempDir() + "/" + name + ".gguf";
  ASSERT_TRUE(checkpoint::WriteGguf(d, path).ok());
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t cap = static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) + (rlim_t{64} << 20);
    const struct rlimit lim = {cap, cap};
    if (pages == 0 || setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
    absl::Status s = Model::Load(path, {.prefill_block = 1}).status();
    _exit(!s.ok() && absl::StrContains(s.message(), want) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::remove(path.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << name << ": the child died (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0) << name;
}

// F1: a block_count of 2^30 or 2^20 (or any count above the layers present) is refused before
// anything per layer is built, within 64 MiB.
TEST(HostileModelTest, HugeBlockCountIsRefusedBeforeAllocating) {
  const TensorDict good = SmallModel();
  for (int64_t layers : {int64_t{1} << 30, int64_t{1} << 20}) {
    absl::Status s =
        ModelConfig::FromMetadata(With(good, "llama.block_count", MetadataValue::Int(layers)))
            .status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), absl::StrCat("metadata key 'llama.block_count' is ", layers,
                                        "; expected a positive count of at most 4096"));
  }
  // Under the ceiling but above the tensors present.
  absl::Status s =
      ModelConfig::FromMetadata(With(good, "llama.block_count", MetadataValue::Int(4000))).status();
  EXPECT_EQ(s.message(),
            "metadata key 'llama.block_count' is 4000 but the file has only 21 tensors (a layer "
            "needs several)");
  // A u64 above INT64_MAX.
  s = ModelConfig::FromMetadata(
          With(good, "llama.block_count", MetadataValue::Int(-1, MetadataValue::Width::kU64)))
          .status();
  EXPECT_TRUE(absl::StrContains(s.message(), "'llama.block_count' is 18446744073709551615")) << s;
  for (int64_t layers : {int64_t{1} << 30, int64_t{1} << 20, int64_t{4000}}) {
    ExpectRefusedWithin64MiB(
        With(good, "llama.block_count", MetadataValue::Int(layers, MetadataValue::Width::kU32)),
        absl::StrCat("layers_", layers), "llama.block_count");
  }
}

// F1: head, dimension and vocabulary counts are bounded by a ceiling and by layer 0's tensors
// before the RoPE tables and the caches are allocated.
TEST(HostileModelTest, DimensionsAreBoundedByTheTensorsPresent) {
  const TensorDict good = SmallModel();
  absl::Status s = ModelConfig::FromMetadata(With(good, "llama.attention.key_length",
                                                  MetadataValue::Int(int64_t{1} << 30)))
                       .status();
  EXPECT_EQ(s.message(),
            "metadata key 'llama.attention.key_length' is 1073741824; expected a positive count "
            "of at most 16384");
  // Within the ceiling, but not what layer 0's q projection holds (4 heads x 12).
  TensorDict wide = With(good, "llama.attention.key_length", MetadataValue::Int(8192));
  wide.SetMetadata("llama.attention.value_length", MetadataValue::Int(8192));
  s = ModelConfig::FromMetadata(wide).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(
      s.message(), "tensor 'blk.0.attn_q.weight' has shape [48, 48]; expected [32768, 48]"))
      << s;
  ExpectRefusedWithin64MiB(wide, "wide_heads", "blk.0.attn_q.weight");
  s = ModelConfig::FromMetadata(
          With(good, "llama.feed_forward_length", MetadataValue::Int(1 << 21)))
          .status();
  EXPECT_TRUE(absl::StrContains(
      s.message(), "tensor 'blk.0.ffn_down.weight' has shape [48, 40]; expected [48, 2097152]"))
      << s;
  s = ModelConfig::FromMetadata(
          With(good, "llama.attention.head_count", MetadataValue::Int(1 << 20)))
          .status();
  EXPECT_TRUE(absl::StrContains(s.message(), "at most 16384")) << s;
  s = ModelConfig::FromMetadata(With(good, "llama.vocab_size", MetadataValue::Int(1 << 30)))
          .status();
  EXPECT_TRUE(absl::StrContains(s.message(), "'llama.vocab_size' is 1073741824")) << s;
}

// F6: a file with more layers than block_count says, or fewer, or a layer tensor nothing reads,
// is refused naming the tensor; so is an integer key stored as a bool or a string.
TEST(HostileModelTest, EveryDeclaredLayerExistsAndEveryTensorIsUsed) {
  const TensorDict good = SmallModel();
  TensorDict five = good;  // a third layer behind block_count = 2
  for (const std::string& k : good.Keys()) {
    if (absl::StartsWith(k, "blk.1.")) {
      ASSERT_TRUE(five.Set(absl::StrCat("blk.2.", k.substr(6)), **good.Get(k)).ok());
    }
  }
  absl::Status s = LoadAsGguf(five, "extra_layer");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "tensor 'blk.2.attn_norm.weight' is of layer 2, beyond "
                                "llama.block_count = 2: the file has more layers than it declares"))
      << s;
  EXPECT_TRUE(LoadAsGguf(With(five, "llama.block_count", MetadataValue::Int(3)), "three").ok());

  s = ModelConfig::FromMetadata(With(good, "llama.block_count", MetadataValue::Int(3))).status();
  EXPECT_EQ(s.message(),
            "metadata key 'llama.block_count' is 3 but layer 2 has no tensor (blk.2.*)");

  for (const char* name : {"blk.00.attn_norm.weight", "blk.+1.attn_norm.weight", "blk.x"}) {
    TensorDict stray = good;
    ASSERT_TRUE(stray.Set(name, **good.Get("blk.0.attn_norm.weight")).ok());
    s = ModelConfig::FromMetadata(stray).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_TRUE(absl::StrContains(
        s.message(), absl::StrCat("tensor '", name, "': expected blk.N.* with N a layer")))
        << s;
  }
  TensorDict unused = good;
  ASSERT_TRUE(unused.Set("blk.1.attn_norm_2.weight", **good.Get("blk.0.attn_norm.weight")).ok());
  s = LoadAsGguf(unused, "unused");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "tensor 'blk.1.attn_norm_2.weight' is not used by the llama model "
                                "(llama.block_count = 2)"))
      << s;
  TensorDict untied_extra = good;
  ASSERT_TRUE(untied_extra.Set("output.bias_x", **good.Get("output_norm.weight")).ok());
  EXPECT_TRUE(absl::StrContains(Model::Load(untied_extra).status().message(),
                                "tensor 'output.bias_x' is not used"));

  // Strict types: a bool or a string is not a count.
  s = LoadAsGguf(With(good, "llama.block_count", MetadataValue::Bool(true)), "bool_layers");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(),
                                "metadata 'llama.block_count' is bool, expected a scalar integer"))
      << s;
  s = ModelConfig::FromMetadata(
          With(good, "llama.attention.head_count", MetadataValue::String("4")))
          .status();
  EXPECT_TRUE(absl::StrContains(
      s.message(), "metadata 'llama.attention.head_count' is string, expected a scalar integer"))
      << s;
  s = ModelConfig::FromMetadata(
          With(good, "llama.attention.head_count_kv", MetadataValue::Bool(true)))
          .status();
  EXPECT_TRUE(absl::StrContains(s.message(), "'llama.attention.head_count_kv' is bool")) << s;
  s = ModelConfig::FromMetadata(With(good, "llama2c.shared_classifier", MetadataValue::Int(0)))
          .status();
  EXPECT_TRUE(absl::StrContains(
      s.message(), "metadata 'llama2c.shared_classifier' is i64, expected a scalar bool"))
      << s;
}

// A 10 MB architecture (or RoPE scaling type) is quoted short in the error.
TEST(HostileModelTest, HugeStringsAreQuotedShort) {
  const std::string huge(10 << 20, 'a');
  absl::Status s =
      LoadAsGguf(With(SmallModel(), "general.architecture", MetadataValue::String(huge)), "arch");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_LT(s.message().size(), 400u) << s.message().substr(0, 400);
  EXPECT_TRUE(absl::StrContains(s.message(), "aaaa'... (10485760 bytes) is not supported")) << s;
  s = ModelConfig::FromMetadata(
          With(SmallModel(), "llama.rope.scaling.type", MetadataValue::String(huge)))
          .status();
  EXPECT_LT(s.message().size(), 400u);
  EXPECT_TRUE(absl::StrContains(s.message(), "(10485760 bytes); supported: none")) << s;
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
