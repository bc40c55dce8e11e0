// Q5_K: 256 values in 176 bytes: fp16 d, fp16 dmin, 12 bytes of packed 6-bit scales and mins,
// 32 bytes of 5th bits (qh) and 128 bytes of low nibbles; x = d * sc * q - dmin * m.
// Bit-exact with GGML's quantize_row_q5_K_ref / dequantize_row_q5_K.
#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "quantization/internal/k_quants.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK_K;
constexpr int kBlockBytes = sizeof(blocks::BlockQ5_K);
constexpr Qkx2Params kParams = {31, -0.5f, 0.1f, 15};
constexpr int kQhOffset = 4 + blocks::kKScaleBytes;
constexpr int kQsOffset = kQhOffset + kQK / 8;

}  // namespace

void QuantizeRowQ5_K(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  uint8_t L[kQK];
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t* b = out + i * kBlockBytes;
    uint16_t d, dmin;
    QuantizeKSuperBlock(x + i * kQK, kParams, &d, &dmin, b + 4, L);
    StoreU16(b, d);
    StoreU16(b + 2, dmin);
    uint8_t* qh = b + kQhOffset;
    uint8_t* ql = b + kQsOffset;
    std::memset(qh, 0, kQK / 8);
    uint8_t m1 = 1, m2 = 2;
    for (int n0 = 0; n0 < kQK; n0 += 64) {
      for (int j = 0; j < 32; ++j) {
        int l1 = L[n0 + j];
        if (l1 > 15) {
          l1 -= 16;
          qh[j] |= m1;
        }
        int l2 = L[n0 + j + 32];
        if (l2 > 15) {
          l2 -= 16;
          qh[j] |= m2;
        }
        ql[j] = static_cast<uint8_t>(l1 | (l2 << 4));
      }
      m1 = static_cast<uint8_t>(m1 << 2);
      m2 = static_cast<uint8_t>(m2 << 2);
      ql += 32;
    }
  }
}

void DequantizeRowQ5_K(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const uint8_t* qh = b + kQhOffset;
    const uint8_t* ql = b + kQsOffset;
    // As Q4_K's nibbles, plus 16 where bit 2c + half of qh[l] is set.
    DequantizeKSuperBlock(b, y + i * kQK, [qh, ql](int c, int half, int l) {
      const int low = half == 0 ? (ql[32 * c + l] & 0xF) : (ql[32 * c + l] >> 4);
      return low + ((qh[l] >> (2 * c + half)) & 1 ? 16 : 0);
    });
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
