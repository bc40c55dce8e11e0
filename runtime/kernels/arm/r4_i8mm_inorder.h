// The q4_0 / q8_0 i8mm GEMM's 4-pair tile scheduled for in-order cores (Cortex-A510; chosen by
// ActiveCoreSchedule, isa.h, in r4_i8mm.h's R4I8mmGemm): R4I8mmInOrderLoop runs the block loop of
// R4I8mm<W>::TileByGroup<4> (r4_i8mm.h: four weight rows x four activation pairs, each pair group's
// 16 smmla in SmmlaGroup's order) as one asm loop over the blocks. The same smmla, the same int32
// sums, the same float operations in the same order per output (e = d x dx, the sum converted by
// scvtf, one fused multiply-add per block and output vector, then R4I8mm's Finish): bit-identical
// to R4I8mm's tile. What differs is the order, for LLVM 19's Cortex-A510 model
// (benchmarks/arm_sim/README.md, "in-order smmla tile"): there the core issues two instructions
// per cycle, an smmla's result is ready four cycles later, so a group's four chains run one smmla
// per cycle and leave one issue slot per cycle free; ld1 of one to four registers takes no issue
// slot of its own, while ldr q, a post-incremented load and an integer add right after an smmla
// each cost cycles. So:
// - every load is an ld1 (activations two registers at a time, group 1's sums zeroed by a 64-byte
//   ld1 of zeros, the four rows' f16 scales by one ld2r as {d0, d1, d0, d1} and {d2, d3, d2, d3}),
//   from pointers that advance once per block, their adds grouped (an add waits for the
//   instruction before it to write back);
// - the block's scaling stages are deferred into the free slots: group 1's sums are converted
//   among group 2's smmla and its pair 0 scaled after them; its pair 1 and all of group 2 are
//   scaled at the start of the next block, among the next block's weight decode (which waits on
//   its load), and after the last block;
// - the next group's activations are loaded a step ahead, into the registers the current group
//   has finished with, and group 2's sums zeroed (movi) among group 1's smmla.
// Registers: v0-v7 the block's weight operands (Z, Y below), v8-v11 group 1's sums (S1), v12-v15
// group 2's activation chunks 0-1 and then the scales (S2 / T), v16-v19 group 1's chunks 0-1 and
// then group 2's chunks 2-3 (S3), v20-v23 group 1's chunks 2-3 and then group 2's sums (S4); the
// accumulators %[c0]..%[c7] (out's acc01/acc23 of pairs 0..3) are left to the compiler, which has
// v24-v31 for them. x0-x3 point at pair p's record (chunks 0-1), x4-x7 at its chunks 2-3, x8, x9,
// x16, x17 at its scales, x11 (and x12 for q8_0's second half) at the block's weight chunks,
// %[w] at the block (its scales). Per block the loop runs TOP (the weight decode and the previous
// block's deferred scaling), then AB (both groups' smmla); the first block's TOP0 has no deferred
// scaling, and FINISH does the last block's. q8_0's zip goes through v12 (free at that point).
// Included by r4_i8mm.h (R4I8mmInOrder); only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_INORDER_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_INORDER_H_

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage, as r4_common.h's helpers.
namespace {

// clang-format off
// Weight operands: q4_0 loads the 64 nibble bytes into v4-v7, zips chunks 0-1 and 2-3 (4s) and
// splits the nibbles (shl 4: values 8 h..; and with 0xF0, held in v12: values 16 + 8 h..):
// z01 = {v2, v3, v0, v1}, z23 = {v6, v7, v4, v5}. q8_0 loads its 128 bytes into v0-v7 and zips
// them in place through v12 (8 zips and one mov): z01 = {v6, v0, v2, v4}, z23 = {v1, v3, v5, v7}.
#define EDGEQ_R4I8IO_Q4_0_TOP0 \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x11]\n\t" \
  "add x11, x11, #72\n\t" \
  "zip1 v0.4s, v4.4s, v5.4s\n\t" \
  "zip2 v4.4s, v4.4s, v5.4s\n\t" \
  "zip1 v1.4s, v6.4s, v7.4s\n\t" \
  "zip2 v5.4s, v6.4s, v7.4s\n\t" \
  "ld1 {v16.16b, v17.16b}, [x0]\n\t" \
  "ld1 {v18.16b, v19.16b}, [x1]\n\t" \
  "add x0, x0, #80\n\t" \
  "add x1, x1, #80\n\t" \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[z]]\n\t" \
  "movi v12.16b, #0xf0\n\t" \
  "shl v2.16b, v0.16b, #4\n\t" \
  "shl v6.16b, v4.16b, #4\n\t" \
  "shl v3.16b, v1.16b, #4\n\t" \
  "shl v7.16b, v5.16b, #4\n\t" \
  "and v0.16b, v0.16b, v12.16b\n\t" \
  "and v4.16b, v4.16b, v12.16b\n\t" \
  "and v1.16b, v1.16b, v12.16b\n\t" \
  "and v5.16b, v5.16b, v12.16b\n\t" \
  "ld1 {v20.16b, v21.16b}, [x4]\n\t" \
  "ld1 {v22.16b, v23.16b}, [x5]\n\t"

#define EDGEQ_R4I8IO_Q4_0_TOP \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x11]\n\t" \
  "ld1 {v8.4s}, [x16]\n\t" \
  "ld1 {v9.4s}, [x17]\n\t" \
  "fmul v16.4s, v13.4s, v15.4s\n\t" \
  "fmul v15.4s, v14.4s, v15.4s\n\t" \
  "scvtf v20.4s, v20.4s\n\t" \
  "scvtf v21.4s, v21.4s\n\t" \
  "scvtf v22.4s, v22.4s\n\t" \
  "scvtf v23.4s, v23.4s\n\t" \
  "zip1 v0.4s, v4.4s, v5.4s\n\t" \
  "zip2 v4.4s, v4.4s, v5.4s\n\t" \
  "fmla %[c2].4s, v10.4s, v16.4s\n\t" \
  "fmla %[c3].4s, v11.4s, v15.4s\n\t" \
  "zip1 v1.4s, v6.4s, v7.4s\n\t" \
  "zip2 v5.4s, v6.4s, v7.4s\n\t" \
  "fmul v15.4s, v13.4s, v8.4s\n\t" \
  "fmul v8.4s, v14.4s, v8.4s\n\t" \
  "fmul v17.4s, v13.4s, v9.4s\n\t" \
  "fmul v9.4s, v14.4s, v9.4s\n\t" \
  "movi v12.16b, #0xf0\n\t" \
  "shl v2.16b, v0.16b, #4\n\t" \
  "shl v6.16b, v4.16b, #4\n\t" \
  "shl v3.16b, v1.16b, #4\n\t" \
  "shl v7.16b, v5.16b, #4\n\t" \
  "and v0.16b, v0.16b, v12.16b\n\t" \
  "and v4.16b, v4.16b, v12.16b\n\t" \
  "and v1.16b, v1.16b, v12.16b\n\t" \
  "and v5.16b, v5.16b, v12.16b\n\t" \
  "fmla %[c4].4s, v20.4s, v15.4s\n\t" \
  "fmla %[c5].4s, v21.4s, v8.4s\n\t" \
  "fmla %[c6].4s, v22.4s, v17.4s\n\t" \
  "fmla %[c7].4s, v23.4s, v9.4s\n\t" \
  "ld1 {v16.16b, v17.16b}, [x0]\n\t" \
  "ld1 {v18.16b, v19.16b}, [x1]\n\t" \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[z]]\n\t" \
  "add x11, x11, #72\n\t" \
  "add x0, x0, #80\n\t" \
  "add x1, x1, #80\n\t" \
  "add x16, x16, #80\n\t" \
  "add x17, x17, #80\n\t" \
  "ld1 {v20.16b, v21.16b}, [x4]\n\t" \
  "ld1 {v22.16b, v23.16b}, [x5]\n\t"

#define EDGEQ_R4I8IO_Q4_0_AB \
  "smmla v8.4s, v16.16b, v2.16b\n\t" \
  "smmla v9.4s, v16.16b, v6.16b\n\t" \
  "smmla v10.4s, v18.16b, v2.16b\n\t" \
  "ld1 {v12.16b, v13.16b}, [x2]\n\t" \
  "smmla v11.4s, v18.16b, v6.16b\n\t" \
  "smmla v8.4s, v17.16b, v3.16b\n\t" \
  "ld1 {v14.16b, v15.16b}, [x3]\n\t" \
  "smmla v9.4s, v17.16b, v7.16b\n\t" \
  "smmla v10.4s, v19.16b, v3.16b\n\t" \
  "smmla v11.4s, v19.16b, v7.16b\n\t" \
  "smmla v8.4s, v20.16b, v0.16b\n\t" \
  "smmla v9.4s, v20.16b, v4.16b\n\t" \
  "ld1 {v16.16b, v17.16b}, [x6]\n\t" \
  "movi v20.4s, #0\n\t" \
  "smmla v10.4s, v22.16b, v0.16b\n\t" \
  "smmla v11.4s, v22.16b, v4.16b\n\t" \
  "ld1 {v18.16b, v19.16b}, [x7]\n\t" \
  "movi v22.4s, #0\n\t" \
  "smmla v8.4s, v21.16b, v1.16b\n\t" \
  "smmla v9.4s, v21.16b, v5.16b\n\t" \
  "movi v21.4s, #0\n\t" \
  "smmla v10.4s, v23.16b, v1.16b\n\t" \
  "smmla v11.4s, v23.16b, v5.16b\n\t" \
  "movi v23.4s, #0\n\t" \
  "smmla v20.4s, v12.16b, v2.16b\n\t" \
  "scvtf v8.4s, v8.4s\n\t" \
  "smmla v21.4s, v12.16b, v6.16b\n\t" \
  "scvtf v9.4s, v9.4s\n\t" \
  "smmla v22.4s, v14.16b, v2.16b\n\t" \
  "ld1 {v12.4s}, [x8]\n\t" \
  "smmla v23.4s, v14.16b, v6.16b\n\t" \
  "scvtf v10.4s, v10.4s\n\t" \
  "smmla v20.4s, v13.16b, v3.16b\n\t" \
  "scvtf v11.4s, v11.4s\n\t" \
  "smmla v21.4s, v13.16b, v7.16b\n\t" \
  "ld2r {v13.2s, v14.2s}, [%[w]]\n\t" \
  "smmla v22.4s, v15.16b, v3.16b\n\t" \
  "smmla v23.4s, v15.16b, v7.16b\n\t" \
  "smmla v20.4s, v16.16b, v0.16b\n\t" \
  "ld1 {v15.4s}, [x9]\n\t" \
  "smmla v21.4s, v16.16b, v4.16b\n\t" \
  "fcvtl v13.4s, v13.4h\n\t" \
  "smmla v22.4s, v18.16b, v0.16b\n\t" \
  "fcvtl v14.4s, v14.4h\n\t" \
  "smmla v23.4s, v18.16b, v4.16b\n\t" \
  "smmla v20.4s, v17.16b, v1.16b\n\t" \
  "smmla v21.4s, v17.16b, v5.16b\n\t" \
  "fmul v16.4s, v13.4s, v12.4s\n\t" \
  "smmla v22.4s, v19.16b, v1.16b\n\t" \
  "fmul v12.4s, v14.4s, v12.4s\n\t" \
  "smmla v23.4s, v19.16b, v5.16b\n\t" \
  "add x2, x2, #80\n\t" \
  "add x3, x3, #80\n\t" \
  "fmla %[c0].4s, v8.4s, v16.4s\n\t" \
  "fmla %[c1].4s, v9.4s, v12.4s\n\t" \
  "add x4, x4, #80\n\t" \
  "add x5, x5, #80\n\t" \
  "add x6, x6, #80\n\t" \
  "add x7, x7, #80\n\t" \
  "add %[w], %[w], #72\n\t" \
  "add x8, x8, #80\n\t" \
  "add x9, x9, #80\n\t"

#define EDGEQ_R4I8IO_Q8_0_TOP0 \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x11]\n\t" \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x12]\n\t" \
  "add x11, x11, #136\n\t" \
  "add x12, x12, #136\n\t" \
  "zip1 v12.4s, v0.4s, v1.4s\n\t" \
  "zip2 v1.4s, v0.4s, v1.4s\n\t" \
  "zip1 v0.4s, v2.4s, v3.4s\n\t" \
  "zip2 v3.4s, v2.4s, v3.4s\n\t" \
  "zip1 v2.4s, v4.4s, v5.4s\n\t" \
  "zip2 v5.4s, v4.4s, v5.4s\n\t" \
  "zip1 v4.4s, v6.4s, v7.4s\n\t" \
  "zip2 v7.4s, v6.4s, v7.4s\n\t" \
  "ld1 {v16.16b, v17.16b}, [x0]\n\t" \
  "ld1 {v18.16b, v19.16b}, [x1]\n\t" \
  "add x0, x0, #80\n\t" \
  "add x1, x1, #80\n\t" \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[z]]\n\t" \
  "mov v6.16b, v12.16b\n\t" \
  "ld1 {v20.16b, v21.16b}, [x4]\n\t" \
  "ld1 {v22.16b, v23.16b}, [x5]\n\t"

#define EDGEQ_R4I8IO_Q8_0_TOP \
  "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [x11]\n\t" \
  "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [x12]\n\t" \
  "ld1 {v8.4s}, [x16]\n\t" \
  "ld1 {v9.4s}, [x17]\n\t" \
  "fmul v16.4s, v13.4s, v15.4s\n\t" \
  "fmul v15.4s, v14.4s, v15.4s\n\t" \
  "scvtf v20.4s, v20.4s\n\t" \
  "scvtf v21.4s, v21.4s\n\t" \
  "scvtf v22.4s, v22.4s\n\t" \
  "scvtf v23.4s, v23.4s\n\t" \
  "zip1 v12.4s, v0.4s, v1.4s\n\t" \
  "zip2 v1.4s, v0.4s, v1.4s\n\t" \
  "zip1 v0.4s, v2.4s, v3.4s\n\t" \
  "zip2 v3.4s, v2.4s, v3.4s\n\t" \
  "fmla %[c2].4s, v10.4s, v16.4s\n\t" \
  "fmla %[c3].4s, v11.4s, v15.4s\n\t" \
  "zip1 v2.4s, v4.4s, v5.4s\n\t" \
  "zip2 v5.4s, v4.4s, v5.4s\n\t" \
  "zip1 v4.4s, v6.4s, v7.4s\n\t" \
  "zip2 v7.4s, v6.4s, v7.4s\n\t" \
  "fmul v15.4s, v13.4s, v8.4s\n\t" \
  "fmul v8.4s, v14.4s, v8.4s\n\t" \
  "fmul v17.4s, v13.4s, v9.4s\n\t" \
  "fmul v9.4s, v14.4s, v9.4s\n\t" \
  "mov v6.16b, v12.16b\n\t" \
  "fmla %[c4].4s, v20.4s, v15.4s\n\t" \
  "fmla %[c5].4s, v21.4s, v8.4s\n\t" \
  "fmla %[c6].4s, v22.4s, v17.4s\n\t" \
  "fmla %[c7].4s, v23.4s, v9.4s\n\t" \
  "ld1 {v16.16b, v17.16b}, [x0]\n\t" \
  "ld1 {v18.16b, v19.16b}, [x1]\n\t" \
  "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[z]]\n\t" \
  "add x11, x11, #136\n\t" \
  "add x12, x12, #136\n\t" \
  "add x0, x0, #80\n\t" \
  "add x1, x1, #80\n\t" \
  "add x16, x16, #80\n\t" \
  "add x17, x17, #80\n\t" \
  "ld1 {v20.16b, v21.16b}, [x4]\n\t" \
  "ld1 {v22.16b, v23.16b}, [x5]\n\t"

#define EDGEQ_R4I8IO_Q8_0_AB \
  "smmla v8.4s, v16.16b, v6.16b\n\t" \
  "smmla v9.4s, v16.16b, v1.16b\n\t" \
  "smmla v10.4s, v18.16b, v6.16b\n\t" \
  "ld1 {v12.16b, v13.16b}, [x2]\n\t" \
  "smmla v11.4s, v18.16b, v1.16b\n\t" \
  "smmla v8.4s, v17.16b, v0.16b\n\t" \
  "ld1 {v14.16b, v15.16b}, [x3]\n\t" \
  "smmla v9.4s, v17.16b, v3.16b\n\t" \
  "smmla v10.4s, v19.16b, v0.16b\n\t" \
  "smmla v11.4s, v19.16b, v3.16b\n\t" \
  "smmla v8.4s, v20.16b, v2.16b\n\t" \
  "smmla v9.4s, v20.16b, v5.16b\n\t" \
  "ld1 {v16.16b, v17.16b}, [x6]\n\t" \
  "movi v20.4s, #0\n\t" \
  "smmla v10.4s, v22.16b, v2.16b\n\t" \
  "smmla v11.4s, v22.16b, v5.16b\n\t" \
  "ld1 {v18.16b, v19.16b}, [x7]\n\t" \
  "movi v22.4s, #0\n\t" \
  "smmla v8.4s, v21.16b, v4.16b\n\t" \
  "smmla v9.4s, v21.16b, v7.16b\n\t" \
  "movi v21.4s, #0\n\t" \
  "smmla v10.4s, v23.16b, v4.16b\n\t" \
  "smmla v11.4s, v23.16b, v7.16b\n\t" \
  "movi v23.4s, #0\n\t" \
  "smmla v20.4s, v12.16b, v6.16b\n\t" \
  "scvtf v8.4s, v8.4s\n\t" \
  "smmla v21.4s, v12.16b, v1.16b\n\t" \
  "scvtf v9.4s, v9.4s\n\t" \
  "smmla v22.4s, v14.16b, v6.16b\n\t" \
  "ld1 {v12.4s}, [x8]\n\t" \
  "smmla v23.4s, v14.16b, v1.16b\n\t" \
  "scvtf v10.4s, v10.4s\n\t" \
  "smmla v20.4s, v13.16b, v0.16b\n\t" \
  "scvtf v11.4s, v11.4s\n\t" \
  "smmla v21.4s, v13.16b, v3.16b\n\t" \
  "ld2r {v13.2s, v14.2s}, [%[w]]\n\t" \
  "smmla v22.4s, v15.16b, v0.16b\n\t" \
  "smmla v23.4s, v15.16b, v3.16b\n\t" \
  "smmla v20.4s, v16.16b, v2.16b\n\t" \
  "ld1 {v15.4s}, [x9]\n\t" \
  "smmla v21.4s, v16.16b, v5.16b\n\t" \
  "fcvtl v13.4s, v13.4h\n\t" \
  "smmla v22.4s, v18.16b, v2.16b\n\t" \
  "fcvtl v14.4s, v14.4h\n\t" \
  "smmla v23.4s, v18.16b, v5.16b\n\t" \
  "smmla v20.4s, v17.16b, v4.16b\n\t" \
  "smmla v21.4s, v17.16b, v7.16b\n\t" \
  "fmul v16.4s, v13.4s, v12.4s\n\t" \
  "smmla v22.4s, v19.16b, v4.16b\n\t" \
  "fmul v12.4s, v14.4s, v12.4s\n\t" \
  "smmla v23.4s, v19.16b, v7.16b\n\t" \
  "add x2, x2, #80\n\t" \
  "add x3, x3, #80\n\t" \
  "fmla %[c0].4s, v8.4s, v16.4s\n\t" \
  "fmla %[c1].4s, v9.4s, v12.4s\n\t" \
  "add x4, x4, #80\n\t" \
  "add x5, x5, #80\n\t" \
  "add x6, x6, #80\n\t" \
  "add x7, x7, #80\n\t" \
  "add %[w], %[w], #136\n\t" \
  "add x8, x8, #80\n\t" \
  "add x9, x9, #80\n\t"

#define EDGEQ_R4I8IO_FINISH \
  "ld1 {v8.4s}, [x16]\n\t" \
  "ld1 {v9.4s}, [x17]\n\t" \
  "fmul v16.4s, v13.4s, v15.4s\n\t" \
  "fmul v15.4s, v14.4s, v15.4s\n\t" \
  "scvtf v20.4s, v20.4s\n\t" \
  "scvtf v21.4s, v21.4s\n\t" \
  "scvtf v22.4s, v22.4s\n\t" \
  "scvtf v23.4s, v23.4s\n\t" \
  "fmla %[c2].4s, v10.4s, v16.4s\n\t" \
  "fmla %[c3].4s, v11.4s, v15.4s\n\t" \
  "fmul v15.4s, v13.4s, v8.4s\n\t" \
  "fmul v8.4s, v14.4s, v8.4s\n\t" \
  "fmul v17.4s, v13.4s, v9.4s\n\t" \
  "fmul v9.4s, v14.4s, v9.4s\n\t" \
  "fmla %[c4].4s, v20.4s, v15.4s\n\t" \
  "fmla %[c5].4s, v21.4s, v8.4s\n\t" \
  "fmla %[c6].4s, v22.4s, v17.4s\n\t" \
  "fmla %[c7].4s, v23.4s, v9.4s\n\t"

// clang-format on

// acc[2 p] / acc[2 p + 1] (R4I8mm's acc01 / acc23 of pair p) += the block sums of the four weight
// rows with activation pair p, over nb >= 1 blocks.
template <bool kQ8>
inline void R4I8mmInOrderLoop(const uint8_t* w, const uint8_t* x, size_t unit_bytes, int64_t nb,
                              float32x4_t acc[8]) {
  alignas(16) static const int32_t kZeros[16] = {};
  const int64_t u = static_cast<int64_t>(unit_bytes);
  float32x4_t c0 = acc[0], c1 = acc[1], c2 = acc[2], c3 = acc[3];
  float32x4_t c4 = acc[4], c5 = acc[5], c6 = acc[6], c7 = acc[7];
  int64_t n = nb;
#define EDGEQ_R4I8IO_SETUP \
  "mov x0, %[x]\n\t"       \
  "add x1, x0, %[u]\n\t"   \
  "add x2, x1, %[u]\n\t"   \
  "add x3, x2, %[u]\n\t"   \
  "add x4, x0, #32\n\t"    \
  "add x5, x1, #32\n\t"    \
  "add x6, x2, #32\n\t"    \
  "add x7, x3, #32\n\t"    \
  "add x8, x0, #64\n\t"    \
  "add x9, x1, #64\n\t"    \
  "add x16, x2, #64\n\t"   \
  "add x17, x3, #64\n\t"   \
  "add x11, %[w], #8\n\t"  \
  "add x12, %[w], #72\n\t"
#define EDGEQ_R4I8IO_OUTPUTS                                                                \
  [c0] "+w"(c0), [c1] "+w"(c1), [c2] "+w"(c2), [c3] "+w"(c3), [c4] "+w"(c4), [c5] "+w"(c5), \
      [c6] "+w"(c6), [c7] "+w"(c7), [w] "+r"(w), [n] "+r"(n)
#define EDGEQ_R4I8IO_INPUTS [x] "r"(x), [u] "r"(u), [z] "r"(kZeros)
#define EDGEQ_R4I8IO_CLOBBERS                                                                   \
  "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x11", "x12", "x16", "x17", "v0", \
      "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14",  \
      "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "cc", "memory"
  if constexpr (kQ8) {
    asm(EDGEQ_R4I8IO_SETUP EDGEQ_R4I8IO_Q8_0_TOP0 EDGEQ_R4I8IO_Q8_0_AB
        "subs %[n], %[n], #1\n\t"
        "b.eq 2f\n\t"
        "1:\n\t" EDGEQ_R4I8IO_Q8_0_TOP EDGEQ_R4I8IO_Q8_0_AB "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        "2:\n\t" EDGEQ_R4I8IO_FINISH:EDGEQ_R4I8IO_OUTPUTS:EDGEQ_R4I8IO_INPUTS
        : EDGEQ_R4I8IO_CLOBBERS);
  } else {
    asm(EDGEQ_R4I8IO_SETUP EDGEQ_R4I8IO_Q4_0_TOP0 EDGEQ_R4I8IO_Q4_0_AB
        "subs %[n], %[n], #1\n\t"
        "b.eq 2f\n\t"
        "1:\n\t" EDGEQ_R4I8IO_Q4_0_TOP EDGEQ_R4I8IO_Q4_0_AB "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        "2:\n\t" EDGEQ_R4I8IO_FINISH:EDGEQ_R4I8IO_OUTPUTS:EDGEQ_R4I8IO_INPUTS
        : EDGEQ_R4I8IO_CLOBBERS);
  }
#undef EDGEQ_R4I8IO_SETUP
#undef EDGEQ_R4I8IO_OUTPUTS
#undef EDGEQ_R4I8IO_INPUTS
#undef EDGEQ_R4I8IO_CLOBBERS
  acc[0] = c0, acc[1] = c1, acc[2] = c2, acc[3] = c3;
  acc[4] = c4, acc[5] = c5, acc[6] = c6, acc[7] = c7;
}
#undef EDGEQ_R4I8IO_Q4_0_TOP0
#undef EDGEQ_R4I8IO_Q4_0_TOP
#undef EDGEQ_R4I8IO_Q4_0_AB
#undef EDGEQ_R4I8IO_Q8_0_TOP0
#undef EDGEQ_R4I8IO_Q8_0_TOP
#undef EDGEQ_R4I8IO_Q8_0_AB
#undef EDGEQ_R4I8IO_FINISH

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_INORDER_H_
