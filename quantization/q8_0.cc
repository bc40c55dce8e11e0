// Q8_0: 32 values in 34 bytes (fp16 scale d, 32 int8 quants); x = q * d.
//
// Matches GGML's quantize_row_q8_0_ref / dequantize_row_q8_0 bit for bit (roundf: half away
// from zero). Where GGML has undefined behaviour (a block whose largest |x| is below about
// 3.7e-37: the f32 scale is subnormal, 1/d is inf and GGML converts inf/NaN to int8), edgeq
// stores all-zero quants; the stored fp16 scale is 0, so the block decodes to zeros either way.
#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK8_0;
constexpr int kBlockBytes = sizeof(blocks::BlockQ8_0);

inline void QuantizeBlock(const float* x, uint8_t* out) {
  StoreU16(out, blocks::QuantizeBlockQ8_0(x, reinterpret_cast<int8_t*>(out + 2)));
}

}  // namespace

void QuantizeRowQ8_0(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ8_0(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const int8_t* qs = reinterpret_cast<const int8_t*>(b + 2);
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK; ++j) yb[j] = static_cast<float>(qs[j]) * d;
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
