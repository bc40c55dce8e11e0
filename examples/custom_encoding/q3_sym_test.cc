#include "examples/custom_encoding/q3_sym.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace examples {
namespace {

TEST(Q3SymTest, KnownBlock) {
  // max magnitude -8 (signed): d = -8 / -4 = 2; x = (q - 4) * 2.
  std::vector<float> x(32, 0.0f);
  x[0] = -8.0f;  // -4 + 4.5 = 0.5 -> q 0
  x[1] = 6.0f;   // 3 + 4.5 = 7.5 -> q 7
  x[2] = -2.9f;  // -1.45 + 4.5 = 3.05 -> q 3
  x[31] = 7.9f;  // 3.95 + 4.5 = 8.45 -> clamped to q 7
  Q3SymEncoding enc;
  uint8_t block[14];
  enc.QuantizeRow(x.data(), block, 32);
  EXPECT_EQ(block[0] | (block[1] << 8), 0x4000);  // fp16 2.0
  // Codes: q0 = 0, q1 = 7, q2 = 3, q3..q30 = 4, q31 = 7; bits 3i..3i+2, little endian.
  EXPECT_EQ(block[2], 0 | (7 << 3) | ((3 & 3) << 6));
  EXPECT_EQ(block[3], (3 >> 2) | (4 << 1) | (4 << 4) | ((4 & 1) << 7));
  EXPECT_EQ(block[13], (4 >> 1) | (4 << 2) | (7 << 5));  // code 29 spans bits 87..89
  float y[32];
  enc.DequantizeRow(block, y, 32);
  EXPECT_EQ(y[0], -8.0f);
  EXPECT_EQ(y[1], 6.0f);
  EXPECT_EQ(y[2], -2.0f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_EQ(y[31], 6.0f);  // the grid's top is 3d
}

TEST(Q3SymTest, RegisteredByNameAndUsedThroughTheApi) {
  ASSERT_TRUE(RegisterQ3SymEncoding().ok());
  ASSERT_TRUE(RegisterQ3SymEncoding().ok());  // idempotent
  absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding("q3_sym");
  ASSERT_TRUE(enc.ok()) << enc.status();

  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> w(8 * 128);
  for (float& v : w) v = dist(rng);
  absl::StatusOr<Tensor> q = (*enc)->Quantize(*Tensor::FromValues<float>(Shape{8, 128}, w));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->shape(), (Shape{8, 56}));
  EXPECT_EQ(q->encoding(), "q3_sym");
  absl::StatusOr<Tensor> y = (*enc)->Dequantize(*q);
  ASSERT_TRUE(y.ok());
  const float* yv = static_cast<const float*>(y->raw_data());
  double sq = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    // Every value is within half a step (d / 2 = |max| / 8) of its block's grid, except values
    // beyond the grid's top (3d), which are clamped.
    sq += (yv[i] - w[i]) * (yv[i] - w[i]);
  }
  const double rmse = std::sqrt(sq / w.size());
  EXPECT_GT(rmse, 0.1);  // 3 bits are coarse...
  EXPECT_LT(rmse, 0.3);  // ...but far better than nothing (sigma 1)

  const std::vector<float> w48(w.begin(), w.begin() + 48);
  absl::StatusOr<Tensor> bad = (*enc)->Quantize(*Tensor::FromValues<float>(Shape{1, 48}, w48));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace examples
}  // namespace edgeq
