// The Q6_K GEMV/GEMM tile over the Q6_KR4 layout (four weight rows interleaved per super-block,
// repack_r4.h): Q6KR4DotprodTile multiplies a block of four weight rows by up to four Q8_K
// activation rows with sdot by element, as Q4KR4DotprodTile (q4_k_r4.h) does for Q4_K. Include it
// only from files compiled with +dotprod.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_Q6_K_R4_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_Q6_K_R4_H_

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/r4_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an i8mm copy into another ISA's path.
namespace {

constexpr int64_t kQ6KR4BlockBytes = 4 * 210;

// 4 x (level - 32) of word c (values 4 c .. 4 c + 3 of each of the four rows) of the first (hi =
// false: the low nibbles of n) or second 16 values (the high nibbles) of a sub-block: the nibble
// at bits 2-5 under the stored bit pair (the level's top two bits xor 2) at bits 6-7.
template <int c>
inline int8x16_t Q6R4Word(uint8x16_t n, uint8x16_t h, bool hi) {
  const uint8x16_t top = vshlq_n_u8(h, 6 - 2 * c);
  const uint8x16_t nib = hi ? vandq_u8(n, vdupq_n_u8(0xF0)) : vshlq_n_u8(n, 4);
  return vreinterpretq_s8_u8(vsriq_n_u8(top, nib, 2));
}

// One instruction of Q6Step4's schedule (see Q4_K's Step4): sdot by element of weight register q
// against word c of activation row y's register.
#define EDGEQ_K6_SDOT(p, q, y, c) "sdot %[" #p "].4s, %[" #q "].16b, %[" #y "].4b[" #c "]\n\t"
#define EDGEQ_K6_WORD(q, c)   \
  EDGEQ_K6_SDOT(p0, q, y0, c) \
  EDGEQ_K6_SDOT(p1, q, y1, c) EDGEQ_K6_SDOT(p2, q, y2, c) EDGEQ_K6_SDOT(p3, q, y3, c)
// Word c of the low nibbles into q: q = H0 << (6 - 2 c), p = N_c << 4, q = sri(q, p, 2) (p: a
// scratch register before its zeroing).
#define EDGEQ_K6_LO(q, p, R, sh)        \
  "shl %[" #q "].16b, %S[h].16b, #" #sh \
  "\n\t"                                \
  "shl %[" #p "].16b, %" #R             \
  "[n].16b, #4\n\t"                     \
  "sri %[" #q "].16b, %[" #p "].16b, #2\n\t"
// Word c of the high nibbles into q (its low-nibble sdot issued): N_c masked in place.
#define EDGEQ_K6_HI(q, R, sh)           \
  "shl %[" #q "].16b, %T[h].16b, #" #sh \
  "\n\t"                                \
  "and %" #R "[n].16b, %" #R            \
  "[n].16b, %[mhi].16b\n\t"             \
  "sri %[" #q "].16b, %" #R "[n].16b, #2\n\t"
#define EDGEQ_K6_ZERO(p) "movi %[" #p "].4s, #0\n\t"
#define EDGEQ_K6_MLA(i, p, s) "mla %[" #i "].4s, %[" #p "].4s, %[" #s "].4s\n\t"
#define EDGEQ_K6_LDX(y, x, off) "ldr %q[" #y "], [" #x ", #" #off "]\n\t"

// One 32-value sub-block of four weight rows (w: its 96 bytes, repack_r4.h) against four
// activation rows (x[i]: the row's 32 values): isum[i] += sa * (dots of values 0-15) + sb * (dots
// of values 16-31), by lane. Per sub-block: a 64- and a 32-byte load, eight words decoded (shl,
// shl or and, sri), per activation row two 16-byte loads, eight sdot in one chain zeroed twice
// and two mla; in one asm statement, the four rows' chains interleaved, each high word decoded
// as soon as its register's low word has been used.
inline void Q6Step4(const uint8_t* w, const int8_t* const x[4], uint8x16_t mhi, int32x4_t sa,
                    int32x4_t sb, int32x4_t isum[4]) {
  uint8x16x4_t n;
  uint8x16x2_t h;
  int8x16_t q0, q1, q2, q3, y0, y1, y2, y3;
  int32x4_t p0, p1, p2, p3;
  // The rows' pointers in x9-x12 (fixed scratch registers: four pointer operands would exceed
  // asm's 30).
  asm("ldp x9, x10, [%[xs]]\n\t"
      "ldp x11, x12, [%[xs], #16]\n\t"
      "ld1 {%S[n].16b - %V[n].16b}, [%[w]], #64\n\t"
      "ld1 {%S[h].16b - %T[h].16b}, [%[w]]\n\t" EDGEQ_K6_LDX(y0, x9, 0) EDGEQ_K6_LDX(
          y1, x10, 0) EDGEQ_K6_LDX(y2, x11, 0) EDGEQ_K6_LDX(y3, x12, 0) EDGEQ_K6_LO(q0, p0, S, 6)
          EDGEQ_K6_LO(q1, p1, T, 4) EDGEQ_K6_LO(q2, p2, U, 2) EDGEQ_K6_LO(
              q3, p3, V, 0) EDGEQ_K6_ZERO(p0) EDGEQ_K6_ZERO(p1) EDGEQ_K6_ZERO(p2) EDGEQ_K6_ZERO(p3)
              EDGEQ_K6_WORD(q0, 0) EDGEQ_K6_HI(q0, S, 6) EDGEQ_K6_WORD(q1, 1) EDGEQ_K6_HI(
                  q1, T, 4) EDGEQ_K6_WORD(q2, 2) EDGEQ_K6_HI(q2, U, 2) EDGEQ_K6_SDOT(p0, q3, y0, 3)
                  EDGEQ_K6_SDOT(p1, q3, y1, 3) EDGEQ_K6_LDX(y0, x9, 16) EDGEQ_K6_SDOT(p2, q3, y2, 3)
                      EDGEQ_K6_LDX(y1, x10, 16) EDGEQ_K6_SDOT(p3, q3, y3, 3) EDGEQ_K6_LDX(
                          y2, x11, 16) EDGEQ_K6_MLA(i0, p0, sa) EDGEQ_K6_LDX(y3, x12, 16)
                          EDGEQ_K6_MLA(i1, p1, sa) EDGEQ_K6_ZERO(p0) EDGEQ_K6_MLA(i2, p2, sa)
                              EDGEQ_K6_ZERO(p1) EDGEQ_K6_MLA(i3, p3, sa) EDGEQ_K6_ZERO(p2)
                                  EDGEQ_K6_HI(q3, V, 0) EDGEQ_K6_ZERO(p3) EDGEQ_K6_WORD(q0, 0)
                                      EDGEQ_K6_WORD(q1, 1) EDGEQ_K6_WORD(q2, 2) EDGEQ_K6_WORD(q3, 3)
                                          EDGEQ_K6_MLA(i0, p0, sb) EDGEQ_K6_MLA(i1, p1, sb)
                                              EDGEQ_K6_MLA(i2, p2, sb) EDGEQ_K6_MLA(i3, p3, sb)
      : [n] "=&w"(n), [h] "=&w"(h), [q0] "=&w"(q0), [q1] "=&w"(q1), [q2] "=&w"(q2), [q3] "=&w"(q3),
        [y0] "=&w"(y0), [y1] "=&w"(y1), [y2] "=&w"(y2), [y3] "=&w"(y3), [p0] "=&w"(p0),
        [p1] "=&w"(p1), [p2] "=&w"(p2), [p3] "=&w"(p3), [i0] "+w"(isum[0]), [i1] "+w"(isum[1]),
        [i2] "+w"(isum[2]), [i3] "+w"(isum[3]), [w] "+r"(w)
      : [xs] "r"(x), [mhi] "w"(mhi), [sa] "w"(sa), [sb] "w"(sb)
      : "x9", "x10", "x11", "x12", "memory");
}
#undef EDGEQ_K6_SDOT
#undef EDGEQ_K6_WORD
#undef EDGEQ_K6_LO
#undef EDGEQ_K6_HI
#undef EDGEQ_K6_ZERO
#undef EDGEQ_K6_MLA
#undef EDGEQ_K6_LDX

// acc + word `lane` of x dotted with each 4-byte word of q (sdot by element; an immediate lane).
inline int32x4_t Q6SdotLane(int32x4_t acc, int8x16_t q, int8x16_t x, int lane) {
  switch (lane) {
    case 0:
      return vdotq_laneq_s32(acc, q, x, 0);
    case 1:
      return vdotq_laneq_s32(acc, q, x, 1);
    case 2:
      return vdotq_laneq_s32(acc, q, x, 2);
    default:
      return vdotq_laneq_s32(acc, q, x, 3);
  }
}

// The eight words of a sub-block (w: its 96 bytes): q[c] = values 4 c.. (first 16), q[4 + c] =
// values 16 + 4 c...
inline void Q6R4Words(const uint8_t* w, int8x16_t q[8]) {
  const uint8x16x4_t n = vld1q_u8_x4(w);
  const uint8x16x2_t h = vld1q_u8_x2(w + 64);
  q[0] = Q6R4Word<0>(n.val[0], h.val[0], false);
  q[1] = Q6R4Word<1>(n.val[1], h.val[0], false);
  q[2] = Q6R4Word<2>(n.val[2], h.val[0], false);
  q[3] = Q6R4Word<3>(n.val[3], h.val[0], false);
  q[4] = Q6R4Word<0>(n.val[0], h.val[1], true);
  q[5] = Q6R4Word<1>(n.val[1], h.val[1], true);
  q[6] = Q6R4Word<2>(n.val[2], h.val[1], true);
  q[7] = Q6R4Word<3>(n.val[3], h.val[1], true);
}

// Q6_KR4 x Q8_K, GGML's math per row: per super-block sum_g sc[g] * (values_g . x_g) times
// d * x.d, g over the sixteen 16-value groups, values 4 x (level - 32) and d / 4 (exact). Lane r of
// every vector is weight row r. M = 4: Q6Step4 per sub-block; fewer rows: per row two chains (the
// sub-block's two groups), each scaled by its group's four scales. Exact int32: |values . x| <=
// 16 * 128 * 127 per group, times |sc| <= 128, over 16 groups is < 2^30.
struct Q6KR4DotprodTile {
  static constexpr int kTileRows = 4;
  template <int M>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float32x4_t out[M]) {
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    const uint8x16_t mhi = vdupq_n_u8(0xF0);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const uint8_t* blk = w + b * kQ6KR4BlockBytes;
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      for (int s = 0; s < 8; ++s) {
        // The scales of groups 2 s and 2 s + 1 of the four rows (int8, bytes 8 + 8 s ..).
        const int16x8_t s16 = vmovl_s8(vld1_s8(reinterpret_cast<const int8_t*>(blk + 8 + 8 * s)));
        const int32x4_t sa = vmovl_s16(vget_low_s16(s16)), sb = vmovl_high_s16(s16);
        const uint8_t* ws = blk + 72 + 96 * s;
        if constexpr (M == 4) {
          const int8_t* xs[4];
          for (int i = 0; i < 4; ++i) xs[i] = bx[i][b].qs + 32 * s;
          Q6Step4(ws, xs, mhi, sa, sb, isum);
          continue;
        }
        int8x16_t q[8];
        Q6R4Words(ws, q);
        for (int i = 0; i < M; ++i) {
          const int8x16x2_t xv = vld1q_s8_x2(bx[i][b].qs + 32 * s);
          int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
          for (int c = 0; c < 4; ++c) {
            lo = Q6SdotLane(lo, q[c], xv.val[0], c);
            hi = Q6SdotLane(hi, q[4 + c], xv.val[1], c);
          }
          isum[i] = vmlaq_s32(vmlaq_s32(isum[i], lo, sa), hi, sb);
        }
      }
      const float32x4_t d = vmulq_n_f32(LoadHalf4(blk), 0.25f);
      for (int i = 0; i < M; ++i)
        acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(isum[i]), vmulq_n_f32(d, bx[i][b].d));
    }
    for (int i = 0; i < M; ++i) out[i] = acc[i];
  }
};

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_Q6_K_R4_H_
