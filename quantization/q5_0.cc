// Q5_0: 32 values in 22 bytes (fp16 scale d, 32 fifth bits, 16 bytes of low nibbles);
// x = (q - 16) * d.
//
// Matches GGML's quantize_row_q5_0_ref / dequantize_row_q5_0 bit for bit. Where GGML's C code
// converts inf/NaN to int8 (undefined: the largest |x| is so small that 1/d is inf), edgeq writes
// what gcc's x86-64 build writes (quant 0). The fp16 scale of such a block is +-0, so it decodes
// to +-0 either way.
#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK4_0;
constexpr int kBlockBytes = sizeof(blocks::BlockQ5_0);

void QuantizeBlock(const float* x, uint8_t* out) {
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < kQK; ++j) {
    const float v = x[j];
    if (amax < std::fabs(v)) {
      amax = std::fabs(v);
      max = v;
    }
  }
  const float d = max / -16;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  StoreU16(out, blocks::FloatToFp16(d));
  uint8_t* qs = out + 6;
  uint32_t qh = 0;
  for (int j = 0; j < kQK / 2; ++j) {
    const float x0 = x[j] * id;
    const float x1 = x[kQK / 2 + j] * id;
    const int q0 = static_cast<int8_t>(TruncToByteLikeGcc(x0 + 16.5f));
    const int q1 = static_cast<int8_t>(TruncToByteLikeGcc(x1 + 16.5f));
    const uint8_t xi0 = static_cast<uint8_t>(q0 < 31 ? q0 : 31);
    const uint8_t xi1 = static_cast<uint8_t>(q1 < 31 ? q1 : 31);
    qs[j] = static_cast<uint8_t>((xi0 & 0x0f) | ((xi1 & 0x0f) << 4));
    qh |= ((xi0 & 0x10u) >> 4) << (j + 0);
    qh |= ((xi1 & 0x10u) >> 4) << (j + kQK / 2);
  }
  for (int k = 0; k < 4; ++k) out[2 + k] = static_cast<uint8_t>(qh >> (8 * k));
}

}  // namespace

void QuantizeRowQ5_0(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ5_0(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const uint32_t qh = b[2] | (static_cast<uint32_t>(b[3]) << 8) |
                        (static_cast<uint32_t>(b[4]) << 16) | (static_cast<uint32_t>(b[5]) << 24);
    const uint8_t* qs = b + 6;
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK / 2; ++j) {
      const int xh0 = ((qh >> j) << 4) & 0x10;
      const int xh1 = (qh >> (j + 12)) & 0x10;
      const int32_t x0 = ((qs[j] & 0x0f) | xh0) - 16;
      const int32_t x1 = ((qs[j] >> 4) | xh1) - 16;
      yb[j] = static_cast<float>(x0) * d;
      yb[j + kQK / 2] = static_cast<float>(x1) * d;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
