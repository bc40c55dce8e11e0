#include "examples/mixed_precision/mixed_precision.h"

#include "gtest/gtest.h"

namespace edgeq {
namespace examples {
namespace {

TEST(MixedPrecisionTest, MemoryAndErrorOrdering) {
  MixedPrecisionOptions options;
  for (int threads : {1, 2}) {
    options.num_threads = threads;
    absl::StatusOr<std::vector<MixedPrecisionRow>> rows = RunMixedPrecision(options);
    ASSERT_TRUE(rows.ok()) << rows.status();
    ASSERT_EQ(rows->size(), 4u);
    const auto& q4 = (*rows)[0];
    const auto& q6 = (*rows)[1];
    const auto& q8 = (*rows)[2];
    const auto& f32 = (*rows)[3];
    EXPECT_EQ(q4.encoding, "q4_0");
    EXPECT_EQ(q6.encoding, "q6_k");
    EXPECT_EQ(q8.encoding, "q8_0");
    EXPECT_EQ(f32.encoding, "f32");
    const int64_t nk = options.n * options.k;
    EXPECT_EQ(q4.weight_bytes, nk / 32 * 18);
    EXPECT_EQ(q6.weight_bytes, nk / 256 * 210);
    EXPECT_EQ(q8.weight_bytes, nk / 32 * 34);
    EXPECT_EQ(f32.weight_bytes, nk * 4);
    EXPECT_DOUBLE_EQ(q4.bits_per_weight, 4.5);
    EXPECT_DOUBLE_EQ(q6.bits_per_weight, 6.5625);
    EXPECT_DOUBLE_EQ(q8.bits_per_weight, 8.5);
    EXPECT_EQ(f32.max_abs_error, 0.0);
    // More bits, less error; all within what the formats promise.
    EXPECT_GT(q4.relative_rmse, q6.relative_rmse);
    EXPECT_GT(q6.relative_rmse, q8.relative_rmse);
    EXPECT_LT(q4.relative_rmse, 0.15);
    EXPECT_LT(q6.relative_rmse, 0.04);
    EXPECT_LT(q8.relative_rmse, 0.02);
    EXPECT_GT(q8.relative_rmse, 0.0);
  }
}

}  // namespace
}  // namespace examples
}  // namespace edgeq
