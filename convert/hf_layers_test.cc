// convert/hf_layers.h: lfm2's feed_forward_length as LFM2Model._add_feed_forward_length computes
// it from the block_* keys (the real LFM2 configs' values), the layer kinds' tensors, and
// qwen35's A_log -> ssm_a and value-head reorder.
#include "convert/hf_layers.h"

#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/tensor.h"
#include "gtest/gtest.h"
#include "llm/arch/arch_table.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace convert {
namespace internal {
namespace {

using json = nlohmann::json;

absl::StatusOr<int64_t> Lfm2Ffn(json keys) {
  return ReadFeedForwardLength(Config("config.json", std::move(keys)),
                               *llm::arch::FindByGgufName("lfm2"));
}

TEST(HfLayers, Lfm2FeedForwardLengthIsAutoAdjustedAsTheConverterDoes) {
  const json base = {{"block_auto_adjust_ff_dim", true},
                     {"block_ffn_dim_multiplier", 1.0},
                     {"block_multiple_of", 256}};
  // LFM2-350M, -700M, -1.2B: block_ff_dim 6656, 10240, 12288 -> 4608, 6912, 8192.
  for (const auto& [ff, want] : {std::pair<int, int>{6656, 4608}, {10240, 6912}, {12288, 8192}}) {
    json c = base;
    c["block_ff_dim"] = ff;
    c["intermediate_size"] = 1;  // block_ff_dim comes first
    absl::StatusOr<int64_t> got = Lfm2Ffn(c);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, want) << ff;
  }
  json c = base;
  c["intermediate_size"] = 1000;  // int(2000 / 3) = 666, x 1.5 = 999 -> 1024
  c["block_ffn_dim_multiplier"] = 1.5;
  EXPECT_EQ(*Lfm2Ffn(c), 1024);
  c["block_ffn_dim_multiplier"] = nullptr;  // no multiplier: 666 -> 768
  EXPECT_EQ(*Lfm2Ffn(c), 768);
  c["block_auto_adjust_ff_dim"] = false;  // as given
  EXPECT_EQ(*Lfm2Ffn(c), 1000);
  c.erase("block_auto_adjust_ff_dim");
  absl::StatusOr<int64_t> got = Lfm2Ffn(c);
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(got.status().message(),
                                "config.json: missing key \"block_auto_adjust_ff_dim\" (expected "
                                "true or false)"))
      << got.status();
}

TEST(HfLayers, EachLayerKindHasItsTensors) {
  HfLayout hybrid_moe;
  hybrid_moe.attention = {false, true, false};
  hybrid_moe.experts = 4, hybrid_moe.leading_dense = 1;
  EXPECT_TRUE(LayerHasTensor(hybrid_moe, 0, "shortconv.in_proj.weight"));
  EXPECT_FALSE(LayerHasTensor(hybrid_moe, 0, "attn_q.weight"));
  EXPECT_TRUE(LayerHasTensor(hybrid_moe, 0, "ffn_up.weight"));
  EXPECT_FALSE(LayerHasTensor(hybrid_moe, 0, "ffn_up_exps.weight"));
  EXPECT_FALSE(LayerHasTensor(hybrid_moe, 1, "shortconv.conv.weight"));
  EXPECT_TRUE(LayerHasTensor(hybrid_moe, 1, "attn_k_norm.weight"));
  EXPECT_FALSE(LayerHasTensor(hybrid_moe, 1, "ffn_gate.weight"));
  EXPECT_TRUE(LayerHasTensor(hybrid_moe, 1, "ffn_gate_inp.weight"));
  EXPECT_TRUE(LayerHasTensor(hybrid_moe, 2, "exp_probs_b.bias"));
  EXPECT_TRUE(LayerHasTensor(hybrid_moe, 2, "attn_norm.weight"));
  EXPECT_TRUE(LayerHasTensor(HfLayout(), 0, "attn_q.weight"));
  EXPECT_TRUE(LayerHasTensor(HfLayout(), 0, "ffn_down.weight"));
}

// qwen35: ssm_a = -exp(A_log) with exp rounded to A_log's stored type, as torch computes it
// (A_log = -1: exp 0.36787944 is 0.36787945f in f32, 0.3671875 in bf16, 1507/4096 in f16).
TEST(HfLayers, SsmAIsMinusExpOfALogInTheStoredType) {
  LinearAttention la;
  la.key_heads = la.value_heads = 1, la.head_dim = 4, la.conv_kernel = 4;
  const Tensor a_log = *Tensor::FromValues<float>(Shape{1}, std::vector<float>{-1.0f});
  Tensor bf16 = *Tensor::Create(DType::kUInt8, Shape{2});
  bf16.SetQuantization("bf16", Shape{1});
  Tensor f16 = *Tensor::Create(DType::kFloat16, Shape{1});
  for (const auto& [source, want] : {std::pair<const Tensor*, float>{&a_log, -0.36787945f},
                                     {&bf16, -0.3671875f},
                                     {&f16, -1507.0f / 4096.0f}}) {
    absl::StatusOr<Tensor> got = ConvertLinearAttentionTensor(la, "ssm_a", "A_log", *source, a_log);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*got->Values<float>())[0], want) << source->DebugString();
  }
}

// qwen35 with 2 key heads and 4 value heads: value heads grouped by key head (HF: g0v0 g0v1
// g1v0 g1v1) become tiled (g0v0 g1v0 g0v1 g1v1), in rows (ssm_beta) and in columns (ssm_out).
TEST(HfLayers, ValueHeadsAreReorderedFromGroupedToTiled) {
  LinearAttention la;
  la.key_heads = 2, la.value_heads = 4, la.head_dim = 1, la.conv_kernel = 4;
  const Tensor beta =
      *Tensor::FromValues<float>(Shape{4, 1}, std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f});
  absl::StatusOr<Tensor> rows =
      ConvertLinearAttentionTensor(la, "ssm_beta.weight", "b", beta, beta);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(std::vector<float>(rows->Values<float>()->begin(), rows->Values<float>()->end()),
            (std::vector<float>{0.0f, 2.0f, 1.0f, 3.0f}));
  const Tensor out =
      *Tensor::FromValues<float>(Shape{1, 4}, std::vector<float>{0.0f, 1.0f, 2.0f, 3.0f});
  absl::StatusOr<Tensor> cols = ConvertLinearAttentionTensor(la, "ssm_out.weight", "o", out, out);
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_EQ(std::vector<float>(cols->Values<float>()->begin(), cols->Values<float>()->end()),
            (std::vector<float>{0.0f, 2.0f, 1.0f, 3.0f}));
  // A tensor whose rows are not the value heads is refused, naming it.
  absl::StatusOr<Tensor> bad =
      ConvertLinearAttentionTensor(la, "attn_qkv.weight", "qkv", beta, beta);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(),
                                "tensor 'qkv' (f32[4, 1]): expected 4 value heads of 1 rows"))
      << bad.status();
}

}  // namespace
}  // namespace internal
}  // namespace convert
}  // namespace edgeq
