// ModelConfig::FromMetadata (llm/arch/config.cc) on a generated model's metadata: every field
// read, and each missing, contradictory or unsupported key named.
#include "llm/arch/model_config.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/arch/arch_table.h"
#include "llm/random_model.h"
#include "llm/small_model_testing.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

TEST(ModelConfigTest, FromGeneratedMetadata) {
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(SmallModel(false));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->architecture, "llama");
  EXPECT_EQ(c->embedding_length, 48);
  EXPECT_EQ(c->block_count, 2);
  EXPECT_EQ(c->head_count, 4);
  EXPECT_EQ(c->head_count_kv, 2);
  EXPECT_EQ(c->head_dim, 12);
  EXPECT_EQ(c->rope_dimension_count, 12);
  EXPECT_EQ(c->feed_forward_length, 40);
  EXPECT_EQ(c->vocab_size, 37);
  EXPECT_EQ(c->context_length, 64);
  EXPECT_EQ(c->rope_freq_base, 500000.0f);
  EXPECT_EQ(c->rms_norm_epsilon, 1e-5f);
  EXPECT_FALSE(c->tied_output);
  EXPECT_EQ(c->rope_scaling_type,
            RopeScaling::kNone);  // the converter writes rope_freqs.weight only
  EXPECT_EQ(c->ToString(),
            "llama: 2 layers, embedding 48, ffn 40, 4 heads (2 kv, dim 12), vocab 37, context 64, "
            "rope base 500000, rms eps 1e-05, separate output");
  EXPECT_TRUE(ModelConfig::FromMetadata(SmallModel(true))->tied_output);
}

TEST(ModelConfigTest, MissingContradictoryAndUnsupported) {
  auto error = [](const TensorDict& d) { return ModelConfig::FromMetadata(d).status(); };
  auto with = [](TensorDict d, const std::string& key, MetadataValue v) {
    d.SetMetadata(key, std::move(v));
    return d;
  };
  const TensorDict good = SmallModel();
  // Missing keys: each is named.
  for (const char* key : {"llama.block_count", "llama.context_length", "llama.embedding_length",
                          "llama.feed_forward_length", "llama.attention.head_count",
                          "llama.attention.layer_norm_rms_epsilon", "general.architecture"}) {
    TensorDict d;
    for (const std::string& k : good.MetadataKeys()) {
      if (k != key) d.SetMetadata(k, **good.GetMetadata(k));
    }
    for (const std::string& k : good.Keys()) ASSERT_TRUE(d.Set(k, **good.Get(k)).ok());
    absl::Status s = error(d);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_TRUE(absl::StrContains(s.message(), absl::StrCat("missing metadata key '", key, "'")))
        << s;
  }
  absl::Status s = error(with(good, "general.architecture", MetadataValue::String("mamba")));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  // Every row of the architecture table, in its order (llama first).
  EXPECT_EQ(s.message(), absl::StrCat("architecture 'mamba' is not supported; supported: ",
                                      absl::StrJoin(arch::GgufNames(), ", ")));
  EXPECT_TRUE(absl::StartsWith(s.message(),
                               "architecture 'mamba' is not supported; supported: "
                               "llama, qwen2, qwen3, gemma3, phi3, smollm3"));
  s = error(with(good, "llama.attention.head_count_kv", MetadataValue::Int(3)));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "'llama.attention.head_count_kv' is 3")) << s;
  s = error(with(good, "llama.vocab_size", MetadataValue::Int(38)));
  EXPECT_TRUE(absl::StrContains(s.message(), "token_embd.weight")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "llama.vocab_size")) << s;
  TensorDict tok = with(good, "tokenizer.ggml.tokens", MetadataValue::StringArray({"a", "b"}));
  s = error(tok);
  EXPECT_TRUE(absl::StrContains(s.message(), "'tokenizer.ggml.tokens' has 2 tokens but")) << s;
  s = error(with(good, "llama.rope.scaling.type", MetadataValue::String("yarn")));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(s.message(), "'yarn'; supported: none, linear, llama3")) << s;
  RandomModelSpec no_key_length = SmallSpec();
  no_key_length.head_dim_keys = false;
  s = error(with(*RandomModel(no_key_length), "llama.embedding_length", MetadataValue::Int(50)));
  EXPECT_TRUE(absl::StrContains(s.message(), "contradict")) << s;
  // With key_length the embedding need not be heads x head dim; the embedding's shape then is.
  s = error(with(good, "llama.embedding_length", MetadataValue::Int(50)));
  EXPECT_TRUE(absl::StrContains(s.message(), "'token_embd.weight' has shape [37, 48]")) << s;
  s = error(with(good, "llama.rope.dimension_count", MetadataValue::Int(14)));
  EXPECT_TRUE(absl::StrContains(s.message(), "'llama.rope.dimension_count' is 14")) << s;
  s = error(with(good, "llama.block_count", MetadataValue::String("two")));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "llama.block_count")) << s;
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
