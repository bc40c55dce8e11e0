// Pieces shared by the K-quant codecs (Q4_K, Q5_K): GGML's make_qkx2_quants sub-block search and
// the 6-bit scale/min packing. Internal to quantization/.
#ifndef EDGEQ_QUANTIZATION_INTERNAL_K_QUANTS_H_
#define EDGEQ_QUANTIZATION_INTERNAL_K_QUANTS_H_

#include <cstdint>

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

// GGML's get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7).
inline void GetScaleMinK4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

}  // namespace quantization_internal
}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_INTERNAL_K_QUANTS_H_
