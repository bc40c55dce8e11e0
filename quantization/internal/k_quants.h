// Pieces shared by the K-quant codecs (Q4_K, Q5_K): GGML's make_qkx2_quants sub-block search and
// the 6-bit scale/min packing. Internal to quantization/.
#ifndef EDGEQ_QUANTIZATION_INTERNAL_K_QUANTS_H_
#define EDGEQ_QUANTIZATION_INTERNAL_K_QUANTS_H_

#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {

// Parameters of GGML's make_qkx2_quants search for one K-quant type.
struct Qkx2Params {
  int nmax;      // largest quant level (15 for Q4_K, 31 for Q5_K)
  float rmin;    // first step offset (-1 / -0.5)
  float rdelta;  // step (0.1)
  int nstep;     // number of extra steps (20 / 15)
};

// Quantizes the scales and mins of one 256-value super-block (8 sub-blocks of 32) the way
// quantize_row_q4_K_ref / quantize_row_q5_K_ref do: writes d and dmin (fp16 bits), the 12 packed
// scale bytes, and the 256 levels L (0..nmax) requantized with the fp16-rounded scales.
void QuantizeKSuperBlock(const float* x, const Qkx2Params& params, uint16_t* d, uint16_t* dmin,
                         uint8_t scales[12], uint8_t L[256]);

// GGML's get_scale_min_k4 (block_layout.h, shared with the kernels).
using blocks::GetScaleMinK4;

// Dequantizes one Q4_K/Q5_K super-block `b` (fp16 d, fp16 dmin, the packed scales at b + 4) into
// y[0..255] as GGML's dequantize_row_q4_K / _q5_K do: per 64 values, sub-blocks 2c and 2c + 1
// with d1 = d * sc, m1 = dmin * m and y = d1 * level - m1, in GGML's order of operations.
// level(c, half, l) is the level (0..31) of value l (0..31) of sub-block 2c + half.
template <typename Level>
void DequantizeKSuperBlock(const uint8_t* b, float* y, const Level& level) {
  const float d = blocks::Fp16ToFloat(LoadU16(b));
  const float min = blocks::Fp16ToFloat(LoadU16(b + 2));
  const uint8_t* scales = b + 4;
  uint8_t sc, m;
  for (int c = 0; c < 4; ++c) {
    GetScaleMinK4(2 * c, scales, &sc, &m);
    const float d1 = d * sc;
    const float m1 = min * m;
    GetScaleMinK4(2 * c + 1, scales, &sc, &m);
    const float d2 = d * sc;
    const float m2 = min * m;
    for (int l = 0; l < 32; ++l) *y++ = d1 * level(c, 0, l) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * level(c, 1, l) - m2;
  }
}

}  // namespace quantization_internal
}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_INTERNAL_K_QUANTS_H_
