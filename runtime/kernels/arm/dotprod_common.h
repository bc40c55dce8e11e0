// Pieces of the dotprod kernels: the q4_0/q8_0 block dot and the 16-byte dot the K-quant row
// kernels of arm_common.h take (include it only from files compiled with +dotprod).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/arm_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// sdot: 4 int8 products per int32 lane (include only from files compiled with +dotprod).
struct DotprodDot {
  static inline int32x4_t Block(int8x16_t q0, int8x16_t q1, int8x16_t x0, int8x16_t x1) {
    return vdotq_s32(vdotq_s32(vdupq_n_s32(0), q0, x0), q1, x1);
  }
};

// One instruction of the Rows8 schedule (sdot: p += q_t . register t of the 4-register tuple y;
// ld1: the next row, the pointer advanced by the row stride).
#define EDGEQ_K_SDOT(p, t, y) "sdot %[" #p "].4s, %[q" #t "].16b, %" #t "[" #y "].16b\n\t"
#define EDGEQ_K_LD(y) "ld1 {%S[" #y "].16b - %V[" #y "].16b}, [%[x]], %[xrb]\n\t"
#define EDGEQ_K_ZERO(p) "movi %[" #p "].4s, #0\n\t"
#define EDGEQ_K_MLA(i, p) "mla %[" #i "].4s, %[" #p "].4s, %[scl].4s\n\t"

// The same 16-byte dot with sdot (for arm::K45Tile and arm::Q6KTile).
struct DotprodDot16 {
  static inline int32x4_t Acc(int32x4_t acc, int8x16_t a, int8x16_t b) {
    return vdotq_s32(acc, a, b);
  }
  // NeonDot16::Dot2Small's sum: two chained sdot from zero.
  static inline int32x4_t Dot2Small(int8x16_t a0, int8x16_t b0, int8x16_t a1, int8x16_t b1) {
    return vdotq_s32(vdotq_s32(vdupq_n_s32(0), a0, b0), a1, b1);
  }

  // The transposed K-quant tiles' 64-value step over 8 activation rows (Q8_KT, kTransposed; row
  // i's 64 values at x + i xrb): isum[i] += scl * (q[0] . row[0..15] + ... + q[3] . row[48..63])
  // by lanes, each row's four sdot chained from zero as GroupDots64<DotprodDot16, true> does: the
  // same instructions (one ld1 of 64 bytes, a zeroing, four sdot and one mla per row) and the
  // same int32 sums. Scheduled for in-order cores in one asm statement (GCC emits each row's
  // chain in one run, and an in-order core then waits on every sdot): three rows in flight in a
  // skewed order, a row's next sdot three instructions after its previous one, each row's ld1 as
  // soon as the row three before it has used its registers. The rows share one post-incremented
  // pointer (eight pointers would exceed asm's 30 operands; two statements of four rows, each
  // with its own pointers, spilled: 576 instructions per super-block instead of 473). Modelled by
  // llvm-mca-19 (benchmarks/arm_sim/README.md, q4_k super-block loop with the grouped scaling
  // below): Cortex-A55 1319 -> 828 cycles, A510 986 -> 551, A76 (A57 model) 258 -> 272, X2 and
  // Neoverse V2 unchanged.
  static constexpr bool kRows8 = true;
  static inline void Rows8(const int8x16_t q[4], const int8_t* x, size_t xrb, int32x4_t scl,
                           int32x4_t isum[8]) {
    int8x16x4_t y0, y1, y2;
    int32x4_t p0, p1, p2;
    asm(EDGEQ_K_LD(y0) EDGEQ_K_ZERO(p0) EDGEQ_K_LD(y1) EDGEQ_K_SDOT(p0, S, y0) EDGEQ_K_ZERO(p1)
            EDGEQ_K_LD(y2) EDGEQ_K_SDOT(p0, T, y0) EDGEQ_K_SDOT(p1, S, y1) EDGEQ_K_ZERO(p2)
                EDGEQ_K_SDOT(p0, U, y0) EDGEQ_K_SDOT(p1, T, y1) EDGEQ_K_SDOT(p2, S, y2)
                    EDGEQ_K_SDOT(p0, V, y0) EDGEQ_K_SDOT(p1, U, y1) EDGEQ_K_SDOT(p2, T, y2)
        // rows 3-5 into the registers of rows 0-2 as these finish
        EDGEQ_K_LD(y0) EDGEQ_K_MLA(i0, p0) EDGEQ_K_SDOT(p1, V, y1) EDGEQ_K_SDOT(p2, U, y2)
            EDGEQ_K_ZERO(p0) EDGEQ_K_LD(y1) EDGEQ_K_MLA(i1, p1) EDGEQ_K_SDOT(p2, V, y2)
                EDGEQ_K_SDOT(p0, S, y0) EDGEQ_K_ZERO(p1) EDGEQ_K_LD(y2) EDGEQ_K_MLA(i2, p2)
                    EDGEQ_K_SDOT(p0, T, y0) EDGEQ_K_SDOT(p1, S, y1) EDGEQ_K_ZERO(p2)
                        EDGEQ_K_SDOT(p0, U, y0) EDGEQ_K_SDOT(p1, T, y1) EDGEQ_K_SDOT(p2, S, y2)
                            EDGEQ_K_SDOT(p0, V, y0) EDGEQ_K_SDOT(p1, U, y1) EDGEQ_K_SDOT(p2, T, y2)
        // rows 6-7
        EDGEQ_K_LD(y0) EDGEQ_K_MLA(i3, p0) EDGEQ_K_SDOT(p1, V, y1) EDGEQ_K_SDOT(p2, U, y2)
            EDGEQ_K_ZERO(p0) EDGEQ_K_LD(y1) EDGEQ_K_MLA(i4, p1) EDGEQ_K_SDOT(p2, V, y2)
                EDGEQ_K_SDOT(p0, S, y0) EDGEQ_K_ZERO(p1) EDGEQ_K_MLA(i5, p2) EDGEQ_K_SDOT(p0, T, y0)
                    EDGEQ_K_SDOT(p1, S, y1) EDGEQ_K_SDOT(p0, U, y0) EDGEQ_K_SDOT(p1, T, y1)
                        EDGEQ_K_SDOT(p0, V, y0) EDGEQ_K_SDOT(p1, U, y1) EDGEQ_K_MLA(i6, p0)
                            EDGEQ_K_SDOT(p1, V, y1) EDGEQ_K_MLA(i7, p1)
        : [y0] "=&w"(y0), [y1] "=&w"(y1), [y2] "=&w"(y2), [p0] "=&w"(p0), [p1] "=&w"(p1),
          [p2] "=&w"(p2), [i0] "+w"(isum[0]), [i1] "+w"(isum[1]), [i2] "+w"(isum[2]),
          [i3] "+w"(isum[3]), [i4] "+w"(isum[4]), [i5] "+w"(isum[5]), [i6] "+w"(isum[6]),
          [i7] "+w"(isum[7]), [x] "+r"(x)
        : [qS] "w"(q[0]), [qT] "w"(q[1]), [qU] "w"(q[2]), [qV] "w"(q[3]), [scl] "w"(scl),
          [xrb] "r"(xrb)
        : "memory");
  }
};
#undef EDGEQ_K_SDOT
#undef EDGEQ_K_LD
#undef EDGEQ_K_ZERO
#undef EDGEQ_K_MLA

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_
