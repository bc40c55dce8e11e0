// The i8mm K-quant GEMM tiles (smmla: a 2x8 by 8x2 int8 product per instruction; Q4_K, Q5_K,
// Q6_K in the GGML layout x Q8_K activations: 2 weight rows decoded once per 8 activation rows)
// with their driver I8mmWideGemm. (The R4 types: R4I8mm, r4_i8mm.h.) Include it only from files
// compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_

#include <arm_neon.h>

#include <cstdint>
#include <type_traits>

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

// ---- K-quants: GGML-layout weights x Q8_K activations ----

// {mn0 . s0, mn0 . s1, mn1 . s0, mn1 . s1}: the mins term of a Q4_K/Q5_K super-block for two
// weight rows (mn0, mn1: the 8 sub-block mins) and two activation rows (s0, s1: the 8 sums of 32
// activations). |s| <= 32 * 128 fits int16, the products and sums fit int32.
inline int32x4_t MinsDot2x2(uint8x8_t mn0, uint8x8_t mn1, int16x8_t s0, int16x8_t s1) {
  const int16x8_t m0 = vreinterpretq_s16_u16(vmovl_u8(mn0));
  const int16x8_t m1 = vreinterpretq_s16_u16(vmovl_u8(mn1));
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

// {a[s], a[s], b[s], b[s]} for s = 2 j, 2 j + 1 (out[0], out[1]): two weight rows' sub-block scales
// in the lane order of an smmla result (rows a, b x two activation rows).
inline void RowPairScales(uint8x8_t a, uint8x8_t b, int j, int32x4_t out[2]) {
  const uint16x8_t ab = vreinterpretq_u16_u8(
      vcombine_u8(vzip1_u8(a, a), vzip2_u8(a, a)));  // a0 a0 a1 a1 ... a7 a7 (as 16-bit pairs)
  const uint16x8_t bb = vreinterpretq_u16_u8(vcombine_u8(vzip1_u8(b, b), vzip2_u8(b, b)));
  // Lanes 2 s, 2 s + 1 of the zipped 16-bit pairs: {a_s a_s, b_s b_s}.
  const uint16x8_t z = j < 2 ? vzip1q_u16(ab, bb) : vzip2q_u16(ab, bb);  // s = 0..3 or 4..7
  const uint8x16_t zb = vreinterpretq_u8_u16(z);
  const int q = (j % 2) * 8;  // sub-blocks 2 j, 2 j + 1 within that half
  const uint8x8_t h = q == 0 ? vget_low_u8(zb) : vget_high_u8(zb);
  const uint16x8_t w = vmovl_u8(h);
  out[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(w)));
  out[1] = vreinterpretq_s32_u32(vmovl_high_u16(w));
}

// The asm text below is laid out by hand, an instruction group per line.
// clang-format off
#define EDGEQ_I8_ZIP(k, z, c) "zip" #k " %[" #z "].2d, %" #c "[ya].2d, %" #c "[yb].2d\n\t"
#define EDGEQ_I8_MMLA(s, a, z) "smmla %[" #s "].4s, %[" #a "].16b, %[" #z "].16b\n\t"
#define EDGEQ_I8_LOAD(y) "ld1 {%S[" #y "].16b - %V[" #y "].16b}, [%[x]], %[xrb]\n\t"
// Pair p's zips and first six smmla, each of its rows loaded again (for pair p + 1 when `next`)
// as soon as the zips have read it.
#define EDGEQ_I8_PAIR_HEAD(next)                                        \
  "movi %[s0].4s, #0\n\t"                                               \
  "movi %[s1].4s, #0\n\t"                                               \
  EDGEQ_I8_ZIP(1, z0, S) EDGEQ_I8_ZIP(1, z1, U)                         \
  EDGEQ_I8_ZIP(2, z2, S) EDGEQ_I8_ZIP(2, z3, U)                         \
  EDGEQ_I8_MMLA(s0, a0, z0) EDGEQ_I8_MMLA(s1, a4, z1)                   \
  EDGEQ_I8_ZIP(1, z0, T) EDGEQ_I8_ZIP(1, z1, V)                         \
  EDGEQ_I8_MMLA(s0, a1, z2) EDGEQ_I8_MMLA(s1, a5, z3)                   \
  EDGEQ_I8_ZIP(2, z2, T) EDGEQ_I8_ZIP(2, z3, V)                         \
  EDGEQ_I8_MMLA(s0, a2, z0) next EDGEQ_I8_MMLA(s1, a6, z1)
#define EDGEQ_I8_PAIR_TAIL(i)                                           \
  EDGEQ_I8_MMLA(s0, a3, z2) EDGEQ_I8_MMLA(s1, a7, z3)                   \
  "mla %[" #i "].4s, %[s0].4s, %[scl0].4s\n\t"                          \
  "mla %[" #i "].4s, %[s1].4s, %[scl1].4s\n\t"
#define EDGEQ_I8_NEXT EDGEQ_I8_LOAD(ya) EDGEQ_I8_LOAD(yb)
// clang-format on

// The 64-value step of I8mmK45Wide's 8-row tile (four pairs of activation rows, pair p at
// x + 2 p xrb): isum[p] += the two sub-blocks' smmla sums times their scales, as the C++ loop
// computes them (the same instructions: two ld1 of 64 bytes (post-incremented by xrb), eight zips,
// eight smmla in two chains from zero and two mla per pair; the same int32 sums). Scheduled for
// in-order cores in one asm statement: each pair's two chains interleaved, the next pair's loads
// as soon as the zips have read this pair's rows. Modelled by llvm-mca-19 per super-block loop
// of the q4_k tile (benchmarks/arm_sim/README.md): Cortex-A510 1059 -> 951 cycles, Cortex-X2
// 276 -> 288, Neoverse V2 138 -> 144.
inline void I8mmK45Step8(const int8x16_t a[8], const int32x4_t scl[2], const int8_t* x, size_t xrb,
                         int32x4_t isum[4]) {
  int8x16x4_t ya, yb;
  int32x4_t s0, s1;
  int8x16_t z0, z1, z2, z3;
  // clang-format off
  asm(EDGEQ_I8_NEXT EDGEQ_I8_PAIR_HEAD(EDGEQ_I8_NEXT) EDGEQ_I8_PAIR_TAIL(i0)
      EDGEQ_I8_PAIR_HEAD(EDGEQ_I8_NEXT) EDGEQ_I8_PAIR_TAIL(i1)
      EDGEQ_I8_PAIR_HEAD(EDGEQ_I8_NEXT) EDGEQ_I8_PAIR_TAIL(i2)
      EDGEQ_I8_PAIR_HEAD() EDGEQ_I8_PAIR_TAIL(i3)
      // clang-format on
      : [ya] "=&w"(ya), [yb] "=&w"(yb), [s0] "=&w"(s0), [s1] "=&w"(s1), [z0] "=&w"(z0),
        [z1] "=&w"(z1), [z2] "=&w"(z2), [z3] "=&w"(z3), [i0] "+w"(isum[0]), [i1] "+w"(isum[1]),
        [i2] "+w"(isum[2]), [i3] "+w"(isum[3]), [x] "+r"(x)
      : [a0] "w"(a[0]), [a1] "w"(a[1]), [a2] "w"(a[2]), [a3] "w"(a[3]), [a4] "w"(a[4]),
        [a5] "w"(a[5]), [a6] "w"(a[6]), [a7] "w"(a[7]), [scl0] "w"(scl[0]), [scl1] "w"(scl[1]),
        [xrb] "r"(xrb)
      : "memory");
}
#undef EDGEQ_I8_ZIP
#undef EDGEQ_I8_MMLA
#undef EDGEQ_I8_LOAD
#undef EDGEQ_I8_PAIR_HEAD
#undef EDGEQ_I8_PAIR_TAIL
#undef EDGEQ_I8_NEXT

// Q4_K/Q5_K GEMM tile: two weight rows x M activation rows (M even, in pairs). Per super-block
// the two rows' levels are decoded and zipped into smmla operands once for all pairs; per pair and
// 64 values: two 64-byte loads, eight zips, eight smmla, two multiply-adds by the sub-block
// scales. Same math and exactness as the row kernels (K45Tile, arm_common.h).
template <typename L>
struct I8mmK45Wide {
  template <int M>
  static void Tile(const uint8_t* w0, const uint8_t* w1, const uint8_t* x, size_t xrb, int64_t k,
                   float32x4_t out[M / 2]) {
    using Block = typename L::Block;
    constexpr int P = M / 2;
    const auto* bwa = reinterpret_cast<const Block*>(w0);
    const auto* bwb = reinterpret_cast<const Block*>(w1);
    float32x4_t acc[P];
    for (int p = 0; p < P; ++p) acc[p] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const Block& wa = bwa[b];
      const Block& wb = bwb[b];
      uint8x8_t sca, mna, scb, mnb;
      KScales(wa.scales, &sca, &mna);
      KScales(wb.scales, &scb, &mnb);
      L la(wa), lb(wb);
      int32x4_t isum[P];
      for (int p = 0; p < P; ++p) isum[p] = vdupq_n_s32(0);
      for (int j = 0; j < 4; ++j) {
        int8x16_t qa[4], qb[4];
        K45Levels64(wa, j, &la, qa);
        K45Levels64(wb, j, &lb, qb);
        int8x16_t a[8];  // 8-value chunks u = 0..7 of the 64: rows a, b
        for (int t = 0; t < 4; ++t) {
          const int64x2_t va = vreinterpretq_s64_s8(qa[t]), vb = vreinterpretq_s64_s8(qb[t]);
          a[2 * t] = vreinterpretq_s8_s64(vzip1q_s64(va, vb));
          a[2 * t + 1] = vreinterpretq_s8_s64(vzip2q_s64(va, vb));
        }
        int32x4_t scl[2];
        RowPairScales(sca, scb, j, scl);
        if constexpr (M == 8) {  // scheduled for in-order cores
          I8mmK45Step8(a, scl, reinterpret_cast<const blocks::BlockQ8_K*>(x)[b].qs + 64 * j, xrb,
                       isum);
          continue;
        }
        for (int p = 0; p < P; ++p) {
          const auto& xa = reinterpret_cast<const blocks::BlockQ8_K*>(x + 2 * p * xrb)[b];
          const auto& xb = reinterpret_cast<const blocks::BlockQ8_K*>(x + (2 * p + 1) * xrb)[b];
          const int8x16x4_t ya = vld1q_s8_x4(xa.qs + 64 * j), yb = vld1q_s8_x4(xb.qs + 64 * j);
          int32x4_t s2[2];
          for (int h = 0; h < 2; ++h) {  // sub-block 2 j + h: chunks 4 h .. 4 h + 3
            int32x4_t s = vdupq_n_s32(0);
            for (int t = 0; t < 2; ++t) {
              const int64x2_t ca = vreinterpretq_s64_s8(ya.val[2 * h + t]);
              const int64x2_t cb = vreinterpretq_s64_s8(yb.val[2 * h + t]);
              s = vmmlaq_s32(s, a[4 * h + 2 * t], vreinterpretq_s8_s64(vzip1q_s64(ca, cb)));
              s = vmmlaq_s32(s, a[4 * h + 2 * t + 1], vreinterpretq_s8_s64(vzip2q_s64(ca, cb)));
            }
            s2[h] = s;
          }
          isum[p] = vmlaq_s32(isum[p], s2[0], scl[0]);
          isum[p] = vmlaq_s32(isum[p], s2[1], scl[1]);
        }
      }
      const float32x4_t dda = Fp16x4(&wa.d), ddb = Fp16x4(&wb.d);  // lanes d, dmin
      // {da, da, db, db} and {dmina, dmina, dminb, dminb}.
      const float32x4_t d2 = vcombine_f32(vdup_laneq_f32(dda, 0), vdup_laneq_f32(ddb, 0));
      const float32x4_t m2 = vcombine_f32(vdup_laneq_f32(dda, 1), vdup_laneq_f32(ddb, 1));
      for (int p = 0; p < P; ++p) {
        const auto& xa = reinterpret_cast<const blocks::BlockQ8_K*>(x + 2 * p * xrb)[b];
        const auto& xb = reinterpret_cast<const blocks::BlockQ8_K*>(x + (2 * p + 1) * xrb)[b];
        const int32x4_t summ = MinsDot2x2(mna, mnb, Sums32(xa), Sums32(xb));
        float32x2_t dx = vld1_dup_f32(&xa.d);
        dx = vld1_lane_f32(&xb.d, dx, 1);
        const float32x4_t dxx = vcombine_f32(dx, dx);  // {xa, xb, xa, xb}
        acc[p] = vfmaq_f32(acc[p], vcvtq_f32_s32(isum[p]), vmulq_f32(d2, dxx));
        acc[p] = vfmsq_f32(acc[p], vcvtq_f32_s32(summ), vmulq_f32(m2, dxx));
      }
    }
    for (int p = 0; p < P; ++p) out[p] = acc[p];
  }
};

// Q6_K GEMM tile: two weight rows x M activation rows (M even, in pairs). Per 64 values the two
// rows' values are decoded and zipped into smmla operands once for all pairs; per pair: two 64-byte
// loads, eight zips, eight smmla, four multiply-adds by the group scales. Same math and exactness
// as Q6KTile (arm_common.h).
struct I8mmQ6KWide {
  template <int M>
  static void Tile(const uint8_t* w0, const uint8_t* w1, const uint8_t* x, size_t xrb, int64_t k,
                   float32x4_t out[M / 2]) {
    constexpr int P = M / 2;
    const auto* bwa = reinterpret_cast<const blocks::BlockQ6_K*>(w0);
    const auto* bwb = reinterpret_cast<const blocks::BlockQ6_K*>(w1);
    float32x4_t acc[P];
    for (int p = 0; p < P; ++p) acc[p] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const blocks::BlockQ6_K& wa = bwa[b];
      const blocks::BlockQ6_K& wb = bwb[b];
      const int8x16_t sa = vld1q_s8(wa.scales), sb = vld1q_s8(wb.scales);
      int32x4_t isum[P];
      for (int p = 0; p < P; ++p) isum[p] = vdupq_n_s32(0);
      for (int n = 0; n < 2; ++n) {
        // {a_g a_g b_g b_g} bytes for the 8 groups g = 8 n .. 8 n + 7.
        const int16x8_t aa = vreinterpretq_s16_s8(n == 0 ? vzip1q_s8(sa, sa) : vzip2q_s8(sa, sa));
        const int16x8_t bb = vreinterpretq_s16_s8(n == 0 ? vzip1q_s8(sb, sb) : vzip2q_s8(sb, sb));
        for (int hh = 0; hh < 2; ++hh) {
          const int8x16_t z =
              vreinterpretq_s8_s16(hh == 0 ? vzip1q_s16(aa, bb) : vzip2q_s16(aa, bb));
          const int16x8_t z0 = vmovl_s8(vget_low_s8(z)), z1 = vmovl_high_s8(z);
          const int32x4_t scl[4] = {vmovl_s16(vget_low_s16(z0)), vmovl_high_s16(z0),
                                    vmovl_s16(vget_low_s16(z1)), vmovl_high_s16(z1)};
          int8x16_t qa[4], qb[4], a[8];
          Q6KValues64Times4(wa, n, hh, qa);
          Q6KValues64Times4(wb, n, hh, qb);
          for (int u = 0; u < 4; ++u) {
            const int64x2_t va = vreinterpretq_s64_s8(qa[u]), vb = vreinterpretq_s64_s8(qb[u]);
            a[2 * u] = vreinterpretq_s8_s64(vzip1q_s64(va, vb));
            a[2 * u + 1] = vreinterpretq_s8_s64(vzip2q_s64(va, vb));
          }
          for (int p = 0; p < P; ++p) {
            const auto& xa = reinterpret_cast<const blocks::BlockQ8_K*>(x + 2 * p * xrb)[b];
            const auto& xb = reinterpret_cast<const blocks::BlockQ8_K*>(x + (2 * p + 1) * xrb)[b];
            const int o = 128 * n + 64 * hh;
            const int8x16x4_t ya = vld1q_s8_x4(xa.qs + o), yb = vld1q_s8_x4(xb.qs + o);
            for (int u = 0; u < 4; ++u) {
              const int64x2_t ca = vreinterpretq_s64_s8(ya.val[u]);
              const int64x2_t cb = vreinterpretq_s64_s8(yb.val[u]);
              int32x4_t s =
                  vmmlaq_s32(vdupq_n_s32(0), a[2 * u], vreinterpretq_s8_s64(vzip1q_s64(ca, cb)));
              s = vmmlaq_s32(s, a[2 * u + 1], vreinterpretq_s8_s64(vzip2q_s64(ca, cb)));
              isum[p] = vmlaq_s32(isum[p], s, scl[u]);
            }
          }
        }
      }
      const float32x4_t da = vcvt_f32_f16(vreinterpret_f16_u16(vld1_dup_u16(&wa.d)));
      const float32x4_t db = vcvt_f32_f16(vreinterpret_f16_u16(vld1_dup_u16(&wb.d)));
      // {da da db db} / 4 (the values are 4 x (level - 32)).
      const float32x4_t d2 = vmulq_n_f32(vcombine_f32(vget_low_f32(da), vget_low_f32(db)), 0.25f);
      for (int p = 0; p < P; ++p) {
        const auto& xa = reinterpret_cast<const blocks::BlockQ8_K*>(x + 2 * p * xrb)[b];
        const auto& xb = reinterpret_cast<const blocks::BlockQ8_K*>(x + (2 * p + 1) * xrb)[b];
        float32x2_t dx = vld1_dup_f32(&xa.d);
        dx = vld1_lane_f32(&xb.d, dx, 1);
        acc[p] = vfmaq_f32(acc[p], vcvtq_f32_s32(isum[p]), vmulq_f32(d2, vcombine_f32(dx, dx)));
      }
    }
    for (int p = 0; p < P; ++p) out[p] = acc[p];
  }
};

// The driver of a two-row wide tile T (Tile<M>: out[p] = {w0.x2p, w0.x2p+1, w1.x2p, w1.x2p+1})
// for pairs of weight rows; activation rows in tiles of 8, then 4 and 2; an odd last weight or
// activation row goes to the dotprod row kernel Row (K45Tile/Q6KTile, arm_common.h).
template <typename T, typename Row>
void I8mmWideGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  int64_t j = j0;
  for (; j + 2 <= j1; j += 2) {
    const uint8_t* w0 = p.w + j * p.w_row_bytes;
    const uint8_t* w1 = w0 + p.w_row_bytes;
    int64_t i = 0;
    auto run = [&](auto tag) {
      constexpr int M = decltype(tag)::value;
      float32x4_t out[M / 2];
      T::template Tile<M>(w0, w1, p.xq + i * p.xq_row_bytes, p.xq_row_bytes, p.k, out);
      for (int q = 0; q < M / 2; ++q) {
        float v[4];
        vst1q_f32(v, out[q]);
        float* y0 = p.y + (i + 2 * q) * p.y_stride + j;
        float* y1 = y0 + p.y_stride;
        y0[0] = v[0];
        y1[0] = v[1];
        y0[1] = v[2];
        y1[1] = v[3];
      }
      i += M;
    };
    while (i + 8 <= p.m) run(std::integral_constant<int, 8>());
    if (i + 4 <= p.m) run(std::integral_constant<int, 4>());
    if (i + 2 <= p.m) run(std::integral_constant<int, 2>());
    for (; i < p.m; ++i) {
      for (int r = 0; r < 2; ++r)
        Row::template Tile<1>(w0 + r * p.w_row_bytes, p.xq + i * p.xq_row_bytes, 0, p.k,
                              p.y + i * p.y_stride + j + r, 0);
    }
  }
  if (j < j1) {
    for (int64_t i = 0; i < p.m; ++i)
      Row::template Tile<1>(p.w + j * p.w_row_bytes, p.xq + i * p.xq_row_bytes, 0, p.k,
                            p.y + i * p.y_stride + j, 0);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_I8MM_COMMON_H_
