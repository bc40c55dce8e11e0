// Q4_K x Q8_K GEMM on i8mm CPUs over the Q4_KR4 layout (repack_r4.h; one repacked copy, shared
// with the dotprod GEMV that i8mm CPUs select for m = 1): smmla tiles of four weight rows x up to
// eight activation rows (KR4I8mmGemm<Q4KR4I8mm>, k_r4_i8mm.h). smmla multiplies a 2x8 int8 matrix
// by another's transpose into a 2x2 int32 tile: twice the multiply-adds of an sdot, where the
// dotprod tile (Q4KR4DotprodTile, q4_k_r4.h) runs sdot by element. Bit-identical to that tile: the
// same int32 sums per sub-block (int32 addition is exact in any order), scaled by the same int32
// scales, and the same float operations per super-block in the same order
// (benchmarks/arm_sim/README.md, 2026-11-27 k_i8mm).
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/k_r4_i8mm.h"
#include "runtime/kernels/arm/q4_k_r4.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

// The smmla operands of one 32-value sub-block of a Q4_KR4 block (w: its 64 bytes; word c of the
// four rows in bytes 16 c ..): z[2 h + q] = weight rows {2 q, 2 q + 1} x values 8 h .. 8 h + 7
// (row 2 q in bytes 0-7). Words c and c + 1 of a row are values 4 c .. 4 c + 7 of its low nibbles
// and 16 + 4 c .. of its high ones, so the stored words are zipped once (4 zips), then split.
inline void Q4KR4I8mmOperands(const uint8_t* w, uint8x16_t m4, int8x16_t z[8]) {
  const uint32x4x4_t r = vld1q_u32_x4(reinterpret_cast<const uint32_t*>(w));
  const uint8x16_t a01 = vreinterpretq_u8_u32(vzip1q_u32(r.val[0], r.val[1]));  // rows 0, 1
  const uint8x16_t a23 = vreinterpretq_u8_u32(vzip2q_u32(r.val[0], r.val[1]));  // rows 2, 3
  const uint8x16_t c01 = vreinterpretq_u8_u32(vzip1q_u32(r.val[2], r.val[3]));
  const uint8x16_t c23 = vreinterpretq_u8_u32(vzip2q_u32(r.val[2], r.val[3]));
  z[0] = vreinterpretq_s8_u8(vandq_u8(a01, m4));  // values 0-7
  z[1] = vreinterpretq_s8_u8(vandq_u8(a23, m4));
  z[2] = vreinterpretq_s8_u8(vandq_u8(c01, m4));  // values 8-15
  z[3] = vreinterpretq_s8_u8(vandq_u8(c23, m4));
  z[4] = vreinterpretq_s8_u8(vshrq_n_u8(a01, 4));  // values 16-23
  z[5] = vreinterpretq_s8_u8(vshrq_n_u8(a23, 4));
  z[6] = vreinterpretq_s8_u8(vshrq_n_u8(c01, 4));  // values 24-31
  z[7] = vreinterpretq_s8_u8(vshrq_n_u8(c23, 4));
}

// Sub-block s's scales of the four weight rows in the lane order of an smmla tile (activation row
// i, weight row j at lane 2 i + j): {sc0, sc1, sc0, sc1} and {sc2, sc3, sc2, sc3}.
inline void Q4KR4I8mmScales(const uint8_t* blk, int s, int32x4_t* s01, int32x4_t* s23) {
  const int64x2_t sc = vreinterpretq_s64_s32(SubBlockScales(blk, s));
  *s01 = vreinterpretq_s32_s64(vdupq_laneq_s64(sc, 0));
  *s23 = vreinterpretq_s32_s64(vdupq_laneq_s64(sc, 1));
}

// Four smmla of step h: activation pairs a and b (registers xa, xb) with weight rows {0, 1} (z)
// and {2, 3} (y) into the chains t0 (a x rows 0, 1), t1 (a x rows 2, 3), t2, t3 (b).
#define EDGEQ_K4I_SMMLA4(xa, xb, z, y)  \
  "smmla %[t0].4s, %[" xa "].16b, %[" z \
  "].16b\n\t"                           \
  "smmla %[t1].4s, %[" xa "].16b, %[" y \
  "].16b\n\t"                           \
  "smmla %[t2].4s, %[" xb "].16b, %[" z \
  "].16b\n\t"                           \
  "smmla %[t3].4s, %[" xb "].16b, %[" y "].16b\n\t"

// Two activation pairs (a, b: a sub-block's zipped values, 4 x 16 bytes each) times one sub-block
// of four weight rows (z: Q4KR4I8mmOperands): ia[q] += s (q = 0: s01, 1: s23) x (pair a's dots with
// weight rows 2 q, 2 q + 1), ib the same for pair b. The 16 smmla in one asm statement, the four
// chains interleaved (a chain's next smmla four smmla later: with intrinsics GCC emits each chain
// in one run and an in-order core waits on each smmla).
inline void Q4KR4I8mmPairs2(const int8x16_t z[8], const int8x16x4_t& a, const int8x16x4_t& b,
                            int32x4_t s01, int32x4_t s23, int32x4_t ia[2], int32x4_t ib[2]) {
  int32x4_t t0, t1, t2, t3;
  asm("movi %[t0].4s, #0\n\t"
      "movi %[t1].4s, #0\n\t"
      "movi %[t2].4s, #0\n\t"
      "movi %[t3].4s, #0\n\t"
      EDGEQ_K4I_SMMLA4("a0", "b0", "z0", "z1")
      EDGEQ_K4I_SMMLA4("a1", "b1", "z2", "z3")
      EDGEQ_K4I_SMMLA4("a2", "b2", "z4", "z5")
      EDGEQ_K4I_SMMLA4("a3", "b3", "z6", "z7")
      "mla %[i0].4s, %[t0].4s, %[s01].4s\n\t"
      "mla %[i1].4s, %[t1].4s, %[s23].4s\n\t"
      "mla %[i2].4s, %[t2].4s, %[s01].4s\n\t"
      "mla %[i3].4s, %[t3].4s, %[s23].4s\n\t"
      : [t0] "=&w"(t0), [t1] "=&w"(t1), [t2] "=&w"(t2), [t3] "=&w"(t3), [i0] "+w"(ia[0]),
        [i1] "+w"(ia[1]), [i2] "+w"(ib[0]), [i3] "+w"(ib[1])
      : [z0] "w"(z[0]), [z1] "w"(z[1]), [z2] "w"(z[2]), [z3] "w"(z[3]), [z4] "w"(z[4]),
        [z5] "w"(z[5]), [z6] "w"(z[6]), [z7] "w"(z[7]), [a0] "w"(a.val[0]), [a1] "w"(a.val[1]),
        [a2] "w"(a.val[2]), [a3] "w"(a.val[3]), [b0] "w"(b.val[0]), [b1] "w"(b.val[1]),
        [b2] "w"(b.val[2]), [b3] "w"(b.val[3]), [s01] "w"(s01), [s23] "w"(s23));
}
#undef EDGEQ_K4I_SMMLA4

// One pair (the tiles of one pair: m = 1 or 2 left over).
inline void Q4KR4I8mmPair1(const int8x16_t z[8], const int8x16x4_t& a, int32x4_t s01, int32x4_t s23,
                           int32x4_t ia[2]) {
  int32x4_t t01 = vmmlaq_s32(vdupq_n_s32(0), a.val[0], z[0]);
  int32x4_t t23 = vmmlaq_s32(vdupq_n_s32(0), a.val[0], z[1]);
  for (int h = 1; h < 4; ++h) {
    t01 = vmmlaq_s32(t01, a.val[h], z[2 * h]);
    t23 = vmmlaq_s32(t23, a.val[h], z[2 * h + 1]);
  }
  ia[0] = vmlaq_s32(ia[0], t01, s01);
  ia[1] = vmlaq_s32(ia[1], t23, s23);
}

// The end of a super-block for the tile's P pairs (x: their zipped super-block, k_r4_i8mm.h), as
// Q4KR4FinishRows / Q4KR4FinishInOrder (q4_k_r4.h) per row, in smmla's lane order (pair p x weight
// rows 2 q, 2 q + 1: isum[p][q], acc[2 p + q]): mins = sum_s mn[s][r] * sx[s] (sx: the sum of
// sub-block s's activations) by smmla too, the sums split into bytes (256 x high + low: smmla of
// the high bytes, shifted, then ummla of the low ones accumulated; int32, exact), the weights' mins
// transposed to rows of 8 bytes by two rounds of uzp; then per lane the same two float operations
// in the same order (d x x.d and dmin x x.d one product each, as vmulq_n_f32 makes them).
template <int P>
inline void Q4KR4I8mmFinish(const uint8_t* blk, const int8_t* x, const int32x4_t isum[P][2],
                            float32x4_t acc[2 * P]) {
  const uint8x16x2_t mn8 = vld1q_u8_x2(blk + 48);  // byte 4 s + r: mn[s][r]
  const uint8x16_t e = vuzp1q_u8(mn8.val[0], mn8.val[1]), o = vuzp2q_u8(mn8.val[0], mn8.val[1]);
  const uint8x16_t mn[2] = {vuzp1q_u8(e, o), vuzp2q_u8(e, o)};  // rows 0, 1 / 2, 3: s = 0..7
  const float64x2_t d = vreinterpretq_f64_f32(LoadHalf4(blk));
  const float64x2_t dmin = vreinterpretq_f64_f32(LoadHalf4(blk + 8));
  const float32x4_t dq[2] = {vreinterpretq_f32_f64(vdupq_laneq_f64(d, 0)),
                             vreinterpretq_f32_f64(vdupq_laneq_f64(d, 1))};
  const float32x4_t mq[2] = {vreinterpretq_f32_f64(vdupq_laneq_f64(dmin, 0)),
                             vreinterpretq_f32_f64(vdupq_laneq_f64(dmin, 1))};
  for (int p0 = 0; p0 < P; p0 += 2) {  // two pairs at a time, stage by stage (four chains)
    constexpr int kPairs = P < 2 ? P : 2;
    int32x4_t mins[kPairs][2];
    float32x4_t xd[kPairs];
    for (int i = 0; i < kPairs; ++i) {
      const int8_t* extra = x + 2048 + 48 * (p0 + i);
      xd[i] = vld1q_f32(reinterpret_cast<const float*>(extra));
      const int8x16_t hi = vld1q_s8(extra + 32);
      for (int q = 0; q < 2; ++q) {
        mins[i][q] = vmmlaq_s32(vdupq_n_s32(0), hi, vreinterpretq_s8_u8(mn[q]));
      }
    }
    for (int i = 0; i < kPairs; ++i) {
      const uint8x16_t lo =
          vld1q_u8(reinterpret_cast<const uint8_t*>(x + 2048 + 48 * (p0 + i) + 16));
      for (int q = 0; q < 2; ++q) {
        mins[i][q] = vreinterpretq_s32_u32(
            vmmlaq_u32(vreinterpretq_u32_s32(vshlq_n_s32(mins[i][q], 8)), lo, mn[q]));
      }
    }
    for (int i = 0; i < kPairs; ++i) {
      for (int q = 0; q < 2; ++q) {
        float32x4_t& a = acc[2 * (p0 + i) + q];
        a = vfmaq_f32(a, vcvtq_f32_s32(isum[p0 + i][q]), vmulq_f32(dq[q], xd[i]));
      }
    }
    for (int i = 0; i < kPairs; ++i) {
      for (int q = 0; q < 2; ++q) {
        float32x4_t& a = acc[2 * (p0 + i) + q];
        a = vfmsq_f32(a, vcvtq_f32_s32(mins[i][q]), vmulq_f32(mq[q], xd[i]));
      }
    }
  }
}

// The q4_k smmla kernel of KR4I8mmGemm (k_r4_i8mm.h).
struct Q4KR4I8mm {
  static constexpr int64_t kBlockBytes = kQ4KR4BlockBytes;
  // One super-block (blk) of four weight rows against P pairs of activation rows (x: zipped).
  template <int P>
  static void SuperBlock(const uint8_t* blk, const int8_t* x, float32x4_t acc[2 * P]) {
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    int32x4_t isum[P][2];
    for (int p = 0; p < P; ++p) isum[p][0] = isum[p][1] = vdupq_n_s32(0);
    for (int s = 0; s < 8; ++s) {
      int8x16_t z[8];
      Q4KR4I8mmOperands(blk + 80 + 64 * s, m4, z);
      int32x4_t s01, s23;
      Q4KR4I8mmScales(blk, s, &s01, &s23);
      const int8_t* xs = x + 256 * s;
      if constexpr (P == 1) {
        Q4KR4I8mmPair1(z, vld1q_s8_x4(xs), s01, s23, isum[0]);
      } else {
        for (int p = 0; p < P; p += 2) {
          const int8x16x4_t a = vld1q_s8_x4(xs + 64 * p);
          const int8x16x4_t b = vld1q_s8_x4(xs + 64 * (p + 1));
          Q4KR4I8mmPairs2(z, a, b, s01, s23, isum[p], isum[p + 1]);
        }
      }
    }
    Q4KR4I8mmFinish<P>(blk, x, isum, acc);
  }
};

}  // namespace
}  // namespace arm

EDGEQ_KERNEL_ENTRY(kQ4_KI8mmGemm, Shape::kGemm, "q4_k_i8mm_gemm", Encoding::kQ4_K, Isa::kNeonI8mm,
                   arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ4_KR4, Q4_KR4RowBytes, 16,
                   arm::KR4I8mmGemm<arm::Q4KR4I8mm>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
