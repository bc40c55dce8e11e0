#include "examples/tinystories/sampler.h"

#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace tinystories {
namespace {

// Values printed by run.c's random_u32/random_f32 for seed 42.
TEST(SamplerTest, GeneratorMatchesRunC) {
  absl::StatusOr<Sampler> s = Sampler::Create(4, {1.0f, 0.9f, 42});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->NextU32(), 1456360119u);
  EXPECT_EQ(s->NextU32(), 3359763283u);
  EXPECT_EQ(s->NextU32(), 3393612768u);
  EXPECT_FLOAT_EQ(s->NextF32(), 0.944042623f);
}

TEST(SamplerTest, GreedyTakesFirstMaximum) {
  absl::StatusOr<Sampler> s = Sampler::Create(5, {0.0f, 0.9f, 1});
  ASSERT_TRUE(s.ok());
  std::vector<float> logits = {0.1f, 3.0f, -1.0f, 3.0f, 2.0f};
  EXPECT_EQ(s->Sample(absl::MakeSpan(logits)), 1);
}

TEST(SamplerTest, TopPKeepsTheNucleus) {
  // Probabilities after softmax are dominated by index 2; top-p 0.5 must always pick it.
  absl::StatusOr<Sampler> s = Sampler::Create(4, {1.0f, 0.5f, 7});
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 50; ++i) {
    std::vector<float> logits = {0.0f, 1.0f, 5.0f, 0.5f};
    EXPECT_EQ(s->Sample(absl::MakeSpan(logits)), 2);
  }
}

TEST(SamplerTest, MultinomialFollowsTheDistribution) {
  absl::StatusOr<Sampler> s = Sampler::Create(2, {1.0f, 0.0f, 3});
  ASSERT_TRUE(s.ok());
  int ones = 0;
  for (int i = 0; i < 4000; ++i) {
    std::vector<float> logits = {0.0f, std::log(3.0f)};  // p = 0.25, 0.75
    ones += s->Sample(absl::MakeSpan(logits));
  }
  EXPECT_NEAR(ones / 4000.0, 0.75, 0.03);
}

TEST(SamplerTest, RejectsBadOptions) {
  EXPECT_FALSE(Sampler::Create(4, {-1.0f, 0.9f, 1}).ok());
  EXPECT_FALSE(Sampler::Create(4, {1.0f, 1.5f, 1}).ok());
  EXPECT_FALSE(Sampler::Create(4, {1.0f, 0.9f, 0}).ok());
  EXPECT_FALSE(Sampler::Create(0, {1.0f, 0.9f, 1}).ok());
}

TEST(SamplerTest, SoftmaxSumsToOne) {
  std::vector<float> x = {1.0f, 2.0f, 3.0f};
  Softmax(absl::MakeSpan(x));
  EXPECT_NEAR(x[0] + x[1] + x[2], 1.0f, 1e-6f);
  EXPECT_NEAR(x[2], 0.66524096f, 1e-6f);
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
