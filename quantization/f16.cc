// F16: IEEE binary16 per value, rounded to nearest even (GGML's ggml_fp32_to_fp16_row at
// d99724f: subnormals kept, overflow to inf, every NaN becomes the quiet NaN 0x7e00 with its
// sign); decoding is exact.
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {

void QuantizeRowF16(const float* x, uint8_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) StoreU16(out + 2 * i, blocks::GgmlFloatToFp16(x[i]));
}

void DequantizeRowF16(const uint8_t* in, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = blocks::Fp16ToFloat(LoadU16(in + 2 * i));
}

}  // namespace quantization_internal
}  // namespace edgeq
