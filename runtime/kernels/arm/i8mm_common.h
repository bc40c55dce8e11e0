// The i8mm GEMM kernels (smmla: a 2x8 by 8x2 int8 product per instruction): one driver over 2
// weight rows x 2 activation rows per step, and its 2x2 tiles for the repacked q4_0/q8_0 layouts
// (Q8_0S activations) and for Q4_K, Q5_K, Q6_K in the GGML layout (Q8_K activations). Include it
// only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

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

// {v0, v0, v1, v1}: a weight row's integer sub-block scale in Mmla2x2's lane order.
inline int32x4_t RowPairLanes(int32_t v0, int32_t v1) {
  return vcombine_s32(vdup_n_s32(v0), vdup_n_s32(v1));
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

// ---- K-quants: GGML-layout weights x Q8_K activations ----

// {mn0 . s0, mn0 . s1, mn1 . s0, mn1 . s1}: the mins term of a Q4_K/Q5_K super-block for two
// weight rows (mn0, mn1: the 8 sub-block mins) and two activation rows (s0, s1: the 8 sums of 32
// activations). |s| <= 32 * 128 fits int16, the products and sums fit int32.
inline int32x4_t MinsDot2x2(const uint8_t mn0[8], const uint8_t mn1[8], int16x8_t s0,
                            int16x8_t s1) {
  const int16x8_t m0 = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(mn0)));
  const int16x8_t m1 = vreinterpretq_s16_u16(vmovl_u8(vld1_u8(mn1)));
  // Four int32x4 of partial products, reduced pairwise to one lane each.
  const auto dot = [](int16x8_t a, int16x8_t b) {
    return vmlal_high_s16(vmull_s16(vget_low_s16(a), vget_low_s16(b)), a, b);
  };
  return vpaddq_s32(vpaddq_s32(dot(m0, s0), dot(m0, s1)), vpaddq_s32(dot(m1, s0), dot(m1, s1)));
}

// The 8 sums of 32 activations of a Q8_K block (pairs of its 16-value bsums).
inline int16x8_t Sums32(const blocks::BlockQ8_K& x) {
  return vpaddq_s16(vld1q_s16(x.bsums), vld1q_s16(x.bsums + 8));
}

// Q4_K/Q5_K (L: Q4_KLevels or Q5_KLevels, arm_common.h) x Q8_K, GGML's math per output: per
// super-block sum_s sc[s] * (levels_s . x_s) times d = fp16(w.d) * x.d, minus sum_s mn[s] * (sum of
// x_s) times dmin = fp16(w.dmin) * x.d, with s over the eight 32-value sub-blocks. Each weight
// row's levels are decoded once per super-block and shared by both activation rows; the levels
// (< 32) fit smmla's signed int8. Exact int32: |levels . x| <= 32 * 31 * 128 per sub-block, times
// a scale <= 63, over 8 sub-blocks is < 2^26.
template <typename L>
struct I8mmK45Tile2x2 {
  static void Run(const uint8_t* w0, const uint8_t* w1, const uint8_t* x0, const uint8_t* x1,
                  int64_t k, float out[4]) {
    using Block = typename L::Block;
    const auto* bw0 = reinterpret_cast<const Block*>(w0);
    const auto* bw1 = reinterpret_cast<const Block*>(w1);
    const auto* bx0 = reinterpret_cast<const blocks::BlockQ8_K*>(x0);
    const auto* bx1 = reinterpret_cast<const blocks::BlockQ8_K*>(x1);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const Block& wa = bw0[b];
      const Block& wb = bw1[b];
      const blocks::BlockQ8_K& xa = bx0[b];
      const blocks::BlockQ8_K& xb = bx1[b];
      uint8_t sca[8], mna[8], scb[8], mnb[8];
      blocks::UnpackKScales(wa.scales, sca, mna);
      blocks::UnpackKScales(wb.scales, scb, mnb);
      L la(wa), lb(wb);
      int32x4_t sumi = vdupq_n_s32(0);
      for (int j = 0; j < 4; ++j) {  // values 64 j .. 64 j + 63: sub-blocks 2 j, 2 j + 1
        int8x16_t qa[4], qb[4];
        K45Levels64(wa, j, &la, qa);
        K45Levels64(wb, j, &lb, qb);
        const int8_t* ya = xa.qs + 64 * j;
        const int8_t* yb = xb.qs + 64 * j;
        for (int h = 0; h < 2; ++h) {
          int32x4_t p = vdupq_n_s32(0);
          for (int t = 0; t < 2; ++t) {
            const int o = 32 * h + 16 * t;
            p = Mmla2x2(p, qa[2 * h + t], qb[2 * h + t], vld1q_s8(ya + o), vld1q_s8(yb + o));
          }
          sumi = vmlaq_s32(sumi, p, RowPairLanes(sca[2 * j + h], scb[2 * j + h]));
        }
      }
      const int32x4_t summ = MinsDot2x2(mna, mnb, Sums32(xa), Sums32(xb));
      const float32x4_t d =
          OuterScales(blocks::Fp16ToFloat(wa.d), blocks::Fp16ToFloat(wb.d), xa.d, xb.d);
      const float32x4_t dmin =
          OuterScales(blocks::Fp16ToFloat(wa.dmin), blocks::Fp16ToFloat(wb.dmin), xa.d, xb.d);
      acc = vfmaq_f32(acc, vcvtq_f32_s32(sumi), d);
      acc = vfmsq_f32(acc, vcvtq_f32_s32(summ), dmin);
    }
    vst1q_f32(out, acc);
  }
};

// Q6_K x Q8_K, GGML's math per output: per super-block sum_g sc[g] * (values_g . x_g) times d =
// fp16(w.d) * x.d, with g over the sixteen 16-value groups, sc[g] the group's int8 scale and the
// values signed (level - 32, in -32..31). Each weight row's values are decoded once per super-block
// and shared by both activation rows. Exact int32: |values . x| <= 16 * 32 * 128 per group, times
// |sc| <= 128, over 16 groups is <= 2^27.
struct I8mmQ6KTile2x2 {
  static void Run(const uint8_t* w0, const uint8_t* w1, const uint8_t* x0, const uint8_t* x1,
                  int64_t k, float out[4]) {
    const auto* bw0 = reinterpret_cast<const blocks::BlockQ6_K*>(w0);
    const auto* bw1 = reinterpret_cast<const blocks::BlockQ6_K*>(w1);
    const auto* bx0 = reinterpret_cast<const blocks::BlockQ8_K*>(x0);
    const auto* bx1 = reinterpret_cast<const blocks::BlockQ8_K*>(x1);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const blocks::BlockQ6_K& wa = bw0[b];
      const blocks::BlockQ6_K& wb = bw1[b];
      const blocks::BlockQ8_K& xa = bx0[b];
      const blocks::BlockQ8_K& xb = bx1[b];
      int32x4_t sumi = vdupq_n_s32(0);
      for (int n = 0; n < 2; ++n) {    // values 128 n .. 128 n + 127
        for (int h = 0; h < 2; ++h) {  // 16-value halves of each 32
          int8x16_t qa[4], qb[4];
          Q6KValues64(wa, n, h, qa);
          Q6KValues64(wb, n, h, qb);
          for (int t = 0; t < 4; ++t) {  // values 128 n + 32 t + 16 h .. + 15: group 8 n + 2 t + h
            const int o = 128 * n + 32 * t + 16 * h;
            const int g = 8 * n + 2 * t + h;
            const int32x4_t p =
                Mmla2x2(vdupq_n_s32(0), qa[t], qb[t], vld1q_s8(xa.qs + o), vld1q_s8(xb.qs + o));
            sumi = vmlaq_s32(sumi, p, RowPairLanes(wa.scales[g], wb.scales[g]));
          }
        }
      }
      const float32x4_t d =
          OuterScales(blocks::Fp16ToFloat(wa.d), blocks::Fp16ToFloat(wb.d), xa.d, xb.d);
      acc = vfmaq_f32(acc, vcvtq_f32_s32(sumi), d);
    }
    vst1q_f32(out, acc);
  }
};

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
