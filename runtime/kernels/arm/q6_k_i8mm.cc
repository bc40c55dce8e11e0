// Q6_K x Q8_K GEMM on i8mm CPUs over the Q6_KR4 layout (repack_r4.h; one repacked copy, shared
// with the dotprod GEMV that i8mm CPUs select for m = 1): smmla tiles of four weight rows x up to
// eight activation rows (KR4I8mmGemm<Q6KR4I8mm>, k_r4_i8mm.h), where the dotprod tile
// (Q6KR4DotprodTile, q6_k_r4.h) runs sdot by element. Bit-identical to that tile: the same values
// 4 x (level - 32), the same int32 sums per 16-value group (exact in any order) times the same
// int32 scales, and the same float operations per super-block in the same order
// (benchmarks/arm_sim/README.md, 2026-11-27 k_i8mm).
#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/k_r4_i8mm.h"
#include "runtime/kernels/arm/q6_k_r4.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

// The smmla operands of one 32-value sub-block of a Q6_KR4 block (w: its 96 bytes): z[2 h + q] =
// weight rows {2 q, 2 q + 1} x values 8 h .. 8 h + 7, each 4 x (level - 32) as Q6R4Word (q6_k_r4.h)
// decodes it. The nibble words are zipped as Q4_K's (words c, c + 1 of a row side by side); each
// bit-pair plane is zipped with itself (a row's word twice), and each byte's pair is shifted to the
// top by its own word's amount (6 - 2 c for word c: ushl by a vector of shifts), then the nibble
// inserted below it.
inline void Q6KR4I8mmOperands(const uint8_t* w, int8x16_t sh01, int8x16_t sh23, uint8x16_t mhi,
                              int8x16_t z[8]) {
  const uint32x4x4_t n = vld1q_u32_x4(reinterpret_cast<const uint32_t*>(w));
  const uint32x4x2_t h = vld1q_u32_x2(reinterpret_cast<const uint32_t*>(w + 64));
  const uint8x16_t a01 = vreinterpretq_u8_u32(vzip1q_u32(n.val[0], n.val[1]));  // words 0, 1
  const uint8x16_t a23 = vreinterpretq_u8_u32(vzip2q_u32(n.val[0], n.val[1]));
  const uint8x16_t c01 = vreinterpretq_u8_u32(vzip1q_u32(n.val[2], n.val[3]));  // words 2, 3
  const uint8x16_t c23 = vreinterpretq_u8_u32(vzip2q_u32(n.val[2], n.val[3]));
  const uint8x16_t l01 = vreinterpretq_u8_u32(vzip1q_u32(h.val[0], h.val[0]));  // values 0-15
  const uint8x16_t l23 = vreinterpretq_u8_u32(vzip2q_u32(h.val[0], h.val[0]));
  const uint8x16_t u01 = vreinterpretq_u8_u32(vzip1q_u32(h.val[1], h.val[1]));  // values 16-31
  const uint8x16_t u23 = vreinterpretq_u8_u32(vzip2q_u32(h.val[1], h.val[1]));
  const uint8x16_t q[8] = {vsriq_n_u8(vshlq_u8(l01, sh01), vshlq_n_u8(a01, 4), 2),  // values 0-7
                           vsriq_n_u8(vshlq_u8(l23, sh01), vshlq_n_u8(a23, 4), 2),
                           vsriq_n_u8(vshlq_u8(l01, sh23), vshlq_n_u8(c01, 4), 2),  // values 8-15
                           vsriq_n_u8(vshlq_u8(l23, sh23), vshlq_n_u8(c23, 4), 2),
                           vsriq_n_u8(vshlq_u8(u01, sh01), vandq_u8(a01, mhi), 2),  // values 16-23
                           vsriq_n_u8(vshlq_u8(u23, sh01), vandq_u8(a23, mhi), 2),
                           vsriq_n_u8(vshlq_u8(u01, sh23), vandq_u8(c01, mhi), 2),  // values 24-31
                           vsriq_n_u8(vshlq_u8(u23, sh23), vandq_u8(c23, mhi), 2)};
  for (int i = 0; i < 8; ++i) z[i] = vreinterpretq_s8_u8(q[i]);
}

// Four smmla of step h: activation pairs a and b (registers xa, xb) with weight rows {0, 1} (z)
// and {2, 3} (y) into the chains t0 (a x rows 0, 1), t1 (a x rows 2, 3), t2, t3 (b).
#define EDGEQ_K6I_SMMLA4(xa, xb, z, y)  \
  "smmla %[t0].4s, %[" xa "].16b, %[" z \
  "].16b\n\t"                           \
  "smmla %[t1].4s, %[" xa "].16b, %[" y \
  "].16b\n\t"                           \
  "smmla %[t2].4s, %[" xb "].16b, %[" z \
  "].16b\n\t"                           \
  "smmla %[t3].4s, %[" xb "].16b, %[" y "].16b\n\t"
#define EDGEQ_K6I_ZERO4   \
  "movi %[t0].4s, #0\n\t" \
  "movi %[t1].4s, #0\n\t" \
  "movi %[t2].4s, #0\n\t" \
  "movi %[t3].4s, #0\n\t"
#define EDGEQ_K6I_MLA4(s01, s23)   \
  "mla %[i0].4s, %[t0].4s, %[" s01 \
  "].4s\n\t"                       \
  "mla %[i1].4s, %[t1].4s, %[" s23 \
  "].4s\n\t"                       \
  "mla %[i2].4s, %[t2].4s, %[" s01 \
  "].4s\n\t"                       \
  "mla %[i3].4s, %[t3].4s, %[" s23 "].4s\n\t"

// Two activation pairs (a0, a1 / b0, b1: steps 2 g and 2 g + 1 of a sub-block's zipped values)
// times one 16-value group of four weight rows (z: its steps' operands, Q6KR4I8mmOperands): ia[q]
// += s (q = 0: s01, 1: s23) x (pair a's dots with weight rows 2 q, 2 q + 1), ib the same for pair
// b. One asm statement, the four chains interleaved (see Q4KR4I8mmPairs2).
inline void Q6KR4I8mmGroup2(const int8x16_t z[4], int8x16_t a0, int8x16_t a1, int8x16_t b0,
                            int8x16_t b1, int32x4_t s01, int32x4_t s23, int32x4_t ia[2],
                            int32x4_t ib[2]) {
  int32x4_t t0, t1, t2, t3;
  asm(EDGEQ_K6I_ZERO4 EDGEQ_K6I_SMMLA4("a0", "b0", "z0", "z1")
          EDGEQ_K6I_SMMLA4("a1", "b1", "z2", "z3") EDGEQ_K6I_MLA4("s01", "s23")
      : [t0] "=&w"(t0), [t1] "=&w"(t1), [t2] "=&w"(t2), [t3] "=&w"(t3), [i0] "+w"(ia[0]),
        [i1] "+w"(ia[1]), [i2] "+w"(ib[0]), [i3] "+w"(ib[1])
      : [z0] "w"(z[0]), [z1] "w"(z[1]), [z2] "w"(z[2]), [z3] "w"(z[3]), [a0] "w"(a0), [a1] "w"(a1),
        [b0] "w"(b0), [b1] "w"(b1), [s01] "w"(s01), [s23] "w"(s23));
}

#undef EDGEQ_K6I_SMMLA4
#undef EDGEQ_K6I_ZERO4
#undef EDGEQ_K6I_MLA4

// One pair (the tiles of one pair: m = 1 or 2 left over).
inline void Q6KR4I8mmPair1(const int8x16_t z[8], const int8x16x4_t& a, const int32x4_t sc[4],
                           int32x4_t ia[2]) {
  for (int g = 0; g < 2; ++g) {  // the sub-block's two 16-value groups
    int32x4_t t01 = vmmlaq_s32(vdupq_n_s32(0), a.val[2 * g], z[4 * g]);
    int32x4_t t23 = vmmlaq_s32(vdupq_n_s32(0), a.val[2 * g], z[4 * g + 1]);
    t01 = vmmlaq_s32(t01, a.val[2 * g + 1], z[4 * g + 2]);
    t23 = vmmlaq_s32(t23, a.val[2 * g + 1], z[4 * g + 3]);
    ia[0] = vmlaq_s32(ia[0], t01, sc[2 * g]);
    ia[1] = vmlaq_s32(ia[1], t23, sc[2 * g + 1]);
  }
}

// The q6_k smmla kernel of KR4I8mmGemm (k_r4_i8mm.h).
struct Q6KR4I8mm {
  static constexpr int64_t kBlockBytes = kQ6KR4BlockBytes;
  // One super-block (blk) of four weight rows against P pairs of activation rows (x: zipped): per
  // lane (smmla's order) as Q6KR4DotprodTile per row: d / 4 x x.d (one product, as vmulq_n_f32
  // makes it), the sum converted, one fused multiply-add.
  template <int P>
  static void SuperBlock(const uint8_t* blk, const int8_t* x, float32x4_t acc[2 * P]) {
    const int8x16_t sh01 = {6, 6, 6, 6, 4, 4, 4, 4, 6, 6, 6, 6, 4, 4, 4, 4};
    const int8x16_t sh23 = {2, 2, 2, 2, 0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0};
    const uint8x16_t mhi = vdupq_n_u8(0xF0);
    int32x4_t isum[P][2];
    for (int p = 0; p < P; ++p) isum[p][0] = isum[p][1] = vdupq_n_s32(0);
    for (int s = 0; s < 8; ++s) {
      int8x16_t z[8];
      Q6KR4I8mmOperands(blk + 72 + 96 * s, sh01, sh23, mhi, z);
      // The scales of groups 2 s (sa) and 2 s + 1 (sb) of the four rows, in smmla's lane order.
      const int16x8_t s16 = vmovl_s8(vld1_s8(reinterpret_cast<const int8_t*>(blk + 8 + 8 * s)));
      const int64x2_t sa = vreinterpretq_s64_s32(vmovl_s16(vget_low_s16(s16)));
      const int64x2_t sb = vreinterpretq_s64_s32(vmovl_high_s16(s16));
      const int32x4_t sc[4] = {vreinterpretq_s32_s64(vdupq_laneq_s64(sa, 0)),
                               vreinterpretq_s32_s64(vdupq_laneq_s64(sa, 1)),
                               vreinterpretq_s32_s64(vdupq_laneq_s64(sb, 0)),
                               vreinterpretq_s32_s64(vdupq_laneq_s64(sb, 1))};
      const int8_t* xs = x + 256 * s;
      if constexpr (P == 1) {
        Q6KR4I8mmPair1(z, vld1q_s8_x4(xs), sc, isum[0]);
      } else {
        // Group by group (steps 0-1, then 2-3), each pair's two steps loaded for it: the pairs'
        // four steps at once would not fit the registers beside the operands and the sums.
        for (int g = 0; g < 2; ++g) {
          for (int p = 0; p < P; p += 2) {
            const int8x16x2_t a = vld1q_s8_x2(xs + 64 * p + 32 * g);
            const int8x16x2_t b = vld1q_s8_x2(xs + 64 * (p + 1) + 32 * g);
            Q6KR4I8mmGroup2(z + 4 * g, a.val[0], a.val[1], b.val[0], b.val[1], sc[2 * g],
                            sc[2 * g + 1], isum[p], isum[p + 1]);
          }
        }
      }
    }
    const float64x2_t d = vreinterpretq_f64_f32(vmulq_n_f32(LoadHalf4(blk), 0.25f));
    const float32x4_t dq[2] = {vreinterpretq_f32_f64(vdupq_laneq_f64(d, 0)),
                               vreinterpretq_f32_f64(vdupq_laneq_f64(d, 1))};
    for (int p = 0; p < P; ++p) {
      const float32x4_t xd = vld1q_f32(reinterpret_cast<const float*>(x + 2048 + 48 * p));
      for (int q = 0; q < 2; ++q) {
        acc[2 * p + q] = vfmaq_f32(acc[2 * p + q], vcvtq_f32_s32(isum[p][q]), vmulq_f32(dq[q], xd));
      }
    }
  }
};

}  // namespace
}  // namespace arm

EDGEQ_KERNEL_ENTRY(kQ6_KI8mmGemm, Shape::kGemm, "q6_k_i8mm_gemm", Encoding::kQ6_K, Isa::kNeonI8mm,
                   arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ6_KR4, Q6_KR4RowBytes, 16,
                   arm::KR4I8mmGemm<arm::Q6KR4I8mm>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
