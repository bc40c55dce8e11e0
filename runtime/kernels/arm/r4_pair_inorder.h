// The q4_0 / q8_0 dotprod pair GEMM's schedule for in-order cores (Cortex-A53/A55; chosen by
// ActiveCoreSchedule, isa.h): R4SdotPairsInOrder runs the 4-pair tile of R4SdotPairs (r4_common.h:
// one block of four weight rows against 8 activation rows, sdot by element) as one asm loop over
// the blocks. Same instructions for the dots, the same int32 sums (converted by scvtf here, by the
// exact bias subtraction in R4SdotPairs: the same f32) and the same f32 operations in the same
// order (scale = d x dx, sum converted, one fused multiply-add per output vector): the outputs are
// bit-identical to R4SdotPairs'. What differs is the order, for LLVM's Cortex-A55
// model (benchmarks/arm_sim/README.md): there a 64-byte ld1 holds back the next instructions for
// about 8 cycles (in-order writeback) and a post-incremented load waits on its base register, while
// a 16-byte ldr with a register offset issues beside an sdot and fmla uses its own pipe. So every
// load is one 16-byte ldr from a fixed pointer plus an offset register, each activation register
// loaded a few sdot before its use (a ring of four); the first pair group's float stage runs among
// the second group's sdot, the next group's sums are zeroed among the first group's, the weight
// decode is grouped (a shift or mask right after an sdot would wait for its writeback), and the
// loop is rotated: the second group's float stage runs among the next block's loads.
// Other tile sizes (P = 1, 2) keep R4SdotPairs' code. Include only from files compiled with
// +dotprod.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_R4_PAIR_INORDER_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_R4_PAIR_INORDER_H_

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage, as r4_common.h's helpers.
namespace {

// The loop's registers: v0-v7 the block's eight weight chunks (W::Load's w[0..7]), v8-v11 and
// v12-v15 the int32 sums of pairs 0-1 and 2-3 (lane r: weight row r; two vectors per pair, its
// rows 0 and 1), v16-v19 a ring of activation registers, v20 the four rows' scales, v21-v22
// scratch; the accumulators %[c0]..%[c7] (out[2 p + t]) and the mask are the compiler's.
// Pair p's record of block b is at %[p0] + 80 b + p x unit (offsets: xzr, %[u1], x13, x14);
// %[p0], x9, x10, x11, x12 point at pair 0's 16-byte chunks 0-3 and its scales (Q8_0P,
// kernel_api.h); x15, x16, x17, x8 hold the weight chunks' offsets 8, 24, 40, 56 (from %[w], and
// for q8_0's second half from x7 = %[w] + 64).
//
// One block's weights: q4_0 (72 bytes: fp16 d[4], 64 bytes of nibbles; w[c] = chunk << 4,
// w[c + 4] = chunk & 0xF0), then pair 0-1's first activation chunks and their zeroed sums.
// One block's weights (q4_0, 72 bytes: fp16 d[4], 64 bytes of nibbles; w[c] = chunk << 4,
// w[c + 4] = chunk & 0xF0), pair 0-1's first activation chunks and their zeroed sums, with the
// previous block's pair 2-3 float stage (its scales' addresses in x5, x6) among the loads: the
// loop is rotated so that the scvtf and fmul there issue beside the loads (before the loop: sums 0,
// scales 0 from kZeros4; after it: EDGEQ_R4IO_TAIL).
#define EDGEQ_R4IO_Q4_0_WEIGHTS       \
  "ldr q21, [x5, xzr]\n\t"            \
  "ldr q22, [x6, xzr]\n\t"            \
  "scvtf v12.4s, v12.4s\n\t"          \
  "ldr q4, [%[w], x15]\n\t"           \
  "scvtf v13.4s, v13.4s\n\t"          \
  "ldr q5, [%[w], x16]\n\t"           \
  "scvtf v14.4s, v14.4s\n\t"          \
  "ldr q6, [%[w], x17]\n\t"           \
  "scvtf v15.4s, v15.4s\n\t"          \
  "ldr q7, [%[w], x8]\n\t"            \
  "fmul v8.4s, v20.4s, v21.s[0]\n\t"  \
  "ldr q16, [%[p0], xzr]\n\t"         \
  "fmul v9.4s, v20.4s, v21.s[2]\n\t"  \
  "ldr q17, [%[p0], %[u1]]\n\t"       \
  "fmul v10.4s, v20.4s, v22.s[0]\n\t" \
  "ldr q18, [x9, xzr]\n\t"            \
  "fmul v11.4s, v20.4s, v22.s[2]\n\t" \
  "ldr q19, [x9, %[u1]]\n\t"          \
  "ldr d20, [%[w], xzr]\n\t"          \
  "add %[w], %[w], #72\n\t"           \
  "shl v0.16b, v4.16b, #4\n\t"        \
  "fmla %[c4].4s, v12.4s, v8.4s\n\t"  \
  "shl v1.16b, v5.16b, #4\n\t"        \
  "fmla %[c5].4s, v13.4s, v9.4s\n\t"  \
  "shl v2.16b, v6.16b, #4\n\t"        \
  "fmla %[c6].4s, v14.4s, v10.4s\n\t" \
  "shl v3.16b, v7.16b, #4\n\t"        \
  "fmla %[c7].4s, v15.4s, v11.4s\n\t" \
  "and v4.16b, v4.16b, %[m].16b\n\t"  \
  "and v5.16b, v5.16b, %[m].16b\n\t"  \
  "and v6.16b, v6.16b, %[m].16b\n\t"  \
  "and v7.16b, v7.16b, %[m].16b\n\t"  \
  "ldr q8, [%[zero], xzr]\n\t"        \
  "ldr q9, [%[zero], xzr]\n\t"

// q8_0 (136 bytes: fp16 d[4], 128 bytes of levels; x7 = %[w] + 64), the same way.
#define EDGEQ_R4IO_Q8_0_WEIGHTS       \
  "ldr q21, [x5, xzr]\n\t"            \
  "ldr q22, [x6, xzr]\n\t"            \
  "scvtf v12.4s, v12.4s\n\t"          \
  "ldr q0, [%[w], x15]\n\t"           \
  "scvtf v13.4s, v13.4s\n\t"          \
  "ldr q1, [%[w], x16]\n\t"           \
  "scvtf v14.4s, v14.4s\n\t"          \
  "ldr q2, [%[w], x17]\n\t"           \
  "scvtf v15.4s, v15.4s\n\t"          \
  "ldr q3, [%[w], x8]\n\t"            \
  "fmul v8.4s, v20.4s, v21.s[0]\n\t"  \
  "ldr q4, [x7, x15]\n\t"             \
  "fmul v9.4s, v20.4s, v21.s[2]\n\t"  \
  "ldr q5, [x7, x16]\n\t"             \
  "fmul v10.4s, v20.4s, v22.s[0]\n\t" \
  "ldr q6, [x7, x17]\n\t"             \
  "fmul v11.4s, v20.4s, v22.s[2]\n\t" \
  "ldr q7, [x7, x8]\n\t"              \
  "ldr d20, [%[w], xzr]\n\t"          \
  "add %[w], %[w], #136\n\t"          \
  "add x7, x7, #136\n\t"              \
  "fmla %[c4].4s, v12.4s, v8.4s\n\t"  \
  "ldr q16, [%[p0], xzr]\n\t"         \
  "fmla %[c5].4s, v13.4s, v9.4s\n\t"  \
  "ldr q17, [%[p0], %[u1]]\n\t"       \
  "fmla %[c6].4s, v14.4s, v10.4s\n\t" \
  "ldr q18, [x9, xzr]\n\t"            \
  "fmla %[c7].4s, v15.4s, v11.4s\n\t" \
  "ldr q19, [x9, %[u1]]\n\t"          \
  "ldr q8, [%[zero], xzr]\n\t"        \
  "ldr q9, [%[zero], xzr]\n\t"

// The last block's pair 2-3 float stage.
#define EDGEQ_R4IO_TAIL               \
  "ldr q21, [x5, xzr]\n\t"            \
  "ldr q22, [x6, xzr]\n\t"            \
  "scvtf v12.4s, v12.4s\n\t"          \
  "scvtf v13.4s, v13.4s\n\t"          \
  "scvtf v14.4s, v14.4s\n\t"          \
  "scvtf v15.4s, v15.4s\n\t"          \
  "fmul v8.4s, v20.4s, v21.s[0]\n\t"  \
  "fmul v9.4s, v20.4s, v21.s[2]\n\t"  \
  "fmul v10.4s, v20.4s, v22.s[0]\n\t" \
  "fmul v11.4s, v20.4s, v22.s[2]\n\t" \
  "fmla %[c4].4s, v12.4s, v8.4s\n\t"  \
  "fmla %[c5].4s, v13.4s, v9.4s\n\t"  \
  "fmla %[c6].4s, v14.4s, v10.4s\n\t" \
  "fmla %[c7].4s, v15.4s, v11.4s\n\t"

// Both pair groups' 64 sdot (each group's four chains interleaved, SdotGroup's order), the ring
// loads, group 1's float stage among group 2's sdot, group 2's at the end, the pointers' steps.
#define EDGEQ_R4IO_PAIRS               \
  "ldr q10, [%[zero], xzr]\n\t"        \
  "ldr q11, [%[zero], xzr]\n\t"        \
  "fcvtl v20.4s, v20.4h\n\t"           \
  "sdot v8.4s, v0.16b, v16.4b[0]\n\t"  \
  "sdot v9.4s, v0.16b, v16.4b[2]\n\t"  \
  "ldr q12, [%[zero], xzr]\n\t"        \
  "sdot v10.4s, v0.16b, v17.4b[0]\n\t" \
  "sdot v11.4s, v0.16b, v17.4b[2]\n\t" \
  "ldr q13, [%[zero], xzr]\n\t"        \
  "sdot v8.4s, v1.16b, v16.4b[1]\n\t"  \
  "sdot v9.4s, v1.16b, v16.4b[3]\n\t"  \
  "ldr q16, [x10, xzr]\n\t"            \
  "sdot v10.4s, v1.16b, v17.4b[1]\n\t" \
  "sdot v11.4s, v1.16b, v17.4b[3]\n\t" \
  "ldr q17, [x10, %[u1]]\n\t"          \
  "sdot v8.4s, v2.16b, v18.4b[0]\n\t"  \
  "sdot v9.4s, v2.16b, v18.4b[2]\n\t"  \
  "ldr q14, [%[zero], xzr]\n\t"        \
  "sdot v10.4s, v2.16b, v19.4b[0]\n\t" \
  "sdot v11.4s, v2.16b, v19.4b[2]\n\t" \
  "ldr q15, [%[zero], xzr]\n\t"        \
  "sdot v8.4s, v3.16b, v18.4b[1]\n\t"  \
  "sdot v9.4s, v3.16b, v18.4b[3]\n\t"  \
  "ldr q18, [x11, xzr]\n\t"            \
  "sdot v10.4s, v3.16b, v19.4b[1]\n\t" \
  "sdot v11.4s, v3.16b, v19.4b[3]\n\t" \
  "ldr q19, [x11, %[u1]]\n\t"          \
  "sdot v8.4s, v4.16b, v16.4b[0]\n\t"  \
  "sdot v9.4s, v4.16b, v16.4b[2]\n\t"  \
  "sdot v10.4s, v4.16b, v17.4b[0]\n\t" \
  "sdot v11.4s, v4.16b, v17.4b[2]\n\t" \
  "sdot v8.4s, v5.16b, v16.4b[1]\n\t"  \
  "sdot v9.4s, v5.16b, v16.4b[3]\n\t"  \
  "ldr q16, [%[p0], x13]\n\t"          \
  "sdot v10.4s, v5.16b, v17.4b[1]\n\t" \
  "sdot v11.4s, v5.16b, v17.4b[3]\n\t" \
  "ldr q17, [%[p0], x14]\n\t"          \
  "sdot v8.4s, v6.16b, v18.4b[0]\n\t"  \
  "sdot v9.4s, v6.16b, v18.4b[2]\n\t"  \
  "sdot v10.4s, v6.16b, v19.4b[0]\n\t" \
  "sdot v11.4s, v6.16b, v19.4b[2]\n\t" \
  "sdot v8.4s, v7.16b, v18.4b[1]\n\t"  \
  "sdot v9.4s, v7.16b, v18.4b[3]\n\t"  \
  "ldr q18, [x9, x13]\n\t"             \
  "sdot v10.4s, v7.16b, v19.4b[1]\n\t" \
  "sdot v11.4s, v7.16b, v19.4b[3]\n\t" \
  "ldr q19, [x9, x14]\n\t"             \
  "sdot v12.4s, v0.16b, v16.4b[0]\n\t" \
  "sdot v13.4s, v0.16b, v16.4b[2]\n\t" \
  "sdot v14.4s, v0.16b, v17.4b[0]\n\t" \
  "sdot v15.4s, v0.16b, v17.4b[2]\n\t" \
  "ldr q21, [x12, xzr]\n\t"            \
  "sdot v12.4s, v1.16b, v16.4b[1]\n\t" \
  "sdot v13.4s, v1.16b, v16.4b[3]\n\t" \
  "scvtf v8.4s, v8.4s\n\t"             \
  "ldr q16, [x10, x13]\n\t"            \
  "sdot v14.4s, v1.16b, v17.4b[1]\n\t" \
  "scvtf v9.4s, v9.4s\n\t"             \
  "sdot v15.4s, v1.16b, v17.4b[3]\n\t" \
  "ldr q17, [x10, x14]\n\t"            \
  "fmul v22.4s, v20.4s, v21.s[0]\n\t"  \
  "sdot v12.4s, v2.16b, v18.4b[0]\n\t" \
  "sdot v13.4s, v2.16b, v18.4b[2]\n\t" \
  "scvtf v10.4s, v10.4s\n\t"           \
  "sdot v14.4s, v2.16b, v19.4b[0]\n\t" \
  "sdot v15.4s, v2.16b, v19.4b[2]\n\t" \
  "fmla %[c0].4s, v8.4s, v22.4s\n\t"   \
  "sdot v12.4s, v3.16b, v18.4b[1]\n\t" \
  "sdot v13.4s, v3.16b, v18.4b[3]\n\t" \
  "fmul v8.4s, v20.4s, v21.s[2]\n\t"   \
  "ldr q18, [x11, x13]\n\t"            \
  "sdot v14.4s, v3.16b, v19.4b[1]\n\t" \
  "ldr q21, [x12, %[u1]]\n\t"          \
  "sdot v15.4s, v3.16b, v19.4b[3]\n\t" \
  "ldr q19, [x11, x14]\n\t"            \
  "scvtf v11.4s, v11.4s\n\t"           \
  "sdot v12.4s, v4.16b, v16.4b[0]\n\t" \
  "sdot v13.4s, v4.16b, v16.4b[2]\n\t" \
  "fmla %[c1].4s, v9.4s, v8.4s\n\t"    \
  "sdot v14.4s, v4.16b, v17.4b[0]\n\t" \
  "sdot v15.4s, v4.16b, v17.4b[2]\n\t" \
  "fmul v9.4s, v20.4s, v21.s[0]\n\t"   \
  "sdot v12.4s, v5.16b, v16.4b[1]\n\t" \
  "sdot v13.4s, v5.16b, v16.4b[3]\n\t" \
  "fmla %[c2].4s, v10.4s, v9.4s\n\t"   \
  "sdot v14.4s, v5.16b, v17.4b[1]\n\t" \
  "sdot v15.4s, v5.16b, v17.4b[3]\n\t" \
  "fmul v10.4s, v20.4s, v21.s[2]\n\t"  \
  "sdot v12.4s, v6.16b, v18.4b[0]\n\t" \
  "sdot v13.4s, v6.16b, v18.4b[2]\n\t" \
  "fmla %[c3].4s, v11.4s, v10.4s\n\t"  \
  "sdot v14.4s, v6.16b, v19.4b[0]\n\t" \
  "sdot v15.4s, v6.16b, v19.4b[2]\n\t" \
  "sdot v12.4s, v7.16b, v18.4b[1]\n\t" \
  "sdot v13.4s, v7.16b, v18.4b[3]\n\t" \
  "sdot v14.4s, v7.16b, v19.4b[1]\n\t" \
  "sdot v15.4s, v7.16b, v19.4b[3]\n\t" \
  "add x5, x12, x13\n\t"               \
  "add x6, x12, x14\n\t"               \
  "add %[p0], %[p0], #80\n\t"          \
  "add x9, x9, #80\n\t"                \
  "add x10, x10, #80\n\t"              \
  "add x11, x11, #80\n\t"              \
  "add x12, x12, #80\n\t"              \
  "subs %[n], %[n], #1\n\t"            \
  "b.ne 1b\n\t"

// The sums are zeroed by loads of kZeros4 (a 16-byte ldr with a register offset issues beside an
// sdot on the Cortex-A55 model, where a movi costs a cycle): llvm-mca-19 -mcpu=cortex-a55, q4_0
// loop 112 -> 106 cycles per block. (The out-of-order tile's biased sums, r4_common.h, would cost
// more here: fsub issues no better than scvtf.)
alignas(16) constexpr int32_t kZeros4[4] = {0, 0, 0, 0};

// acc[2 p + t] += the four weight rows' dots with row t of pair p, over nb blocks (nb >= 1).
// (GCC allows 30 asm operands, a "+" one counting twice: the pointers and offsets other than
// %[p0], %[w] and %[u1] live in clobbered registers set up before the loop.)
template <bool kQ8>
inline void R4PairsInOrderLoop(const uint8_t* w, const uint8_t* x, size_t unit_bytes, int64_t nb,
                               float32x4_t acc[8]) {
  const int64_t u1 = static_cast<int64_t>(unit_bytes);
  float32x4_t c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3];
  float32x4_t c4 = acc[4], c5 = acc[5], c6 = acc[6], c7 = acc[7];
  const uint8_t* p0 = x;
  int64_t n = nb;
#define EDGEQ_R4IO_SETUP        \
  "add x9, %[p0], #16\n\t"      \
  "add x10, %[p0], #32\n\t"     \
  "add x11, %[p0], #48\n\t"     \
  "add x12, %[p0], #64\n\t"     \
  "add x13, %[u1], %[u1]\n\t"   \
  "add x14, x13, %[u1]\n\t"     \
  "mov x15, #8\n\t"             \
  "mov x16, #24\n\t"            \
  "mov x17, #40\n\t"            \
  "mov x8, #56\n\t"             \
  "mov x5, %[zero]\n\t"         \
  "mov x6, %[zero]\n\t"         \
  "ldr q12, [%[zero], xzr]\n\t" \
  "ldr q13, [%[zero], xzr]\n\t" \
  "ldr q14, [%[zero], xzr]\n\t" \
  "ldr q15, [%[zero], xzr]\n\t" \
  "ldr q20, [%[zero], xzr]\n\t"
#define EDGEQ_R4IO_OUTPUTS                                                                  \
  [c0] "+w"(c0), [c1] "+w"(c1), [c2] "+w"(c2), [c3] "+w"(c3), [c4] "+w"(c4), [c5] "+w"(c5), \
      [c6] "+w"(c6), [c7] "+w"(c7), [w] "+r"(w), [p0] "+r"(p0), [n] "+r"(n)
#define EDGEQ_R4IO_CLOBBERS                                                                    \
  "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "v0",  \
      "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", \
      "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "cc", "memory"
  if constexpr (kQ8) {
    asm(EDGEQ_R4IO_SETUP "add x7, %[w], #64\n\t"
                         "1:\n\t" EDGEQ_R4IO_Q8_0_WEIGHTS EDGEQ_R4IO_PAIRS EDGEQ_R4IO_TAIL
:EDGEQ_R4IO_OUTPUTS
        : [u1] "r"(u1), [zero] "r"(kZeros4)
        : EDGEQ_R4IO_CLOBBERS);
  } else {
    const int8x16_t m = vdupq_n_s8(static_cast<int8_t>(0xF0));
    asm(EDGEQ_R4IO_SETUP "1:\n\t" EDGEQ_R4IO_Q4_0_WEIGHTS EDGEQ_R4IO_PAIRS EDGEQ_R4IO_TAIL
:EDGEQ_R4IO_OUTPUTS
        : [u1] "r"(u1), [m] "w"(m), [zero] "r"(kZeros4)
        : EDGEQ_R4IO_CLOBBERS);
  }
#undef EDGEQ_R4IO_SETUP
#undef EDGEQ_R4IO_OUTPUTS
#undef EDGEQ_R4IO_CLOBBERS
  acc[0] = c0, acc[1] = c1, acc[2] = c2, acc[3] = c3;
  acc[4] = c4, acc[5] = c5, acc[6] = c6, acc[7] = c7;
}
#undef EDGEQ_R4IO_Q4_0_WEIGHTS
#undef EDGEQ_R4IO_Q8_0_WEIGHTS
#undef EDGEQ_R4IO_TAIL
#undef EDGEQ_R4IO_PAIRS

// R4SdotPairs<W> with the 4-pair tile scheduled for in-order cores (W: Q4_0R4Block or
// Q8_0R4Block).
template <typename W>
struct R4SdotPairsInOrder {
  static constexpr bool kQ8 = std::is_same<W, Q8_0R4Block>::value;
  static_assert(kQ8 || std::is_same<W, Q4_0R4Block>::value, "the asm loop decodes q4_0 or q8_0");

  template <int P>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                   float32x4_t out[2 * P]) {
    if constexpr (P != 4) {
      R4SdotPairs<W>::template Tile<P>(wg, x, unit_bytes, k, out);
    } else {
      float32x4_t acc[8];
      for (int t = 0; t < 8; ++t) acc[t] = vdupq_n_f32(0.0f);
      R4PairsInOrderLoop<kQ8>(wg, x, unit_bytes, k / 32, acc);
      for (int t = 0; t < 8; ++t) out[t] = OutScaled<W>(acc[t]);
    }
  }
};

// The dotprod pair GEMM of q4_0 / q8_0, one schedule per core type (ActiveCoreSchedule, isa.h):
// out-of-order cores run R4SdotPairs (modelled as fast or faster there: its 64-byte loads are fewer
// instructions), in-order cores R4SdotPairsInOrder. Bit-identical outputs.
template <typename W>
void R4DotprodPairGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  if (ActiveCoreSchedule() == CoreSchedule::kInOrder) {
    R4PairGemm<R4SdotPairsInOrder<W>>(p, j0, j1);
  } else {
    R4PairGemm<R4SdotPairs<W>>(p, j0, j1);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_R4_PAIR_INORDER_H_
