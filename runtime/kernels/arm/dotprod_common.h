// Pieces of the dotprod kernels: the q4_0/q8_0 block dot and the Q4_K/Q5_K row kernel (include
// it only from files compiled with +dotprod).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/k_scales.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {

// sdot: 4 int8 products per int32 lane (include only from files compiled with +dotprod).
struct DotprodDot {
  static inline int32x4_t Block(int8x16_t q0, int8x16_t q1, int8x16_t x0, int8x16_t x1) {
    return vdotq_s32(vdotq_s32(vdupq_n_s32(0), q0, x0), q1, x1);
  }
};

// Q4_K/Q5_K x Q8_K with dotprod: per 32-value sub-block two sdot over the levels give exact int32
// lanes, multiplied by the sub-block's 6-bit scale; the mins use the activation's 16-value sums
// (bsums), as in GGML. L (the encoding's level decoder) provides: using Block; explicit L(const
// Block&); void AddHighBits(uint8x16_t* l0, uint8x16_t* l1, uint8x16_t* h0, uint8x16_t* h1)
// adding the high bits of the next 64 levels (called once per 64 values, in order).
template <typename L>
struct K45Dotprod {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    float32x4_t acc[R];
    float accm[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = vdupq_n_f32(0.0f);
      accm[r] = 0.0f;
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const typename L::Block*>(w + r * wrb)[b];
        uint8_t sc[8], mn[8];
        UnpackKScales(bw.scales, sc, mn);
        int32_t summ = 0;
        for (int j = 0; j < 16; ++j) summ += bx[b].bsums[j] * mn[j / 2];
        int32x4_t sumi = vdupq_n_s32(0);
        L levels(bw);
        for (int j = 0; j < 4; ++j) {
          const uint8x16_t q0 = vld1q_u8(bw.qs + 32 * j), q1 = vld1q_u8(bw.qs + 32 * j + 16);
          uint8x16_t l0 = vandq_u8(q0, m4), l1 = vandq_u8(q1, m4);
          uint8x16_t h0 = vshrq_n_u8(q0, 4), h1 = vshrq_n_u8(q1, 4);
          levels.AddHighBits(&l0, &l1, &h0, &h1);
          const int8_t* y = bx[b].qs + 64 * j;
          int32x4_t p0 = vdotq_s32(vdupq_n_s32(0), vreinterpretq_s8_u8(l0), vld1q_s8(y));
          p0 = vdotq_s32(p0, vreinterpretq_s8_u8(l1), vld1q_s8(y + 16));
          int32x4_t p1 = vdotq_s32(vdupq_n_s32(0), vreinterpretq_s8_u8(h0), vld1q_s8(y + 32));
          p1 = vdotq_s32(p1, vreinterpretq_s8_u8(h1), vld1q_s8(y + 48));
          sumi = vmlaq_n_s32(sumi, p0, sc[2 * j]);
          sumi = vmlaq_n_s32(sumi, p1, sc[2 * j + 1]);
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        const float dmin = blocks::Fp16ToFloat(bw.dmin) * bx[b].d;
        acc[r] = vfmaq_n_f32(acc[r], vcvtq_f32_s32(sumi), d);
        accm[r] += dmin * summ;
      }
    }
    for (int r = 0; r < R; ++r) out[r] = vaddvq_f32(acc[r]) - accm[r];
  }
};

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_
