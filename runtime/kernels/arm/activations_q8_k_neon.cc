// The NEON Q8_K / Q8_KT row quantizers of the ARM K-quant kernels (activations_neon.h), one
// definition each. Built with GCC's default scheduling (runtime/kernels/BUILD, :arm_common): a few
// instructions per super-block fewer than with -fno-schedule-insns (benchmarks/arm_sim counts).
#include <arm_neon.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

// GGML's quantize_row_q8_K, bit-identical to the portable QuantizeRowQ8_K: per 256 values max =
// the first value of the largest |x| (found with NEON compares), iscale = -127 / max, q =
// min(127, round-half-even(iscale x)) (vcvtnq: GGML's nearest_int for |v| < 2^22), d = 1 / iscale,
// bsums of 16. A block whose largest |x| is not finite goes to the portable code (NaN, Inf).
// kTransposed: the qs in Q8_KT order (each 64 values' 4-byte words transposed).
template <bool kTransposed>
inline void QuantizeRowQ8_KNeonImpl(const float* x, int64_t k, uint8_t* out) {
  auto* y = reinterpret_cast<blocks::BlockQ8_K*>(out);
  for (int64_t i = 0; i < k / blocks::kQK_K; ++i, x += blocks::kQK_K) {
    float32x4_t m = vdupq_n_f32(0.0f);
    for (int j = 0; j < blocks::kQK_K; j += 4) m = vmaxq_f32(m, vabsq_f32(vld1q_f32(x + j)));
    const float amax = vmaxvq_f32(m);
    if (!std::isfinite(amax)) {
      (kTransposed ? QuantizeRowQ8_KT : QuantizeRowQ8_K)(x, blocks::kQK_K,
                                                         reinterpret_cast<uint8_t*>(&y[i]));
      continue;
    }
    if (amax == 0.0f) {
      std::memset(&y[i], 0, sizeof(y[i]));
      continue;
    }
    const float32x4_t am = vdupq_n_f32(amax);
    int j = 0;
    while (vmaxvq_u32(vceqq_f32(vabsq_f32(vld1q_f32(x + j)), am)) == 0) j += 4;
    while (std::fabs(x[j]) != amax) ++j;
    const float iscale = -127.f / x[j];
    int8x16_t q[16];
    for (int g = 0; g < 16; ++g) {
      int32x4_t v[4];
      for (int t = 0; t < 4; ++t) {
        v[t] = vminq_s32(vcvtnq_s32_f32(vmulq_n_f32(vld1q_f32(x + 16 * g + 4 * t), iscale)),
                         vdupq_n_s32(127));
      }
      const int16x8_t h0 = vcombine_s16(vmovn_s32(v[0]), vmovn_s32(v[1]));
      const int16x8_t h1 = vcombine_s16(vmovn_s32(v[2]), vmovn_s32(v[3]));
      q[g] = vcombine_s8(vmovn_s16(h0), vmovn_s16(h1));
      y[i].bsums[g] = vaddlvq_s8(q[g]);
    }
    if (kTransposed) {
      for (int c = 0; c < 4; ++c) TransposeWords4x4(q + 4 * c);
    }
    for (int g = 0; g < 16; ++g) vst1q_s8(y[i].qs + 16 * g, q[g]);
    y[i].d = 1 / iscale;
  }
}

}  // namespace

void QuantizeRowQ8_KNeon(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_KNeonImpl<false>(x, k, out);
}

void QuantizeRowQ8_KTNeon(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_KNeonImpl<true>(x, k, out);
}

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
