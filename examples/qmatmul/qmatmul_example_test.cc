#include "examples/qmatmul/qmatmul_example.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace examples {
namespace {

TEST(QMatmulExampleTest, Values) {
  for (int threads : {1, 2}) {
    absl::StatusOr<QMatmulExampleResult> r = RunQMatmulExample(threads);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->f32_result.shape(), Shape({32, 32}));
    ASSERT_EQ(r->q4_0_result.shape(), Shape({32, 32}));
    absl::Span<const float> f = *r->f32_result.Values<float>();
    absl::Span<const float> q = *r->q4_0_result.Values<float>();
    for (float v : f) EXPECT_NEAR(v, 4.8f, 2e-6f);
    // Q4_0 stores 0.15 as 8 * fp16(0.15 / 8) = 0.150024; the 8-bit activations store 0.5 as
    // 127 * fp16(0.5 / 127) = 0.499969: 64 * 0.150024 * 0.499969 = 4.80048.
    for (float v : q) EXPECT_NEAR(v, 4.80048f, 2e-4f);
    EXPECT_NEAR(r->max_abs_diff, 0.00048f, 2e-4f);
    const std::string text = FormatQMatmulExample(*r);
    EXPECT_THAT(text, ::testing::HasSubstr("%2 = qmatmul(%0, %1) {encoding=q4_0} : f32[32, 32]"));
    EXPECT_THAT(text, ::testing::HasSubstr("max |f32 - q4_0| = "));
  }
}

}  // namespace
}  // namespace examples
}  // namespace edgeq
