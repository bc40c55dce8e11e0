#include "examples/tinystories/internal/quant.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace tinystories {
namespace internal {
namespace {

TEST(QuantTest, HalfConversions) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(1e6f), 0x7C00);
  EXPECT_EQ(FloatToHalf(5.9604645e-8f), 0x0001);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604645e-8f);
}

// Q4_0 block of GGML: d = max / -8 with max the signed largest-magnitude value.
TEST(QuantTest, Q4_0KnownBlock) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = (i - 16) * 0.5f;  // largest magnitude: -8 at i = 0
  absl::StatusOr<Tensor> t = Tensor::FromValues<float>(Shape({1, 32}), x);
  ASSERT_TRUE(t.ok());
  absl::StatusOr<Tensor> q = Quantize(*t, "q4_0");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->shape(), Shape({1, 18}));
  const uint8_t* b = static_cast<const uint8_t*>(q->raw_data());
  EXPECT_EQ(b[0] | (b[1] << 8), 0x3C00);  // d = 1.0
  // x[0] = -8 -> q = 0; x[16] = 0 -> q = 8: byte 2 = 0 | 8 << 4.
  EXPECT_EQ(b[2], 0x80);
  std::vector<float> back(32);
  DequantizeRow("q4_0", b, back.data(), 32);
  for (int i = 0; i < 32; ++i) EXPECT_NEAR(back[i], x[i], 0.5f) << i;
}

TEST(QuantTest, DotProductsMatchDequantized) {
  const int k = 64;
  std::vector<float> w(k), x(k);
  for (int i = 0; i < k; ++i) {
    w[i] = std::sin(i * 0.37f);
    x[i] = std::cos(i * 0.11f);
  }
  absl::StatusOr<Tensor> t = Tensor::FromValues<float>(Shape({1, k}), w);
  ASSERT_TRUE(t.ok());
  std::vector<uint8_t> xq(2 * 34);
  QuantizeActivationQ8(x.data(), k, xq.data());
  for (const char* e : {"q4_0", "q8_0", "bf16"}) {
    absl::StatusOr<Tensor> q = Quantize(*t, e);
    ASSERT_TRUE(q.ok());
    std::vector<float> dq(k);
    const uint8_t* row = static_cast<const uint8_t*>(q->raw_data());
    DequantizeRow(e, row, dq.data(), k);
    float ref = 0.0f, exact = 0.0f;
    for (int i = 0; i < k; ++i) {
      ref += dq[i] * x[i];
      exact += w[i] * x[i];
    }
    const float got = std::string(e) == "q4_0"   ? DotRowQ4_0(row, xq.data(), k)
                      : std::string(e) == "q8_0" ? DotRowQ8_0(row, xq.data(), k)
                                                 : DotRowBf16(row, x.data(), k);
    EXPECT_NEAR(got, ref, 0.05f) << e;
    EXPECT_NEAR(got, exact, std::string(e) == "q4_0" ? 0.5f : 0.1f) << e;
  }
}

TEST(QuantTest, RejectsBadK) {
  absl::StatusOr<Tensor> t = Tensor::Full(Shape({2, 40}), 1.0f);
  ASSERT_TRUE(t.ok());
  absl::StatusOr<Tensor> q = Quantize(*t, "q4_0");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("multiple of 32"), absl::string_view::npos);
  EXPECT_FALSE(Quantize(*t, "q3_x").ok());
  EXPECT_TRUE(Quantize(*t, "bf16").ok());
}

}  // namespace
}  // namespace internal
}  // namespace tinystories
}  // namespace edgeq
