#include "llm/rope_frequencies.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "checkpoint/tensor_dict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace llm {
namespace {

using ::testing::HasSubstr;

Tensor Vec(std::vector<float> v) {
  return *Tensor::FromValues<float>({static_cast<int64_t>(v.size())}, absl::MakeConstSpan(v));
}

// Each value within 4 ulps of the expected one.
::testing::Matcher<std::vector<float>> Floats(std::vector<float> want) {
  return ::testing::Pointwise(::testing::FloatEq(), want);
}

ModelConfig Config(int dims, float base) {
  ModelConfig c;
  c.rope_dimension_count = dims;
  c.rope_freq_base = base;
  c.rope_freq_base_swa = 10000.0f;
  return c;
}

std::vector<float> Table(const ModelConfig& c, const checkpoint::TensorDict& w, int ctx, bool swa) {
  absl::StatusOr<Tensor> t = RopeFrequencies(c, w, ctx, swa);
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  absl::Span<const float> v = *t->Values<float>();
  return std::vector<float>(v.begin(), v.end());
}

TEST(RopeFrequenciesTest, PlainAndLinearAndSlidingWindow) {
  ModelConfig c = Config(4, 100.0f);  // pairs 0, 1: 100^0, 100^(-1/2)
  checkpoint::TensorDict none;
  EXPECT_THAT(Table(c, none, 64, false), Floats({1.0f, 0.1f}));
  c.rope_scaling_type = RopeScaling::kLinear;
  c.rope_scaling_factor = 4.0f;
  EXPECT_THAT(Table(c, none, 64, false), Floats({0.25f, 0.025f}));
  // The sliding-window table: its own base, no scaling.
  EXPECT_THAT(Table(c, none, 64, true), Floats({1.0f, 0.01f}));
}

TEST(RopeFrequenciesTest, FactorTensorsDivide) {
  ModelConfig c = Config(4, 100.0f);
  checkpoint::TensorDict w;
  ASSERT_TRUE(w.Set("rope_freqs.weight", Vec({2.0f, 4.0f})).ok());
  EXPECT_THAT(Table(c, w, 64, false), Floats({0.5f, 0.025f}));
  EXPECT_THAT(Table(c, w, 64, true), Floats({1.0f, 0.01f}));  // no factors on swa layers

  // phi3: the long factors past the original context, the short ones within it.
  ModelConfig p = Config(4, 100.0f);
  p.has_rope_factors = true;
  p.rope_scaling_original_context_length = 128;
  checkpoint::TensorDict f;
  ASSERT_TRUE(f.Set("rope_factors_long.weight", Vec({10.0f, 10.0f})).ok());
  ASSERT_TRUE(f.Set("rope_factors_short.weight", Vec({1.0f, 2.0f})).ok());
  EXPECT_THAT(Table(p, f, 256, false), Floats({0.1f, 0.01f}));
  EXPECT_THAT(Table(p, f, 128, false), Floats({1.0f, 0.05f}));
}

TEST(RopeFrequenciesTest, Llama3ScalingFromKeys) {
  // Llama 3.1's keys: factor 8, low 1, high 4, original context 8192: wavelengths above 8192
  // are divided by 8, below 2048 kept, between smoothly interpolated.
  ModelConfig c = Config(128, 500000.0f);
  c.rope_scaling_type = RopeScaling::kLlama3;
  c.rope_scaling_factor = 8.0f;
  c.rope_scaling_low_freq_factor = 1.0f;
  c.rope_scaling_high_freq_factor = 4.0f;
  c.rope_scaling_original_context_length = 8192;
  const std::vector<float> t = Table(c, checkpoint::TensorDict(), 64, false);
  ASSERT_EQ(t.size(), 64u);
  for (int i = 0; i < 64; ++i) {
    const double f = 1.0 / std::pow(500000.0, 2.0 * i / 128.0);
    const double wavelen = 2 * M_PI / f;
    double want = f;
    if (wavelen > 8192) {
      want = f / 8;
    } else if (wavelen >= 2048) {
      const double smooth = (8192 / wavelen - 1) / 3;
      want = f * ((1 - smooth) / 8 + smooth);
    }
    EXPECT_NEAR(t[i], want, 1e-5 * want) << "pair " << i;
  }
  EXPECT_EQ(t[0], 1.0f);  // short wavelength: kept
}

TEST(RopeFrequenciesTest, ShortFactorTensorIsRefused) {
  ModelConfig c = Config(8, 100.0f);
  checkpoint::TensorDict w;
  ASSERT_TRUE(w.Set("rope_freqs.weight", Vec({1.0f, 1.0f})).ok());
  absl::StatusOr<Tensor> t = RopeFrequencies(c, w, 64, false);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()),
              HasSubstr("rope_freqs.weight must be f32 with at least 4 values (rope dimensions / "
                        "2), got"));
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
