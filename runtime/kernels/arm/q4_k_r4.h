// The Q4_K GEMV/GEMM tile over the Q4_KR4 layout (four weight rows interleaved per super-block,
// repack_r4.h): Q4KR4DotprodTile multiplies a block of four weight rows by up to four Q8_K
// activation rows with sdot by element, so that each activation register (16 values of one row)
// serves the four weight rows, and each decoded weight register (4 values of each of the four rows)
// serves every activation row of the tile. Include it only from files compiled with +dotprod (the
// dotprod and i8mm kernels of q4_k: one layout, so one repacked copy whichever pair of them a CPU
// selects; the i8mm GEMM's smmla tile is q4_k_i8mm.cc's).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_Q4_K_R4_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_Q4_K_R4_H_

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

constexpr int64_t kQ4KR4BlockBytes = 4 * 148;

// acc + the dot of each 4-byte word of q with word `lane` of x (sdot by element; the lane must be
// an immediate).
inline int32x4_t SdotLane(int32x4_t acc, int8x16_t q, int8x16_t x, int lane) {
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

// One instruction of Step4's schedule. SDOT: p += word c of each weight row of register Q .
// word c of register H (S: values 0-15, T: 16-31) of activation row y (sdot by element).
#define EDGEQ_K4_SDOT(p, Q, y, H, c) "sdot %[" #p "].4s, " Q ".16b, %" #H "[" #y "].4b[" #c "]\n\t"
// The four activation rows' sdot of one weight register.
#define EDGEQ_K4_WORD(Q, H, c)   \
  EDGEQ_K4_SDOT(p0, Q, y0, H, c) \
  EDGEQ_K4_SDOT(p1, Q, y1, H, c) EDGEQ_K4_SDOT(p2, Q, y2, H, c) EDGEQ_K4_SDOT(p3, Q, y3, H, c)
#define EDGEQ_K4_AND(q, R) "and %[" #q "].16b, %" #R "[raw].16b, %[m4].16b\n\t"
#define EDGEQ_K4_USHR(R) "ushr %" #R "[raw].16b, %" #R "[raw].16b, #4\n\t"
#define EDGEQ_K4_LDX(y, x) "ld1 {%S[" #y "].16b - %T[" #y "].16b}, [%[" #x "]]\n\t"
#define EDGEQ_K4_ZERO(p) "movi %[" #p "].4s, #0\n\t"
#define EDGEQ_K4_MLA(i, p) "mla %[" #i "].4s, %[" #p "].4s, %[scl].4s\n\t"

// One 32-value sub-block of four weight rows (`w`: its 64 bytes, repack_r4.h) against four
// activation rows (x[i]: the row's 32 values): isum[i] += scl * (the four weight rows' dots), by
// lane. The instructions of Q4KR4DotprodTile's C++ loop (a 64-byte load, four and, four ushr, per
// activation row one 32-byte load, a zeroing, eight sdot and one mla) in one asm statement
// scheduled for in-order cores: the four rows' chains interleaved (a row's next sdot four
// instructions after its previous one), the high nibbles' shifts between the low nibbles' sdot.
// (GCC, left to schedule the intrinsics, emitted each row's eight sdot in one run.)
inline void Step4(const uint8_t* w, const int8_t* const x[4], uint8x16_t m4, int32x4_t scl,
                  int32x4_t isum[4]) {
  uint8x16x4_t raw;
  int8x16x2_t y0, y1, y2, y3;
  int8x16_t q0, q1, q2, q3;
  int32x4_t p0, p1, p2, p3;
  asm("ld1 {%S[raw].16b - %V[raw].16b}, [%[w]]\n\t" EDGEQ_K4_LDX(y0, x0) EDGEQ_K4_LDX(
          y1, x1) EDGEQ_K4_AND(q0, S) EDGEQ_K4_ZERO(p0) EDGEQ_K4_LDX(y2, x2) EDGEQ_K4_AND(q1, T)
          EDGEQ_K4_ZERO(p1) EDGEQ_K4_LDX(y3, x3) EDGEQ_K4_AND(q2, U) EDGEQ_K4_ZERO(p2)
              EDGEQ_K4_AND(q3, V) EDGEQ_K4_ZERO(p3) EDGEQ_K4_WORD("%[q0]", S, 0) EDGEQ_K4_USHR(S)
                  EDGEQ_K4_WORD("%[q1]", S, 1) EDGEQ_K4_USHR(T) EDGEQ_K4_WORD("%[q2]", S, 2)
                      EDGEQ_K4_USHR(U) EDGEQ_K4_WORD("%[q3]", S, 3) EDGEQ_K4_USHR(V)
                          EDGEQ_K4_WORD("%S[raw]", T, 0) EDGEQ_K4_WORD("%T[raw]", T, 1)
                              EDGEQ_K4_WORD("%U[raw]", T, 2) EDGEQ_K4_WORD("%V[raw]", T, 3)
                                  EDGEQ_K4_MLA(i0, p0) EDGEQ_K4_MLA(i1, p1) EDGEQ_K4_MLA(i2, p2)
                                      EDGEQ_K4_MLA(i3, p3)
      : [raw] "=&w"(raw), [y0] "=&w"(y0), [y1] "=&w"(y1), [y2] "=&w"(y2), [y3] "=&w"(y3),
        [q0] "=&w"(q0), [q1] "=&w"(q1), [q2] "=&w"(q2), [q3] "=&w"(q3), [p0] "=&w"(p0),
        [p1] "=&w"(p1), [p2] "=&w"(p2), [p3] "=&w"(p3), [i0] "+w"(isum[0]), [i1] "+w"(isum[1]),
        [i2] "+w"(isum[2]), [i3] "+w"(isum[3])
      : [w] "r"(w), [x0] "r"(x[0]), [x1] "r"(x[1]), [x2] "r"(x[2]), [x3] "r"(x[3]), [m4] "w"(m4),
        [scl] "w"(scl)
      : "memory");
}
#undef EDGEQ_K4_SDOT
#undef EDGEQ_K4_WORD
#undef EDGEQ_K4_AND
#undef EDGEQ_K4_USHR
#undef EDGEQ_K4_LDX
#undef EDGEQ_K4_ZERO
#undef EDGEQ_K4_MLA

// One instruction of Step1's schedule: sdot by element of weight register R of tuple W (a: the
// first sub-block's 64 bytes, b: the second's) against word c of register H of activations Y.
#define EDGEQ_K1_SDOT(p, R, W, Y, H, c) \
  "sdot %[" #p "].4s, %" #R "[" #W "].16b, %" #H "[" #Y "].4b[" #c "]\n\t"
#define EDGEQ_K1_AND(q, R, W) "and %" #R "[" #q "].16b, %" #R "[" #W "].16b, %[m4].16b\n\t"
#define EDGEQ_K1_USHR(R, W) "ushr %" #R "[" #W "].16b, %" #R "[" #W "].16b, #4\n\t"
// Word c (register R) of both sub-blocks, low and high nibbles: two chains, one per sub-block.
#define EDGEQ_K1_WORD(R, c)          \
  EDGEQ_K1_SDOT(pa, R, qa, ya, S, c) \
  EDGEQ_K1_SDOT(pb, R, qb, yb, S, c) \
  EDGEQ_K1_SDOT(pa, R, wa, ya, T, c) EDGEQ_K1_SDOT(pb, R, wb, yb, T, c)
// The next word's masks and shifts.
#define EDGEQ_K1_DECODE(R) \
  EDGEQ_K1_AND(qa, R, wa) EDGEQ_K1_AND(qb, R, wb) EDGEQ_K1_USHR(R, wa) EDGEQ_K1_USHR(R, wb)

// Two 32-value sub-blocks (w: the first one's 64 bytes, the second's follow) of four weight rows
// against one activation row (x: its 64 values): isum += scl[0] * (first sub-block's dots) +
// scl[1] * (second's), by lane. Two 64-byte loads of levels, eight and, eight ushr, two 32-byte
// loads, sixteen sdot in two chains from zero (one per sub-block: its low and its high nibbles'
// dots, so no add of two chains; out-of-order cores overlap the next step's chains with these),
// two mla, in one asm statement: the two chains interleaved, each next word's masks and shifts
// between them. The same int32 dots and sums as the C++ form (exact in any order).
inline void Step1(const uint8_t* w, const int8_t* x, uint8x16_t m4, const int32x4_t scl[2],
                  int32x4_t* isum) {
  uint8x16x4_t wa, wb, qa, qb;
  int8x16x2_t ya, yb;
  int32x4_t pa, pb;
  asm("ld1 {%S[wa].16b - %V[wa].16b}, [%[w]], #64\n\t"
      "ld1 {%S[ya].16b - %T[ya].16b}, [%[x]], #32\n\t"
      "ld1 {%S[wb].16b - %V[wb].16b}, [%[w]]\n\t"
      "ld1 {%S[yb].16b - %T[yb].16b}, [%[x]]\n\t"
      "movi %[pa].4s, #0\n\t"
      "movi %[pb].4s, #0\n\t" EDGEQ_K1_DECODE(S) EDGEQ_K1_WORD(S, 0) EDGEQ_K1_DECODE(T)
      EDGEQ_K1_WORD(T, 1) EDGEQ_K1_DECODE(U) EDGEQ_K1_WORD(U, 2) EDGEQ_K1_DECODE(V)
      EDGEQ_K1_WORD(V, 3)
      "mla %[i].4s, %[pa].4s, %[s0].4s\n\t"
      "mla %[i].4s, %[pb].4s, %[s1].4s\n\t"
      : [wa] "=&w"(wa), [wb] "=&w"(wb), [qa] "=&w"(qa), [qb] "=&w"(qb), [ya] "=&w"(ya),
        [yb] "=&w"(yb), [pa] "=&w"(pa), [pb] "=&w"(pb), [i] "+w"(*isum), [w] "+r"(w),
        [x] "+r"(x)
      : [m4] "w"(m4), [s0] "w"(scl[0]), [s1] "w"(scl[1])
      : "memory");
}
#undef EDGEQ_K1_SDOT
#undef EDGEQ_K1_AND
#undef EDGEQ_K1_USHR
#undef EDGEQ_K1_WORD
#undef EDGEQ_K1_DECODE

// Step1 scheduled for in-order cores (Cortex-A53/A55/A510; the GEMV's tile on those cores, chosen
// by ActiveCoreSchedule, isa.h), in fixed registers: v0-v3 / v4-v7 the two sub-blocks' 16-byte
// weight chunks (their high nibbles shifted in place), v8-v11 / v12-v15 their low nibbles, v16-v17
// / v18-v19 the activation's values 0-31 / 32-63, v20-v23 the four chains. Twelve 16-byte ldr with
// immediate offsets instead of 64- and 32-byte ld1 (on LLVM's Cortex-A55 model a 64-byte ld1 holds
// the next instructions for about 8 cycles); per word the next word's two masks before this word's
// four sdot and its two shifts after them (a mask or shift right after an sdot waits for the sdot's
// writeback). The same instructions otherwise, the same sums (pa + ha, pb + hb) and the same two
// multiply-adds in the same order: isum equals Step1's.
#define EDGEQ_K1IO_MASK(wa, wb, qa, qb) \
  "and v" qa ".16b, v" wa               \
  ".16b, %[m4].16b\n\t"                 \
  "and v" qb ".16b, v" wb ".16b, %[m4].16b\n\t"
#define EDGEQ_K1IO_SHIFT(wa, wb) \
  "ushr v" wa ".16b, v" wa       \
  ".16b, #4\n\t"                 \
  "ushr v" wb ".16b, v" wb ".16b, #4\n\t"
// Word c's four sdot: low nibbles (qa, qb) by values 0-15 / 32-47, high (wa, wb) by 16-31 / 48-63.
#define EDGEQ_K1IO_WORD(wa, wb, qa, qb, c) \
  "sdot v20.4s, v" qa ".16b, v16.4b[" c    \
  "]\n\t"                                  \
  "sdot v21.4s, v" qb ".16b, v18.4b[" c    \
  "]\n\t"                                  \
  "sdot v22.4s, v" wa ".16b, v17.4b[" c    \
  "]\n\t"                                  \
  "sdot v23.4s, v" wb ".16b, v19.4b[" c "]\n\t"
#define EDGEQ_K1IO_LDW(v, off) "ldr q" v ", [%[w], #" off "]\n\t"
#define EDGEQ_K1IO_LDX(v, off) "ldr q" v ", [%[x], #" off "]\n\t"

inline void Step1InOrder(const uint8_t* w, const int8_t* x, uint8x16_t m4, const int32x4_t scl[2],
                         int32x4_t* isum) {
  asm(EDGEQ_K1IO_LDW("0", "0") EDGEQ_K1IO_LDW("4", "64") EDGEQ_K1IO_LDX("16", "0") EDGEQ_K1IO_LDX(
          "18", "32") EDGEQ_K1IO_LDX("17", "16") EDGEQ_K1IO_LDX("19", "48") EDGEQ_K1IO_LDW("1", "16")
          EDGEQ_K1IO_LDW("5", "80") EDGEQ_K1IO_LDW("2", "32") EDGEQ_K1IO_LDW("6", "96")
              EDGEQ_K1IO_LDW("3", "48") EDGEQ_K1IO_LDW("7", "112")
      "movi v20.4s, #0\n\t"
      "movi v21.4s, #0\n\t"
      "movi v22.4s, #0\n\t"
      "movi v23.4s, #0\n\t" EDGEQ_K1IO_MASK("0", "4", "8", "12") EDGEQ_K1IO_SHIFT("0", "4")
          EDGEQ_K1IO_MASK("1", "5", "9", "13") EDGEQ_K1IO_WORD("0", "4", "8", "12", "0")
              EDGEQ_K1IO_SHIFT("1", "5") EDGEQ_K1IO_MASK("2", "6", "10", "14")
                  EDGEQ_K1IO_WORD("1", "5", "9", "13", "1") EDGEQ_K1IO_SHIFT("2", "6")
                      EDGEQ_K1IO_MASK("3", "7", "11", "15") EDGEQ_K1IO_WORD("2", "6", "10", "14", "2")
                          EDGEQ_K1IO_SHIFT("3", "7") EDGEQ_K1IO_WORD("3", "7", "11", "15", "3")
      "add v20.4s, v20.4s, v22.4s\n\t"
      "add v21.4s, v21.4s, v23.4s\n\t"
      "mla %[i].4s, v20.4s, %[s0].4s\n\t"
      "mla %[i].4s, v21.4s, %[s1].4s\n\t"
      : [i] "+w"(*isum)
      : [w] "r"(w), [x] "r"(x), [m4] "w"(m4), [s0] "w"(scl[0]), [s1] "w"(scl[1])
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "memory");
}
#undef EDGEQ_K1IO_MASK
#undef EDGEQ_K1IO_SHIFT
#undef EDGEQ_K1IO_WORD
#undef EDGEQ_K1IO_LDW
#undef EDGEQ_K1IO_LDX

// The four 32-bit scales of sub-block s of the four weight rows (bytes 16 + 4 s .. of the block).
inline int32x4_t SubBlockScales(const uint8_t* blk, int s) {
  const uint8x8_t b =
      vreinterpret_u8_u32(vld1_dup_u32(reinterpret_cast<const uint32_t*>(blk + 16 + 4 * s)));
  return vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(vmovl_u8(b))));
}

// The scales of sub-blocks s and s + 1 of the four rows (SubBlockScales(blk, s) and (blk, s + 1))
// from one 8-byte load: one widening to 16 bits, two to 32.
inline void SubBlockScalesPair(const uint8_t* blk, int s, int32x4_t scl[2]) {
  const uint16x8_t b = vmovl_u8(vld1_u8(blk + 16 + 4 * s));
  scl[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(b)));
  scl[1] = vreinterpretq_s32_u32(vmovl_high_u16(b));
}

// The end of super-block b for the tile's M activation rows (bx[i][b]) on in-order cores (the
// out-of-order tile's is Q4KR4FinishRows): acc[i] += isum[i] x d x x.d, then -= mins x dmin x x.d,
// where lane r of mins = sum_s mn[s][r] * (sum of x_s) by lane-indexed widening multiplies (the
// sums of x_s from the activation's bsums). The int32 mins are exact in any order, so the rows'
// chains go step by step (one row: two chains, sub-blocks 0-3 and 4-7), for in-order cores (one
// row's eight dependent multiply-adds after another's made them wait on each); each row's float
// operations are the same, in the same order.
template <int M>
inline void Q4KR4FinishInOrder(const uint8_t* blk, const blocks::BlockQ8_K* const bx[M], int64_t b,
                               const int32x4_t isum[M], float32x4_t acc[M]) {
  const uint8x16x2_t mn8 = vld1q_u8_x2(blk + 48);
  const int16x8_t mn16[4] = {vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(mn8.val[0]))),
                             vreinterpretq_s16_u16(vmovl_high_u8(mn8.val[0])),
                             vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(mn8.val[1]))),
                             vreinterpretq_s16_u16(vmovl_high_u8(mn8.val[1]))};
  int16x8_t sx[M];
  for (int i = 0; i < M; ++i)
    sx[i] = vpaddq_s16(vld1q_s16(bx[i][b].bsums), vld1q_s16(bx[i][b].bsums + 8));
  int32x4_t mins[M];
  if constexpr (M == 1) {  // two chains: sub-blocks 0-3 and 4-7
    int32x4_t hi = vmull_laneq_s16(vget_low_s16(mn16[2]), sx[0], 4);
    mins[0] = vmull_laneq_s16(vget_low_s16(mn16[0]), sx[0], 0);
    hi = vmlal_laneq_s16(hi, vget_high_s16(mn16[2]), sx[0], 5);
    mins[0] = vmlal_laneq_s16(mins[0], vget_high_s16(mn16[0]), sx[0], 1);
    hi = vmlal_laneq_s16(hi, vget_low_s16(mn16[3]), sx[0], 6);
    mins[0] = vmlal_laneq_s16(mins[0], vget_low_s16(mn16[1]), sx[0], 2);
    hi = vmlal_laneq_s16(hi, vget_high_s16(mn16[3]), sx[0], 7);
    mins[0] = vmlal_laneq_s16(mins[0], vget_high_s16(mn16[1]), sx[0], 3);
    mins[0] = vaddq_s32(mins[0], hi);
  } else {  // one chain per row, the rows step by step
    for (int i = 0; i < M; ++i) mins[i] = vmull_laneq_s16(vget_low_s16(mn16[0]), sx[i], 0);
    for (int i = 0; i < M; ++i)
      mins[i] = vmlal_laneq_s16(mins[i], vget_high_s16(mn16[0]), sx[i], 1);
    for (int i = 0; i < M; ++i) mins[i] = vmlal_laneq_s16(mins[i], vget_low_s16(mn16[1]), sx[i], 2);
    for (int i = 0; i < M; ++i)
      mins[i] = vmlal_laneq_s16(mins[i], vget_high_s16(mn16[1]), sx[i], 3);
    for (int i = 0; i < M; ++i) mins[i] = vmlal_laneq_s16(mins[i], vget_low_s16(mn16[2]), sx[i], 4);
    for (int i = 0; i < M; ++i)
      mins[i] = vmlal_laneq_s16(mins[i], vget_high_s16(mn16[2]), sx[i], 5);
    for (int i = 0; i < M; ++i) mins[i] = vmlal_laneq_s16(mins[i], vget_low_s16(mn16[3]), sx[i], 6);
    for (int i = 0; i < M; ++i)
      mins[i] = vmlal_laneq_s16(mins[i], vget_high_s16(mn16[3]), sx[i], 7);
  }
  const float32x4_t d = LoadHalf4(blk), dmin = LoadHalf4(blk + 8);
  for (int i = 0; i < M; ++i)
    acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(isum[i]), vmulq_n_f32(d, bx[i][b].d));
  for (int i = 0; i < M; ++i)
    acc[i] = vfmsq_f32(acc[i], vcvtq_f32_s32(mins[i]), vmulq_n_f32(dmin, bx[i][b].d));
}

// The same, row by row: each row's mins in one chain of eight multiply-adds, then its two float
// operations (fewer instructions; as fast on the out-of-order models).
template <int M>
inline void Q4KR4FinishRows(const uint8_t* blk, const blocks::BlockQ8_K* const bx[M], int64_t b,
                            const int32x4_t isum[M], float32x4_t acc[M]) {
  const uint8x16x2_t mn8 = vld1q_u8_x2(blk + 48);
  const int16x8_t mn16[4] = {vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(mn8.val[0]))),
                             vreinterpretq_s16_u16(vmovl_high_u8(mn8.val[0])),
                             vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(mn8.val[1]))),
                             vreinterpretq_s16_u16(vmovl_high_u8(mn8.val[1]))};
  const float32x4_t d = LoadHalf4(blk), dmin = LoadHalf4(blk + 8);
  for (int i = 0; i < M; ++i) {
    const blocks::BlockQ8_K& xb = bx[i][b];
    const int16x8_t s32 = vpaddq_s16(vld1q_s16(xb.bsums), vld1q_s16(xb.bsums + 8));
    int32x4_t mins = vmull_laneq_s16(vget_low_s16(mn16[0]), s32, 0);
    mins = vmlal_laneq_s16(mins, vget_high_s16(mn16[0]), s32, 1);
    mins = vmlal_laneq_s16(mins, vget_low_s16(mn16[1]), s32, 2);
    mins = vmlal_laneq_s16(mins, vget_high_s16(mn16[1]), s32, 3);
    mins = vmlal_laneq_s16(mins, vget_low_s16(mn16[2]), s32, 4);
    mins = vmlal_laneq_s16(mins, vget_high_s16(mn16[2]), s32, 5);
    mins = vmlal_laneq_s16(mins, vget_low_s16(mn16[3]), s32, 6);
    mins = vmlal_laneq_s16(mins, vget_high_s16(mn16[3]), s32, 7);
    acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(isum[i]), vmulq_n_f32(d, xb.d));
    acc[i] = vfmsq_f32(acc[i], vcvtq_f32_s32(mins), vmulq_n_f32(dmin, xb.d));
  }
}

// Q4_KR4 x Q8_K, GGML's math per row: per super-block sum_s sc[s] * (levels_s . x_s) times
// d * x.d, minus sum_s mn[s] * (sum of x_s) times dmin * x.d (s over the eight 32-value
// sub-blocks; the sums of x_s from the activation's bsums). Lane r of every vector is weight row
// r. Per sub-block: one 64-byte load of the four rows' levels, four and + four ushr (words 0-3 and
// 4-7 of each row), then per activation row one 32-byte load, eight sdot by element and one
// multiply-add by the four rows' scales (M = 4: Step4; fewer rows: two accumulators per row, the
// low and the high nibbles' chains). Exact int32: |levels . x| <= 32 * 15 * 127 per sub-block,
// times a scale <= 63, over 8 sub-blocks is < 2^25.
template <bool kInOrder>
struct Q4KR4DotprodTileFor {
  static constexpr int kTileRows = 4;
  template <int M>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float32x4_t out[M]) {
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const uint8_t* blk = w + b * kQ4KR4BlockBytes;
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      for (int s = 0; s < 8; ++s) {
        const int32x4_t scl = SubBlockScales(blk, s);
        if constexpr (M == 4) {
          const int8_t* xs[4];
          for (int i = 0; i < 4; ++i) xs[i] = bx[i][b].qs + 32 * s;
          Step4(blk + 80 + 64 * s, xs, m4, scl, isum);
          continue;
        }
        if constexpr (M == 1) {  // two sub-blocks per step
          if constexpr (kInOrder) {
            const int32x4_t scl2[2] = {scl, SubBlockScales(blk, s + 1)};
            Step1InOrder(blk + 80 + 64 * s, bx[0][b].qs + 32 * s, m4, scl2, &isum[0]);
          } else {
            int32x4_t scl2[2];
            SubBlockScalesPair(blk, s, scl2);
            Step1(blk + 80 + 64 * s, bx[0][b].qs + 32 * s, m4, scl2, &isum[0]);
          }
          ++s;
          continue;
        }
        const uint8x16x4_t raw = vld1q_u8_x4(blk + 80 + 64 * s);
        for (int i = 0; i < M; ++i) {
          const int8x16x2_t xv = vld1q_s8_x2(bx[i][b].qs + 32 * s);
          int32x4_t lo = vdupq_n_s32(0), hi = vdupq_n_s32(0);
          for (int c = 0; c < 4; ++c) {
            lo = SdotLane(lo, vreinterpretq_s8_u8(vandq_u8(raw.val[c], m4)), xv.val[0], c);
            hi = SdotLane(hi, vreinterpretq_s8_u8(vshrq_n_u8(raw.val[c], 4)), xv.val[1], c);
          }
          isum[i] = vmlaq_s32(isum[i], vaddq_s32(lo, hi), scl);
        }
      }
      if constexpr (kInOrder) {
        Q4KR4FinishInOrder<M>(blk, bx, b, isum, acc);
      } else {
        Q4KR4FinishRows<M>(blk, bx, b, isum, acc);
      }
    }
    for (int i = 0; i < M; ++i) out[i] = acc[i];
  }
};

// The out-of-order schedule (Step1 and Q4KR4FinishRows) and the in-order one (Step1InOrder and
// Q4KR4FinishInOrder): the same int32 sums and the same float operations in the same order, so
// bit-identical outputs.
using Q4KR4DotprodTile = Q4KR4DotprodTileFor<false>;
using Q4KR4DotprodInOrderTile = Q4KR4DotprodTileFor<true>;

// The q4_k dotprod GEMV and GEMM (i8mm CPUs run the smmla GEMM of q4_k_i8mm.cc), one schedule per
// core type (ActiveCoreSchedule, isa.h): out-of-order cores run Q4KR4DotprodTile (as fast there by
// llvm-mca, in fewer instructions: benchmarks/arm_sim/README.md, 2026-11-27 kgemv), in-order cores
// Q4KR4DotprodInOrderTile. Bit-identical outputs.
inline void Q4KR4DotprodGemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  if (ActiveCoreSchedule() == CoreSchedule::kInOrder) {
    R4Gemv<Q4KR4DotprodInOrderTile>(p, j0, j1);
  } else {
    R4Gemv<Q4KR4DotprodTile>(p, j0, j1);
  }
}
inline void Q4KR4DotprodGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  if (ActiveCoreSchedule() == CoreSchedule::kInOrder) {
    R4Gemm<Q4KR4DotprodInOrderTile, Q4KR4DotprodInOrderTile>(p, j0, j1);
  } else {
    R4Gemm<Q4KR4DotprodTile, Q4KR4DotprodTile>(p, j0, j1);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_Q4_K_R4_H_
