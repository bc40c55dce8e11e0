// The i8mm q4_0/q8_0 GEMM (smmla: a 2x8 by 8x2 int8 product per instruction), 2 weight rows x 2
// activation rows per step, over a block loader of the repacked layout (arm_common.h). Include it
// only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_

#include <arm_neon.h>

#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {

// out[0..3] = {w0.x0, w0.x1, w1.x0, w1.x1}.
template <typename Loader>
void I8mmTile2x2(const uint8_t* w0, const uint8_t* w1, const uint8_t* x0, const uint8_t* x1,
                 int64_t k, float out[4]) {
  const int64_t nbp = PaddedBlocks32(k);
  const int8_t* xq0 = Q8_0SQs(x0);
  const int8_t* xq1 = Q8_0SQs(x1);
  const float* xd0 = Q8_0SD(x0, nbp);
  const float* xd1 = Q8_0SD(x1, nbp);
  float32x4_t acc = vdupq_n_f32(0.0f);
  for (int64_t g = 0; g < nbp / 4; ++g) {
    int8x16_t qa[8], qb[8];
    Loader::Load(w0, g, qa);
    Loader::Load(w1, g, qb);
    const float32x4_t dwa = LoadScales(w0, nbp, Loader::kQsBytesPerBlock, g);
    const float32x4_t dwb = LoadScales(w1, nbp, Loader::kQsBytesPerBlock, g);
    const float32x4_t dxa = vld1q_f32(xd0 + 4 * g);
    const float32x4_t dxb = vld1q_f32(xd1 + 4 * g);
    float s[4][4];  // s[b] = {dw0*dx0, dw0*dx1, dw1*dx0, dw1*dx1} of block b
    float wa[4], wb[4], xa[4], xb[4];
    vst1q_f32(wa, dwa);
    vst1q_f32(wb, dwb);
    vst1q_f32(xa, dxa);
    vst1q_f32(xb, dxb);
    for (int b = 0; b < 4; ++b) {
      s[b][0] = wa[b] * xa[b];
      s[b][1] = wa[b] * xb[b];
      s[b][2] = wb[b] * xa[b];
      s[b][3] = wb[b] * xb[b];
    }
    for (int b = 0; b < 4; ++b) {
      int32x4_t p = vdupq_n_s32(0);
      for (int h = 0; h < 2; ++h) {
        const int8x16_t xv0 = vld1q_s8(xq0 + 128 * g + 32 * b + 16 * h);
        const int8x16_t xv1 = vld1q_s8(xq1 + 128 * g + 32 * b + 16 * h);
        const int64x2_t a0 = vreinterpretq_s64_s8(qa[2 * b + h]);
        const int64x2_t a1 = vreinterpretq_s64_s8(qb[2 * b + h]);
        const int64x2_t c0 = vreinterpretq_s64_s8(xv0);
        const int64x2_t c1 = vreinterpretq_s64_s8(xv1);
        p = vmmlaq_s32(p, vreinterpretq_s8_s64(vzip1q_s64(a0, a1)),
                       vreinterpretq_s8_s64(vzip1q_s64(c0, c1)));
        p = vmmlaq_s32(p, vreinterpretq_s8_s64(vzip2q_s64(a0, a1)),
                       vreinterpretq_s8_s64(vzip2q_s64(c0, c1)));
      }
      acc = vfmaq_f32(acc, vcvtq_f32_s32(p), vld1q_f32(s[b]));
    }
  }
  vst1q_f32(out, acc);
}

template <typename Loader>
void I8mmGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; j += 2) {
    const bool two_w = j + 1 < j1;
    const uint8_t* w0 = p.w + j * p.w_row_bytes;
    const uint8_t* w1 = two_w ? w0 + p.w_row_bytes : w0;
    for (int64_t i = 0; i < p.m; i += 2) {
      const bool two_x = i + 1 < p.m;
      const uint8_t* x0 = p.xq + i * p.xq_row_bytes;
      const uint8_t* x1 = two_x ? x0 + p.xq_row_bytes : x0;
      float out[4];
      I8mmTile2x2<Loader>(w0, w1, x0, x1, p.k, out);
      p.y[i * p.y_stride + j] = out[0];
      if (two_x) p.y[(i + 1) * p.y_stride + j] = out[1];
      if (two_w) {
        p.y[i * p.y_stride + j + 1] = out[2];
        if (two_x) p.y[(i + 1) * p.y_stride + j + 1] = out[3];
      }
    }
  }
}

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
