// IQ4_XS: 256 values in 136 bytes: fp16 d, scales_h (16 bits: the high 2 bits of 8 6-bit
// sub-block scales), scales_l (4 bytes: their low nibbles), 128 bytes of 4-bit indices into
// blocks::kIq4NlValues (IQ4_NL's nibble layout per 32 values); x = d * (ls - 32) * level[q].
//
// The quantizer matches GGML's quantize_row_iq4_xs_ref (= quantize_iq4_xs without an importance
// matrix, a search over 15 candidate scales per 32 values), the dequantizer
// dequantize_row_iq4_xs, bit for bit.
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "quantization/internal/iq4.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK_K;
constexpr int kBlockBytes = sizeof(blocks::BlockIq4Xs);

}  // namespace

void QuantizeRowIq4Xs(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t* b = out + i * kBlockBytes;
    uint16_t d = 0, scales_h = 0;
    QuantizeIq4SuperBlock(kQK, x + i * kQK, 7, &d, b + 8, &scales_h, b + 4);
    StoreU16(b, d);
    StoreU16(b + 2, scales_h);
  }
}

void DequantizeRowIq4Xs(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const uint16_t scales_h = LoadU16(b + 2);
    const uint8_t* scales_l = b + 4;
    const uint8_t* qs = b + 8;
    for (int ib = 0; ib < kQK / 32; ++ib) {
      const int ls = ((scales_l[ib / 2] >> 4 * (ib % 2)) & 0xf) | (((scales_h >> 2 * ib) & 3) << 4);
      const float dl = d * (ls - 32);
      for (int j = 0; j < 16; ++j) {
        y[j] = dl * blocks::kIq4NlValues[qs[j] & 0xf];
        y[j + 16] = dl * blocks::kIq4NlValues[qs[j] >> 4];
      }
      y += 32;
      qs += 16;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
