// Q4_K: 256 values in 144 bytes: fp16 d, fp16 dmin, 12 bytes of packed 6-bit scales and mins
// for 8 sub-blocks of 32, and 128 bytes of 4-bit quants; x = d * sc * q - dmin * m.
// Bit-exact with GGML's quantize_row_q4_K_ref / dequantize_row_q4_K.
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "quantization/internal/k_quants.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK_K;
constexpr int kBlockBytes = sizeof(blocks::BlockQ4_K);
constexpr Qkx2Params kParams = {15, -1.f, 0.1f, 20};

}  // namespace

void QuantizeRowQ4_K(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  uint8_t L[kQK];
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t* b = out + i * kBlockBytes;
    uint16_t d, dmin;
    QuantizeKSuperBlock(x + i * kQK, kParams, &d, &dmin, b + 4, L);
    StoreU16(b, d);
    StoreU16(b + 2, dmin);
    uint8_t* q = b + 4 + blocks::kKScaleBytes;
    for (int j = 0; j < kQK; j += 64) {
      for (int l = 0; l < 32; ++l) q[l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 4));
      q += 32;
    }
  }
}

void DequantizeRowQ4_K(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const uint8_t* q = b + 4 + blocks::kKScaleBytes;
    // Value l of the 64-value chunk c: low nibble of q[32c + l], then the high nibbles.
    DequantizeKSuperBlock(b, y + i * kQK, [q](int c, int half, int l) {
      return half == 0 ? (q[32 * c + l] & 0xF) : (q[32 * c + l] >> 4);
    });
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
