// Q4_1: 32 values in 20 bytes (fp16 scale d, fp16 min m, 16 bytes of 4-bit quants);
// x = q * d + m.
//
// Matches GGML's quantize_row_q4_1_ref / dequantize_row_q4_1 bit for bit. Where GGML's C code
// converts an out-of-range float to int8 (undefined: the f32 scale is so small that 1/d is inf,
// and (x - min) * inf is inf or NaN), edgeq writes what gcc's x86-64 build writes (quant 0). The
// fp16 scale of such a block is +-0, so it decodes to m either way.
#include <cfloat>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK4_0;
constexpr int kBlockBytes = sizeof(blocks::BlockQ4_1);

void QuantizeBlock(const float* x, uint8_t* out) {
  float min = FLT_MAX;
  float max = -FLT_MAX;
  for (int j = 0; j < kQK; ++j) {
    const float v = x[j];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const float d = (max - min) / ((1 << 4) - 1);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  StoreU16(out, blocks::FloatToFp16(d));
  StoreU16(out + 2, blocks::FloatToFp16(min));
  uint8_t* qs = out + 4;
  for (int j = 0; j < kQK / 2; ++j) {
    const float x0 = (x[j] - min) * id;
    const float x1 = (x[kQK / 2 + j] - min) * id;
    const int q0 = static_cast<int8_t>(TruncToByteLikeGcc(x0 + 0.5f));
    const int q1 = static_cast<int8_t>(TruncToByteLikeGcc(x1 + 0.5f));
    const uint8_t xi0 = static_cast<uint8_t>(q0 < 15 ? q0 : 15);
    const uint8_t xi1 = static_cast<uint8_t>(q1 < 15 ? q1 : 15);
    qs[j] = static_cast<uint8_t>(xi0 | (xi1 << 4));
  }
}

}  // namespace

void QuantizeRowQ4_1(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ4_1(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const float m = blocks::Fp16ToFloat(LoadU16(b + 2));
    const uint8_t* qs = b + 4;
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK / 2; ++j) {
      const int x0 = qs[j] & 0x0f;
      const int x1 = qs[j] >> 4;
      yb[j] = static_cast<float>(x0) * d + m;
      yb[j + kQK / 2] = static_cast<float>(x1) * d + m;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
