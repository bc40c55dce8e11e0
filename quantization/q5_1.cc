// Q5_1: 32 values in 24 bytes (fp16 scale d, fp16 min m, 32 fifth bits, 16 bytes of low
// nibbles); x = q * d + m.
//
// Matches GGML's quantize_row_q5_1_ref / dequantize_row_q5_1 bit for bit. Where GGML's C code
// converts inf/NaN to uint8 (undefined: the f32 scale is so small that 1/d is inf), edgeq writes
// what gcc's x86-64 build writes (quant 0). The fp16 scale of such a block is +-0, so it decodes
// to m either way.
#include <cfloat>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK4_0;
constexpr int kBlockBytes = sizeof(blocks::BlockQ5_1);

void QuantizeBlock(const float* x, uint8_t* out) {
  float min = FLT_MAX;
  float max = -FLT_MAX;
  for (int j = 0; j < kQK; ++j) {
    const float v = x[j];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const float d = (max - min) / ((1 << 5) - 1);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  StoreU16(out, blocks::FloatToFp16(d));
  StoreU16(out + 2, blocks::FloatToFp16(min));
  uint8_t* qs = out + 8;
  uint32_t qh = 0;
  for (int j = 0; j < kQK / 2; ++j) {
    const float x0 = (x[j] - min) * id;
    const float x1 = (x[kQK / 2 + j] - min) * id;
    const uint8_t xi0 = TruncToByteLikeGcc(x0 + 0.5f);
    const uint8_t xi1 = TruncToByteLikeGcc(x1 + 0.5f);
    qs[j] = static_cast<uint8_t>((xi0 & 0x0f) | ((xi1 & 0x0f) << 4));
    qh |= ((xi0 & 0x10u) >> 4) << (j + 0);
    qh |= ((xi1 & 0x10u) >> 4) << (j + kQK / 2);
  }
  for (int k = 0; k < 4; ++k) out[4 + k] = static_cast<uint8_t>(qh >> (8 * k));
}

}  // namespace

void QuantizeRowQ5_1(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ5_1(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const float m = blocks::Fp16ToFloat(LoadU16(b + 2));
    const uint32_t qh = b[4] | (static_cast<uint32_t>(b[5]) << 8) |
                        (static_cast<uint32_t>(b[6]) << 16) | (static_cast<uint32_t>(b[7]) << 24);
    const uint8_t* qs = b + 8;
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK / 2; ++j) {
      const int xh0 = ((qh >> j) << 4) & 0x10;
      const int xh1 = (qh >> (j + 12)) & 0x10;
      const int x0 = (qs[j] & 0x0f) | xh0;
      const int x1 = (qs[j] >> 4) | xh1;
      yb[j] = static_cast<float>(x0) * d + m;
      yb[j + kQK / 2] = static_cast<float>(x1) * d + m;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
