// The Q4_KR4 and Q6_KR4 layouts (repack_r4.h) read back byte by byte against GGML's blocks: every
// level, scale, min and fp16 scale of every row lands where the layout's comment says, and the
// rows that complete the last group of four are zero bytes. (ARM only: the R4 repacks are built
// with the ARM kernels.)
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "quantization/block_layout.h"

#if defined(__aarch64__)
#include "runtime/kernels/arm/repack_r4.h"
#endif

namespace edgeq {
namespace kernels {
namespace {

#if defined(__aarch64__)
// GGML's level of value v (0..255) of a Q4_K block: sub-block pair j = v / 64, low nibbles for
// v % 64 < 32, high nibbles above.
int GgmlLevel(const blocks::BlockQ4_K& b, int v) {
  const uint8_t q = b.qs[32 * (v / 64) + v % 32];
  return v % 64 < 32 ? q & 15 : q >> 4;
}

TEST(RepackQ4_KR4Test, EveryByteWhereTheLayoutSays) {
  constexpr int64_t kN = 6, kK = 512, kNb = kK / 256;
  std::mt19937 rng(34);
  std::vector<blocks::BlockQ4_K> w(kN * kNb);
  for (auto& b : w) {
    uint8_t bytes[sizeof(b)];
    for (uint8_t& x : bytes) x = static_cast<uint8_t>(rng());
    std::memcpy(&b, bytes, sizeof(b));
  }
  ASSERT_EQ(internal::Q4_KR4RowBytes(kK), static_cast<size_t>(kNb * 148));
  const size_t row_bytes = internal::Q4_KR4RowBytes(kK);
  std::vector<uint8_t> out(8 * row_bytes, 0xAA);  // two groups of four rows
  internal::RepackQ4_KR4(reinterpret_cast<const uint8_t*>(w.data()), kN, kK, out.data());
  int checked = 0;
  for (int64_t n = 0; n < 8; ++n) {
    const int64_t g = n / 4, r = n % 4;
    for (int64_t b = 0; b < kNb; ++b) {
      const uint8_t* blk = out.data() + 4 * g * row_bytes + b * 592;
      uint16_t d, dmin;
      std::memcpy(&d, blk + 2 * r, 2);
      std::memcpy(&dmin, blk + 8 + 2 * r, 2);
      if (n >= kN) {  // the zero rows of the last group
        EXPECT_EQ(d, 0);
        EXPECT_EQ(dmin, 0);
        for (int s = 0; s < 8; ++s) {
          EXPECT_EQ(blk[16 + 4 * s + r], 0);
          EXPECT_EQ(blk[48 + 4 * s + r], 0);
          for (int v = 0; v < 32; ++v) {
            EXPECT_EQ(blk[80 + 64 * s + 16 * (v % 16 / 4) + 4 * r + v % 4] >> (v < 16 ? 0 : 4) & 15,
                      0);
          }
        }
        continue;
      }
      const blocks::BlockQ4_K& src = w[n * kNb + b];
      EXPECT_EQ(d, src.d);
      EXPECT_EQ(dmin, src.dmin);
      for (int s = 0; s < 8; ++s) {
        uint8_t sc, mn;
        blocks::GetScaleMinK4(s, src.scales, &sc, &mn);
        EXPECT_EQ(blk[16 + 4 * s + r], sc) << "row " << n << " block " << b << " sub-block " << s;
        EXPECT_EQ(blk[48 + 4 * s + r], mn) << "row " << n << " block " << b << " sub-block " << s;
        for (int v = 0; v < 32; ++v) {  // value 32 s + v: word v % 16 / 4, byte v % 4
          const uint8_t byte = blk[80 + 64 * s + 16 * (v % 16 / 4) + 4 * r + v % 4];
          const int level = v < 16 ? byte & 15 : byte >> 4;
          ASSERT_EQ(level, GgmlLevel(src, 32 * s + v))
              << "row " << n << " block " << b << " value " << 32 * s + v;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, kN * kK);
}
// GGML's 6-bit level of value v of a Q6_K block (dequantize_row_q6_K's order).
int GgmlQ6Level(const blocks::BlockQ6_K& b, int v) {
  const int n = v / 128, t = v % 128 / 32, l = v % 32;
  const uint8_t ql = b.ql[64 * n + l + 32 * (t % 2)];
  return (t < 2 ? ql & 15 : ql >> 4) | ((b.qh[32 * n + l] >> (2 * t)) & 3) << 4;
}

TEST(RepackQ6_KR4Test, EveryByteWhereTheLayoutSays) {
  constexpr int64_t kN = 5, kK = 512, kNb = kK / 256;
  std::mt19937 rng(35);
  std::vector<blocks::BlockQ6_K> w(kN * kNb);
  for (auto& b : w) {
    uint8_t bytes[sizeof(b)];
    for (uint8_t& x : bytes) x = static_cast<uint8_t>(rng());
    std::memcpy(&b, bytes, sizeof(b));
  }
  ASSERT_EQ(internal::Q6_KR4RowBytes(kK), static_cast<size_t>(kNb * 210));
  const size_t row_bytes = internal::Q6_KR4RowBytes(kK);
  std::vector<uint8_t> out(8 * row_bytes, 0xAA);
  internal::RepackQ6_KR4(reinterpret_cast<const uint8_t*>(w.data()), kN, kK, out.data());
  int checked = 0;
  for (int64_t n = 0; n < 8; ++n) {
    const int64_t g = n / 4, r = n % 4;
    for (int64_t b = 0; b < kNb; ++b) {
      const uint8_t* blk = out.data() + 4 * g * row_bytes + b * 840;
      uint16_t d;
      std::memcpy(&d, blk + 2 * r, 2);
      EXPECT_EQ(d, n < kN ? w[n * kNb + b].d : 0);
      for (int gr = 0; gr < 16; ++gr) {
        EXPECT_EQ(static_cast<int8_t>(blk[8 + 4 * gr + r]), n < kN ? w[n * kNb + b].scales[gr] : 0)
            << "row " << n << " block " << b << " group " << gr;
      }
      for (int v = 0; v < 256; ++v) {  // sub-block v / 32, word v % 16 / 4, byte v % 4
        const uint8_t* sb = blk + 72 + 96 * (v / 32);
        const int u = v % 32, c = u % 16 / 4, e = u % 4;
        const uint8_t nib = sb[16 * c + 4 * r + e];
        const int low = u < 16 ? nib & 15 : nib >> 4;
        const int top = ((sb[64 + 16 * (u / 16) + 4 * r + e] >> (2 * c)) & 3) ^ 2;
        // A missing row decodes to level 32 (value 4 x (level - 32) = 0) with d = 0.
        const int want = n < kN ? GgmlQ6Level(w[n * kNb + b], v) : 32;
        ASSERT_EQ(low | top << 4, want) << "row " << n << " block " << b << " value " << v;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 8 * kK);
}
#else
TEST(RepackQ4_KR4Test, EveryByteWhereTheLayoutSays) {
  GTEST_SKIP() << "the R4 repacks are built for aarch64 only (run under --config=aarch64)";
}
TEST(RepackQ6_KR4Test, EveryByteWhereTheLayoutSays) {
  GTEST_SKIP() << "the R4 repacks are built for aarch64 only (run under --config=aarch64)";
}
#endif

}  // namespace
}  // namespace kernels
}  // namespace edgeq
