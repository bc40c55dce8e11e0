// convert/hf_layers.h: lfm2's feed_forward_length as LFM2Model._add_feed_forward_length computes
// it from the block_* keys (the real LFM2 configs' values), and the layer kinds' tensors.
#include "convert/hf_layers.h"

#include "absl/strings/match.h"
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

}  // namespace
}  // namespace internal
}  // namespace convert
}  // namespace edgeq
