#include "examples/custom_encoding/compare.h"

#include "gtest/gtest.h"

namespace edgeq {
namespace examples {
namespace {

TEST(CustomEncodingExampleTest, PrintsTheExpectedTable) {
  absl::StatusOr<std::vector<EncodingError>> rows = CompareEncodings();
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 3u);
  const EncodingError& q3 = (*rows)[0];
  const EncodingError& q4 = (*rows)[1];
  const EncodingError& q8 = (*rows)[2];
  EXPECT_EQ(q3.encoding, "q3_sym");
  EXPECT_EQ(q3.quantized_shape, "[64, 112]");
  EXPECT_EQ(q3.bytes, 64 * 8 * 14);
  EXPECT_EQ(q4.quantized_shape, "[64, 144]");
  EXPECT_EQ(q8.bytes, 64 * 8 * 34);
  // Measured: q3_sym 0.003461, q4_0 0.001709, q8_0 0.000105 (sigma 0.02 data).
  EXPECT_NEAR(q3.rmse, 0.00346, 0.0001);
  EXPECT_NEAR(q4.rmse, 0.00171, 0.00005);
  EXPECT_NEAR(q8.rmse, 0.000105, 0.000005);
  // Max error is at most half a step of the coarsest block (|max| / 8 for q3_sym, and values
  // above 3d are clamped to 3d: below |max| / 4).
  EXPECT_LT(q3.max_abs_error, 0.02);
  EXPECT_GT(q3.max_abs_error, q4.max_abs_error);
}

}  // namespace
}  // namespace examples
}  // namespace edgeq
