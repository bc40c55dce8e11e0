#include "llm/prefill_plan.h"

#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/tensor_dict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using ::testing::ElementsAre;

TEST(PrefillPlanTest, DefaultIsLlamaCppsUbatch) {
  EXPECT_EQ(kDefaultUbatchSize, 512);
  EXPECT_EQ(ModelOptions().prefill_block, kDefaultUbatchSize);
}

TEST(PrefillPlanTest, BlockSizes) {
  EXPECT_TRUE(PrefillBlockSizes(0).empty());
  EXPECT_TRUE(PrefillBlockSizes(1).empty());
  EXPECT_THAT(PrefillBlockSizes(4), ElementsAre(4));
  EXPECT_THAT(PrefillBlockSizes(8), ElementsAre(8));
  EXPECT_THAT(PrefillBlockSizes(16), ElementsAre(8, 16));
  EXPECT_THAT(PrefillBlockSizes(100), ElementsAre(8, 16, 32, 64, 100));
  EXPECT_THAT(PrefillBlockSizes(512), ElementsAre(8, 16, 32, 64, 128, 256, 512));
}

TEST(PrefillPlanTest, Plans) {
  const std::vector<int> ladder = PrefillBlockSizes(512);
  EXPECT_TRUE(PlanPrefill(0, ladder).empty());
  // A single token and two: decode steps (an 8-block costs 1 + 8/6 steps).
  EXPECT_THAT(PlanPrefill(1, ladder), ElementsAre(1));
  EXPECT_THAT(PlanPrefill(2, ladder), ElementsAre(1, 1));
  // From 3 tokens one (padded) 8-block (2.33 steps) is cheaper than 3.
  EXPECT_THAT(PlanPrefill(3, ladder), ElementsAre(8));
  EXPECT_THAT(PlanPrefill(8, ladder), ElementsAre(8));
  EXPECT_THAT(PlanPrefill(14, ladder), ElementsAre(16));
  EXPECT_THAT(PlanPrefill(16, ladder), ElementsAre(16));
  EXPECT_THAT(PlanPrefill(17, ladder), ElementsAre(16, 1));
  EXPECT_THAT(PlanPrefill(96, ladder), ElementsAre(64, 32));
  EXPECT_THAT(PlanPrefill(128, ladder), ElementsAre(128));
  EXPECT_THAT(PlanPrefill(512, ladder), ElementsAre(512));
  // 1000 = 512 + 488: one padded 512-block (86.3 steps) beats 256+128+64+32+16 (88.7).
  EXPECT_THAT(PlanPrefill(1000, ladder), ElementsAre(512, 512));
  EXPECT_THAT(PlanPrefill(1030, ladder), ElementsAre(512, 512, 8));
  EXPECT_THAT(PlanPrefill(600, ladder), ElementsAre(512, 64, 16, 8));
  // Token by token.
  EXPECT_THAT(PlanPrefill(3, {}), ElementsAre(1, 1, 1));
  EXPECT_THAT(PlanPrefill(5, PrefillBlockSizes(4)), ElementsAre(4, 1));
  // Every plan covers the prompt, and only its last block may be padded.
  for (int ubatch : {0, 4, 16, 100, 512}) {
    const std::vector<int> sizes = PrefillBlockSizes(ubatch);
    for (int n = 1; n <= 1200; ++n) {
      const std::vector<int> plan = PlanPrefill(n, sizes);
      const int64_t covered = std::accumulate(plan.begin(), plan.end(), int64_t{0});
      ASSERT_GE(covered, n) << "ubatch " << ubatch << " n " << n;
      ASSERT_LT(covered - plan.back(), n) << "ubatch " << ubatch << " n " << n;
    }
  }
}

checkpoint::TensorDict SmallModel() {
  RandomModelSpec s = *RandomModelPreset("llama-3.2-1b");
  s.dim = 48, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 40, s.vocab = 37;
  s.context = 1024, s.seed = 5;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

float MaxRelDiff(absl::Span<const float> a, const std::vector<float>& b) {
  float num = 0, den = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::fabs(a[i] - b[i]));
    den = std::max(den, std::fabs(b[i]));
  }
  return num / std::max(den, 1e-30f);
}

// Load builds no prefill block; a prompt builds the blocks its plan uses (and only those), the
// activation memory grows with them, and the logits are the token-by-token ones.
TEST(PrefillPlanTest, ModelBuildsTheBlocksAPromptUses) {
  const checkpoint::TensorDict d = SmallModel();
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(d);
  absl::StatusOr<std::unique_ptr<Model>> one = Model::Load(d, {.prefill_block = 1});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ((*m)->ubatch_size(), kDefaultUbatchSize);
  EXPECT_EQ((*one)->ubatch_size(), 1);
  EXPECT_TRUE((*m)->loaded_block_sizes().empty());
  const uint64_t at_load = (*m)->activation_bytes();
  EXPECT_GT(at_load, 0u);

  std::vector<int> tokens(600);
  for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<int>((i * 7 + 3) % 37);
  for (int n : {1, 8, 96, 600}) {
    const absl::Span<const int> prompt = absl::MakeConstSpan(tokens).first(n);
    absl::StatusOr<absl::Span<const float>> want_span = (*one)->Prefill(prompt, 0);
    ASSERT_TRUE(want_span.ok()) << want_span.status();
    const std::vector<float> want(want_span->begin(), want_span->end());
    absl::StatusOr<absl::Span<const float>> got = (*m)->Prefill(prompt, 0);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_LT(MaxRelDiff(*got, want), 1e-5f) << n << " tokens";
    if (n == 8) {
      EXPECT_THAT((*m)->loaded_block_sizes(), ElementsAre(8));
    }
    if (n == 96) {
      EXPECT_THAT((*m)->loaded_block_sizes(), ElementsAre(8, 32, 64));
    }
  }
  // 600 = 512 + 64 + 16 + 8.
  EXPECT_THAT((*m)->loaded_block_sizes(), ElementsAre(8, 16, 32, 64, 512));
  EXPECT_GT((*m)->activation_bytes(), at_load);

  // The ubatch is capped at the context.
  absl::StatusOr<std::unique_ptr<Model>> small = Model::Load(d, {.context_length = 100});
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_EQ((*small)->ubatch_size(), 100);
}

TEST(PrefillPlanTest, LoadRejectsAnUbatchOutOfRange) {
  const checkpoint::TensorDict d = SmallModel();
  for (int bad : {-1, kMaxUbatchSize + 1}) {
    absl::Status s = Model::Load(d, {.prefill_block = bad}).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(s.message(), "prefill_block (ubatch) must be in [0, 4096]")) << s;
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
