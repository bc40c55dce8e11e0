// gemma4: its configuration (per-layer head dimensions, sliding pattern, shared KV layers,
// per-layer embeddings, soft-cap), the smaller KV cache, and refusals. Parity with llama.cpp:
// tests/parity/arch_parity_test.cc (TinyGemma4, Gemma4E2bFirst6Layers).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_import.h"
#include "gtest/gtest.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

RandomModelSpec TinySpec() {
  absl::StatusOr<RandomModelSpec> s = RandomModelPreset("gemma4-tiny");
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

TensorDict Tiny(const RandomModelSpec& spec = TinySpec()) {
  absl::StatusOr<TensorDict> d = RandomModel(spec);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.ok() ? *std::move(d) : TensorDict();
}

// A copy of d with `key` set to v (or removed if v is null).
TensorDict WithKey(const TensorDict& d, const std::string& key, const MetadataValue* v) {
  TensorDict out;
  for (const std::string& name : d.Keys()) EXPECT_TRUE(out.Set(name, **d.Get(name)).ok());
  for (const std::string& k : d.MetadataKeys()) {
    if (k != key) out.SetMetadata(k, **d.GetMetadata(k));
  }
  if (v != nullptr) out.SetMetadata(key, *v);
  return out;
}

constexpr int kTokens[] = {1, 300, 17, 450, 99, 5, 260, 42, 77, 301, 12, 480};
constexpr int kN = 12;

// Logits after each of kTokens, by decode steps (or one prefill per token when `prefill`).
std::vector<float> Logits(const TensorDict& d, bool prefill = false, bool gelu_fp16_table = true) {
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(d, {.context_length = 32, .gelu_fp16_table = gelu_fp16_table});
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return {};
  std::vector<float> all;
  if (prefill) {
    EXPECT_TRUE((*m)->PrefillAll(kTokens, 0,
                                 [&](int, absl::Span<const float> l) {
                                   all.insert(all.end(), l.begin(), l.end());
                                   return absl::OkStatus();
                                 })
                    .ok());
    return all;
  }
  for (int pos = 0; pos < kN; ++pos) {
    absl::StatusOr<absl::Span<const float>> l = (*m)->Forward(kTokens[pos], pos);
    EXPECT_TRUE(l.ok()) << l.status();
    if (!l.ok()) return {};
    all.insert(all.end(), l->begin(), l->end());
  }
  return all;
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::fabs(a[i] - b[i])));
  return d;
}

TEST(Gemma4Test, ConfigReadsThePerLayerKeys) {
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(Tiny());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_STREQ(arch::Info(c->arch).gguf_name, "gemma4");
  EXPECT_EQ(c->head_dim, 32);
  EXPECT_EQ(c->head_dim_swa, 16);
  EXPECT_EQ(c->rope_dimension_count_swa, 16);
  EXPECT_EQ(c->sliding_window, 16);
  EXPECT_EQ(c->sliding_layers,
            std::vector<bool>({true, true, true, true, false, true, true, true, true, false}));
  EXPECT_EQ(c->LayerHeadDim(3), 16);
  EXPECT_EQ(c->LayerHeadDim(4), 32);
  EXPECT_EQ(c->shared_kv_layers, 5);
  EXPECT_EQ(c->CachedLayers(), 5);
  for (int l = 0; l < 5; ++l) EXPECT_EQ(c->KvLayer(l), l);
  for (int l = 5; l < 9; ++l) EXPECT_EQ(c->KvLayer(l), 3) << l;
  EXPECT_EQ(c->KvLayer(9), 4);
  EXPECT_EQ(c->feed_forward_lengths,
            std::vector<int>({128, 128, 128, 128, 128, 256, 256, 256, 256, 256}));
  EXPECT_EQ(c->embedding_length_per_layer, 16);
  EXPECT_EQ(c->attention_scale, 1.0f);
  EXPECT_TRUE(c->value_norm);
  EXPECT_EQ(c->final_logit_softcapping, 30.0f);
  EXPECT_EQ(c->rope_freq_base_swa, 10000.0f);
  EXPECT_EQ(c->embedding_scale, 8.0f);  // sqrt(64)
  EXPECT_TRUE(absl::EndsWith(c->ToString(),
                             "sliding window 16 on 8 of 10 layers (rope base 10000), sliding head "
                             "dim 16, last 5 layers share KV, per-layer embedding 16, logit "
                             "soft-cap 30"))
      << c->ToString();
}

// The shared layers have no cache: 2 (K, V) x 2 kv heads x 32 positions x (4 x 16 + 32) f16
// (the default cache type).
TEST(Gemma4Test, SharedLayersShrinkTheKvCache) {
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(Tiny(), {.context_length = 32});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->kv_cache_bytes(), 2u * 2 * 32 * (4 * 16 + 32) * 2);
  absl::StatusOr<std::unique_ptr<Model>> q8 =
      Model::Load(Tiny(), {.context_length = 32, .kv_cache_type = KvCacheType::kQ8_0});
  ASSERT_FALSE(q8.ok());  // head dimension 16 is not a multiple of 32
  EXPECT_TRUE(absl::StrContains(q8.status().message(), "this model's is 16")) << q8.status();
}

// The q8_0 cache with head dimensions 32 (sliding) and 64 (full): rows of 34 and 68 bytes; the
// logits are near the f32 cache's (5.4% measured: unscaled scores over RMS-normed heads make the
// softmax sharp, so q8_0's rounding of K moves the weights), at position 0 too (a block's own
// rows are read as the cache holds them).
TEST(Gemma4Test, Q8_0CacheWithTwoHeadDimensions) {
  RandomModelSpec spec = TinySpec();
  spec.head_dim = 64, spec.head_dim_swa = 32;
  const TensorDict d = Tiny(spec);
  absl::StatusOr<std::unique_ptr<Model>> q8 =
      Model::Load(d, {.context_length = 32, .kv_cache_type = KvCacheType::kQ8_0});
  ASSERT_TRUE(q8.ok()) << q8.status();
  EXPECT_EQ((*q8)->kv_cache_bytes(), 2u * 2 * 32 * (4 * 34 + 68));
  absl::StatusOr<std::unique_ptr<Model>> f32 =
      Model::Load(d, {.context_length = 32, .kv_cache_type = KvCacheType::kF32});
  ASSERT_TRUE(f32.ok()) << f32.status();
  double diff = 0, top = 0;
  for (int pos = 0; pos < kN; ++pos) {
    absl::StatusOr<absl::Span<const float>> a = (*q8)->Forward(kTokens[pos], pos);
    ASSERT_TRUE(a.ok()) << a.status();
    const std::vector<float> av(a->begin(), a->end());
    absl::StatusOr<absl::Span<const float>> b = (*f32)->Forward(kTokens[pos], pos);
    ASSERT_TRUE(b.ok()) << b.status();
    for (size_t i = 0; i < av.size(); ++i) {
      diff = std::max(diff, double(std::fabs(av[i] - (*b)[i])));
      top = std::max(top, double(std::fabs((*b)[i])));
    }
  }
  EXPECT_GT(diff, 0.0);  // the rows were quantized
  EXPECT_LT(diff, 0.15 * top);
}

// A prefill block computes what decode steps do: the shared layers read the block's new rows of
// layers 3 and 4. (GELU exact: through the fp16 table, 1e-7 differences of summation order flip
// single activations by an fp16 step, 2e-4 on these logits.)
TEST(Gemma4Test, PrefillMatchesDecode) {
  const TensorDict d = Tiny();
  const std::vector<float> step = Logits(d, false, false), block = Logits(d, true, false);
  ASSERT_EQ(step.size(), size_t{kN} * 512);
  ASSERT_EQ(block.size(), step.size());
  EXPECT_LT(MaxAbsDiff(step, block), 1e-5);
}

// final_logit_softcapping: logits = 30 tanh(raw / 30); without the key, llama.cpp's default 30.
TEST(Gemma4Test, FinalLogitSoftCapping) {
  const TensorDict d = Tiny();
  const MetadataValue zero = MetadataValue::Float(0.0, MetadataValue::Width::kF32);
  const std::vector<float> capped = Logits(d);
  const std::vector<float> raw = Logits(WithKey(d, "gemma4.final_logit_softcapping", &zero));
  ASSERT_EQ(raw.size(), capped.size());
  ASSERT_FALSE(raw.empty());
  std::vector<float> want(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) want[i] = 30.0f * std::tanh(raw[i] / 30.0f);
  EXPECT_LT(MaxAbsDiff(capped, want), 1e-5);
  EXPECT_GT(MaxAbsDiff(capped, raw), 1e-4);
  absl::StatusOr<ModelConfig> c =
      ModelConfig::FromMetadata(WithKey(d, "gemma4.final_logit_softcapping", nullptr));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->final_logit_softcapping, 30.0f);
}

// K/V weights on a shared layer (llama.cpp loads and ignores them) change nothing.
TEST(Gemma4Test, SharedLayerKvWeightsAreIgnored) {
  const TensorDict d = Tiny();
  TensorDict extra = WithKey(d, "general.name", *d.GetMetadata("general.name"));
  ASSERT_TRUE(extra.Set("blk.7.attn_k.weight", **d.Get("blk.3.attn_k.weight")).ok());
  ASSERT_TRUE(extra.Set("blk.7.attn_v.weight", **d.Get("blk.3.attn_v.weight")).ok());
  ASSERT_TRUE(extra.Set("blk.7.attn_k_norm.weight", **d.Get("blk.3.attn_k_norm.weight")).ok());
  const std::vector<float> a = Logits(d), b = Logits(extra);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(MaxAbsDiff(a, b), 0.0);
}

TEST(Gemma4Test, RefusesBadMetadata) {
  const TensorDict d = Tiny();
  const MetadataValue short_pattern = MetadataValue::BoolArray({true, false});
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(
      WithKey(d, "gemma4.attention.sliding_window_pattern", &short_pattern));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(c.status().message(),
                                "'gemma4.attention.sliding_window_pattern' is bool[2]; expected "
                                "10 bools"))
      << c.status();
  // 4 shared layers: layer 6 (sliding) would read layer 4 (full).
  const MetadataValue four = MetadataValue::Int(4, MetadataValue::Width::kU32);
  c = ModelConfig::FromMetadata(WithKey(d, "gemma4.attention.shared_kv_layers", &four));
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(),
                                "shared layer 6 (sliding-window) would "
                                "read layer 4's cache, which is full"))
      << c.status();
  const MetadataValue nine = MetadataValue::Int(9, MetadataValue::Width::kU32);
  c = ModelConfig::FromMetadata(WithKey(d, "gemma4.attention.shared_kv_layers", &nine));
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(), "is 9; expected 0 or at most")) << c.status();
  const MetadataValue experts = MetadataValue::Int(128, MetadataValue::Width::kU32);
  c = ModelConfig::FromMetadata(WithKey(d, "gemma4.expert_count", &experts));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  const MetadataValue bad_ffn = MetadataValue::IntArray({128, 128}, MetadataValue::Width::kU32);
  c = ModelConfig::FromMetadata(WithKey(d, "gemma4.feed_forward_length", &bad_ffn));
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::StrContains(c.status().message(), "expected an integer or 10 integers"))
      << c.status();
}

TEST(Gemma4Test, RefusesAMissingPerLayerEmbedding) {
  const TensorDict d = Tiny();
  TensorDict missing;
  for (const std::string& name : d.Keys()) {
    if (name != "per_layer_token_embd.weight") {
      ASSERT_TRUE(missing.Set(name, **d.Get(name)).ok());
    }
  }
  for (const std::string& k : d.MetadataKeys()) missing.SetMetadata(k, **d.GetMetadata(k));
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(missing, {.context_length = 32});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(m.status().message(),
                                "tensor 'per_layer_token_embd.weight' is missing; expected [512, "
                                "160]"))
      << m.status();
}

// Gemma4ForCausalLM is imported from Hugging Face (convert/hf_gemma4.cc; the round trip of
// gemma4-tiny is convert/hf_import_test's): its per-layer keys are required by name.
TEST(Gemma4Test, HfImportNamesTheMissingPerLayerKeys) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/hf_gemma4");
  ASSERT_EQ(std::system(absl::StrCat("mkdir -p '", dir, "'").c_str()), 0);
  const std::string base =
      R"({"architectures": ["Gemma4ForCausalLM"], "num_hidden_layers": 2, "hidden_size": 64,)"
      R"( "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,)"
      R"( "head_dim": 16, "max_position_embeddings": 256, "vocab_size": 512)";
  std::ofstream(dir + "/config.json") << base << "}";
  absl::StatusOr<TensorDict> got = convert::ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "missing key \"layer_types\" (expected a list of "
                                "num_hidden_layers (2) strings \"sliding_attention\" or "
                                "\"full_attention\")"))
      << got.status();
  std::ofstream(dir + "/config.json")
      << base << R"(, "layer_types": ["sliding_attention", "full_attention"]})";
  got = convert::ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "missing key \"global_head_dim\" (expected a positive integer"))
      << got.status();
  std::ofstream(dir + "/config.json")
      << base << R"(, "layer_types": ["sliding_attention", "full_attention"],)"
      << R"( "enable_moe_block": true})";
  got = convert::ImportHfCheckpoint(dir);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "key \"enable_moe_block\" is true, expected false (edgeq runs "
                                "the dense Gemma 4 layers"))
      << got.status();
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
