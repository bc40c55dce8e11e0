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
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/isa.h"

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

// The GEMV's schedule for in-order cores (Cortex-A53/A55/A510; chosen by ActiveCoreSchedule,
// isa.h): two 32-value sub-blocks (s, s + 1) of four weight rows against one activation row per asm
// statement, in fixed registers: v0-v3 / v4-v5 the first sub-block's nibble and bit-pair planes,
// v6-v9 / v10-v11 the second's, v12-v15 the activation's 64 values, v16-v19 the four sdot chains
// (values 0-15 and 16-31 of each sub-block), v20-v22 and v23-v25 two sets of decode registers
// (word, scratch, high word), v26-v27 the scales. Per word the next word is decoded around this
// word's two sdot: its shifts and mask before them, its two inserts after them (a shift or mask
// right after an sdot waits for the sdot's writeback on LLVM's Cortex-A55 model, and an insert
// right after its shift waits for it); the second sub-block's loads go among the first one's words.
// The same words (Q6R4Words), the same dots and the same int32 products with the scales as
// Q6KR4DotprodTile<1>: the sums differ only in the order of int32 additions, so they are equal.
// isum_a += the four groups 2 s's dots x their scales + group 2 s + 2's; isum_b the odd groups'.
#define EDGEQ_Q6G_SHL(tl, tt, th, h0, h1, n, sh) \
  "shl " tl ".16b, " h0 ".16b, #" sh             \
  "\n\t"                                         \
  "shl " tt ".16b, " n                           \
  ".16b, #4\n\t"                                 \
  "shl " th ".16b, " h1 ".16b, #" sh             \
  "\n\t"                                         \
  "and " n ".16b, " n ".16b, %[mhi].16b\n\t"
#define EDGEQ_Q6G_SRI(tl, tt, th, n) \
  "sri " tl ".16b, " tt              \
  ".16b, #2\n\t"                     \
  "sri " th ".16b, " n ".16b, #2\n\t"
#define EDGEQ_Q6G_SDOT(pl, ph, tl, th, x0, x1, c) \
  "sdot " pl ".4s, " tl ".16b, " x0 ".4b[" c      \
  "]\n\t"                                         \
  "sdot " ph ".4s, " th ".16b, " x1 ".4b[" c "]\n\t"
#define EDGEQ_Q6G_LDQ(v, base, off) "ldr q" v ", [%[" base "], #" off "]\n\t"
// Word c of sub-block A (first) or B (second): its decode (set 0: v20-v22 for even c, set 1:
// v23-v25 for odd c) and its sdot.
#define EDGEQ_Q6G_SET0 "v20", "v21", "v22"
#define EDGEQ_Q6G_SET1 "v23", "v24", "v25"
#define EDGEQ_Q6G_SHL_(...) EDGEQ_Q6G_SHL(__VA_ARGS__)
#define EDGEQ_Q6G_SRI_(...) EDGEQ_Q6G_SRI(__VA_ARGS__)
#define EDGEQ_Q6G_SDOT_(...) EDGEQ_Q6G_SDOT(__VA_ARGS__)
#define EDGEQ_Q6G_DEC_A(set, n, sh) EDGEQ_Q6G_SHL_(set, "v4", "v5", n, sh)
#define EDGEQ_Q6G_DEC_B(set, n, sh) EDGEQ_Q6G_SHL_(set, "v10", "v11", n, sh)
#define EDGEQ_Q6G_INS(set, n) EDGEQ_Q6G_SRI_(set, n)
#define EDGEQ_Q6G_TLTH0 "v20", "v22"
#define EDGEQ_Q6G_TLTH1 "v23", "v25"
#define EDGEQ_Q6G_DOT_A(tlth, c) EDGEQ_Q6G_SDOT_("v16", "v17", tlth, "v12", "v13", c)
#define EDGEQ_Q6G_DOT_B(tlth, c) EDGEQ_Q6G_SDOT_("v18", "v19", tlth, "v14", "v15", c)

// w: sub-block s's 96 bytes (s + 1's follow), x: the activation's values 32 s .. 32 s + 63, sc: the
// scales of groups 2 s .. 2 s + 3 of the four rows (16 int8).
inline void Q6DotprodGemvPair(const uint8_t* w, const int8_t* x, const uint8_t* sc, uint8x16_t mhi,
                              int32x4_t* isum_a, int32x4_t* isum_b) {
  asm(  // Sub-block A's planes and activations, the first scales; zeroed chains; A's word 0.
      "ldr d26, [%[sc]]\n\t" EDGEQ_Q6G_LDQ("4", "w", "64") EDGEQ_Q6G_LDQ("5", "w", "80")
          EDGEQ_Q6G_LDQ("0", "w", "0") EDGEQ_Q6G_LDQ("1", "w", "16") EDGEQ_Q6G_LDQ("2", "w", "32")
              EDGEQ_Q6G_LDQ("3", "w", "48") EDGEQ_Q6G_LDQ("12", "x", "0")
                  EDGEQ_Q6G_LDQ("13", "x", "16")
      "movi v16.4s, #0\n\t"
      "movi v17.4s, #0\n\t"
      "movi v18.4s, #0\n\t"
      "movi v19.4s, #0\n\t" EDGEQ_Q6G_DEC_A(EDGEQ_Q6G_SET0, "v0", "6")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET0, "v0")
      // A's words 0-3, B's loads among them.
      EDGEQ_Q6G_DEC_A(EDGEQ_Q6G_SET1, "v1", "4") "ldr d27, [%[sc], #8]\n\t" EDGEQ_Q6G_LDQ(
          "10", "w", "160") EDGEQ_Q6G_DOT_A(EDGEQ_Q6G_TLTH0, "0") EDGEQ_Q6G_LDQ("11", "w", "176")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET1, "v1")
      EDGEQ_Q6G_DEC_A(EDGEQ_Q6G_SET0, "v2", "2") EDGEQ_Q6G_LDQ("6", "w", "96") EDGEQ_Q6G_LDQ(
          "7", "w", "112") EDGEQ_Q6G_DOT_A(EDGEQ_Q6G_TLTH1, "1") EDGEQ_Q6G_LDQ("8", "w", "128")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET0, "v2")
      EDGEQ_Q6G_DEC_A(EDGEQ_Q6G_SET1, "v3", "0") EDGEQ_Q6G_LDQ("9", "w", "144") EDGEQ_Q6G_LDQ(
          "14", "x", "32") EDGEQ_Q6G_DOT_A(EDGEQ_Q6G_TLTH0, "2") EDGEQ_Q6G_LDQ("15", "x", "48")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET1, "v3")
      // B's word 0 decoded around A's word 3, and so on.
      EDGEQ_Q6G_DEC_B(EDGEQ_Q6G_SET0, "v6", "6") EDGEQ_Q6G_DOT_A(EDGEQ_Q6G_TLTH1, "3")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET0, "v6")
      EDGEQ_Q6G_DEC_B(EDGEQ_Q6G_SET1, "v7", "4") EDGEQ_Q6G_DOT_B(EDGEQ_Q6G_TLTH0, "0")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET1, "v7")
      EDGEQ_Q6G_DEC_B(EDGEQ_Q6G_SET0, "v8", "2") EDGEQ_Q6G_DOT_B(EDGEQ_Q6G_TLTH1, "1")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET0, "v8")
      EDGEQ_Q6G_DEC_B(EDGEQ_Q6G_SET1, "v9", "0") EDGEQ_Q6G_DOT_B(EDGEQ_Q6G_TLTH0, "2")
          EDGEQ_Q6G_INS(EDGEQ_Q6G_SET1, "v9") EDGEQ_Q6G_DOT_B(EDGEQ_Q6G_TLTH1, "3")
      // The scales to int32 (groups 2 s, 2 s + 1, 2 s + 2, 2 s + 3) and the four products.
      "sxtl v26.8h, v26.8b\n\t"
      "sxtl v27.8h, v27.8b\n\t"
      "sxtl v20.4s, v26.4h\n\t"
      "sxtl2 v21.4s, v26.8h\n\t"
      "sxtl v22.4s, v27.4h\n\t"
      "sxtl2 v23.4s, v27.8h\n\t"
      "mla %[ia].4s, v16.4s, v20.4s\n\t"
      "mla %[ib].4s, v17.4s, v21.4s\n\t"
      "mla %[ia].4s, v18.4s, v22.4s\n\t"
      "mla %[ib].4s, v19.4s, v23.4s\n\t"
      : [ia] "+w"(*isum_a), [ib] "+w"(*isum_b)
      : [w] "r"(w), [x] "r"(x), [sc] "r"(sc), [mhi] "w"(mhi)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26",
        "v27", "memory");
}
#undef EDGEQ_Q6G_SHL
#undef EDGEQ_Q6G_SRI
#undef EDGEQ_Q6G_SDOT
#undef EDGEQ_Q6G_LDQ
#undef EDGEQ_Q6G_SET0
#undef EDGEQ_Q6G_SET1
#undef EDGEQ_Q6G_SHL_
#undef EDGEQ_Q6G_SRI_
#undef EDGEQ_Q6G_SDOT_
#undef EDGEQ_Q6G_DEC_A
#undef EDGEQ_Q6G_DEC_B
#undef EDGEQ_Q6G_INS
#undef EDGEQ_Q6G_TLTH0
#undef EDGEQ_Q6G_TLTH1
#undef EDGEQ_Q6G_DOT_A
#undef EDGEQ_Q6G_DOT_B

// Q6KR4DotprodTile<1> (the GEMV's tile) scheduled for in-order cores: per super-block four
// Q6DotprodGemvPair, then the same float operations in the same order (d / 4 x x.d, the sum
// converted, one fused multiply-add): bit-identical outputs.
struct Q6KR4DotprodInOrderGemvTile {
  static constexpr int kTileRows = 4;
  template <int M>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t /*xrb*/, int64_t k,
                   float32x4_t out[M]) {
    static_assert(M == 1, "Q6KR4DotprodInOrderGemvTile: one activation row");
    const blocks::BlockQ8_K* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const uint8x16_t mhi = vdupq_n_u8(0xF0);
    float32x4_t acc = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const uint8_t* blk = w + b * kQ6KR4BlockBytes;
      int32x4_t isum_a = vdupq_n_s32(0), isum_b = vdupq_n_s32(0);
      for (int s = 0; s < 8; s += 2) {
        Q6DotprodGemvPair(blk + 72 + 96 * s, bx[b].qs + 32 * s, blk + 8 + 8 * s, mhi, &isum_a,
                          &isum_b);
      }
      const int32x4_t isum = vaddq_s32(isum_a, isum_b);
      const float32x4_t d = vmulq_n_f32(LoadHalf4(blk), 0.25f);
      acc = vfmaq_f32(acc, vcvtq_f32_s32(isum), vmulq_n_f32(d, bx[b].d));
    }
    out[0] = acc;
  }
};

// The q6_k dotprod GEMV, one schedule per core type (ActiveCoreSchedule, isa.h): in-order cores
// run Q6KR4DotprodInOrderGemvTile, out-of-order cores Q6KR4DotprodTile<1> (modelled as fast or
// faster there: benchmarks/arm_sim/README.md, 2026-11-27 kgemv). Bit-identical outputs.
inline void Q6KR4DotprodGemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  if (ActiveCoreSchedule() == CoreSchedule::kInOrder) {
    R4Gemv<Q6KR4DotprodInOrderGemvTile>(p, j0, j1);
  } else {
    R4Gemv<Q6KR4DotprodTile>(p, j0, j1);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_Q6_K_R4_H_
