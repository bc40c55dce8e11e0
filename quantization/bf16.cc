// BF16: the upper 16 bits of an f32, rounded to nearest even (GGML's ggml_compute_fp32_to_bf16:
// NaN keeps its sign and gets the quiet bit, subnormals are kept, not flushed).
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {

void QuantizeRowBF16(const float* x, uint8_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t u = blocks::FloatBits(x[i]);
    uint16_t h;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      h = static_cast<uint16_t>((u >> 16) | 64);  // NaN: force quiet
    } else {
      h = static_cast<uint16_t>((u + (0x7fffu + ((u >> 16) & 1u))) >> 16);
    }
    StoreU16(out + 2 * i, h);
  }
}

void DequantizeRowBF16(const uint8_t* in, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = blocks::Bf16ToFloat(LoadU16(in + 2 * i));
}

}  // namespace quantization_internal
}  // namespace edgeq
