// The i8mm GEMM kernels (smmla: a 2x8 by 8x2 int8 product per instruction): one driver over 2
// weight rows x 2 activation rows per step, and its 2x2 tile for the repacked q4_0/q8_0 layouts
// (Q8_0S activations). Include it only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {

// acc + the 2x2 int32 dot products of 16 bytes of weight rows w0 (a0) and w1 (a1) with 16 bytes
// of activation rows x0 (c0) and x1 (c1), in the lane order {w0.x0, w0.x1, w1.x0, w1.x1}. smmla
// takes its operands as 2x8 matrices (row i = 64-bit half i) and adds A B^T to the 2x2 int32
// accumulator (lane 2 i + j += <A row i, B row j>), so the low 8 bytes of both weight vectors form
// one A (vzip1q_s64), the high 8 bytes another (vzip2q_s64), and the activations likewise B.
inline int32x4_t Mmla2x2(int32x4_t acc, int8x16_t a0, int8x16_t a1, int8x16_t c0, int8x16_t c1) {
  const int64x2_t w0 = vreinterpretq_s64_s8(a0), w1 = vreinterpretq_s64_s8(a1);
  const int64x2_t x0 = vreinterpretq_s64_s8(c0), x1 = vreinterpretq_s64_s8(c1);
  acc = vmmlaq_s32(acc, vreinterpretq_s8_s64(vzip1q_s64(w0, w1)),
                   vreinterpretq_s8_s64(vzip1q_s64(x0, x1)));
  return vmmlaq_s32(acc, vreinterpretq_s8_s64(vzip2q_s64(w0, w1)),
                    vreinterpretq_s8_s64(vzip2q_s64(x0, x1)));
}

// {dw0 * dx0, dw0 * dx1, dw1 * dx0, dw1 * dx1}: per-row scales in Mmla2x2's lane order (each lane
// the same single f32 product as the row kernels').
inline float32x4_t OuterScales(float dw0, float dw1, float dx0, float dx1) {
  const float w[4] = {dw0, dw0, dw1, dw1};
  const float x[4] = {dx0, dx1, dx0, dx1};
  return vmulq_f32(vld1q_f32(w), vld1q_f32(x));
}

// ---- The driver ----

// Tile provides: static void Run(const uint8_t* w0, const uint8_t* w1, const uint8_t* x0,
// const uint8_t* x1, int64_t k, float out[4]) writing out = {w0.x0, w0.x1, w1.x0, w1.x1}. An odd
// last weight (activation) row is paired with itself and the duplicate's outputs are not stored.
template <typename Tile>
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
      Tile::Run(w0, w1, x0, x1, p.k, out);
      p.y[i * p.y_stride + j] = out[0];
      if (two_x) p.y[(i + 1) * p.y_stride + j] = out[1];
      if (two_w) {
        p.y[i * p.y_stride + j + 1] = out[2];
        if (two_x) p.y[(i + 1) * p.y_stride + j + 1] = out[3];
      }
    }
  }
}

// ---- Q4_0 / Q8_0: repacked X4 weights (Loader, arm_common.h) x Q8_0S activations ----

// Per 32-value block: 4 smmla give the exact int32 dots, scaled by dw * dx of that block.
template <typename Loader>
struct I8mmX4Tile2x2 {
  static void Run(const uint8_t* w0, const uint8_t* w1, const uint8_t* x0, const uint8_t* x1,
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
      float wa[4], wb[4], xa[4], xb[4];
      vst1q_f32(wa, dwa);
      vst1q_f32(wb, dwb);
      vst1q_f32(xa, vld1q_f32(xd0 + 4 * g));
      vst1q_f32(xb, vld1q_f32(xd1 + 4 * g));
      for (int b = 0; b < 4; ++b) {
        int32x4_t p = vdupq_n_s32(0);
        for (int h = 0; h < 2; ++h) {
          p = Mmla2x2(p, qa[2 * b + h], qb[2 * b + h], vld1q_s8(xq0 + 128 * g + 32 * b + 16 * h),
                      vld1q_s8(xq1 + 128 * g + 32 * b + 16 * h));
        }
        acc = vfmaq_f32(acc, vcvtq_f32_s32(p), OuterScales(wa[b], wb[b], xa[b], xb[b]));
      }
    }
    vst1q_f32(out, acc);
  }
};

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
