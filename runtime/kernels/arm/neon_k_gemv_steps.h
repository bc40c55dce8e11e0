// The asm steps of the NEON-only (no dotprod) q4_k and q6_k GEMVs, scheduled for in-order cores:
// K45Tile<Q4_KLevels, NeonDot16>::Tile<1, true> and Q6KTile<NeonDot16>::Tile<1, true>
// (arm_common.h) run them; neon_k_gemv_test checks them against the C++ steps bit for bit.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_NEON_K_GEMV_STEPS_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_NEON_K_GEMV_STEPS_H_

#include <arm_neon.h>

#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage, as arm_common.h's helpers: each kernel file keeps its own copy.
namespace {

// The four 64-value steps of K45Tile<Q4_KLevels, NeonDot16>::Tile<1, true> (the q4_k GEMV of CPUs
// without dotprod) over one super-block in one asm statement, scheduled for in-order cores
// (Cortex-A53/A55): per 64 values j the instructions of the C++ step (and / ushr of the two 16-byte
// weight chunks, Dot2Small's four smull / smlal2, add and saddlp for sub-blocks 2 j and 2 j + 1,
// one addp, one mla by scl[j]), the same int32 lanes in *isum (int32 addition is exact in any
// order). The loads are 16-byte ldr with immediate offsets (on LLVM's Cortex-A55 model a 64-byte
// ld1 holds the next instructions for 8 cycles, an ldp of two q registers for 6), and the four
// steps are interleaved in two register sets (v0-v7 / v16-v19 for even j, v8-v15 / v20-v23 for odd
// j) in the order that a search over dependency-preserving moves found fastest on llvm-mca's
// Cortex-A55 and A510 models: 95 and 68 modelled cycles for these 96 instructions, against 127 and
// 106 for the steps one after another. qs: the block's 128 bytes of nibbles; x: the activation's
// 256 int8 values.
inline void Q4KNeonDots256(const uint8_t* qs, const int8_t* x, uint8x16_t m4,
                           const int32x4_t scl[4], int32x4_t* isum) {
  asm("ldr q1, [%[w], #16]\n\tldr q0, [%[w]]\n\t"
      "ldr q6, [%[x], #32]\n\tldr q12, [%[x], #64]\n\t"
      "and v3.16b, v1.16b, %[m4].16b\n\tand v2.16b, v0.16b, %[m4].16b\n\t"
      "ldr q7, [%[x], #48]\n\tldr q8, [%[w], #32]\n\t"
      "ushr v1.16b, v1.16b, #4\n\tldr q4, [%[x]]\n\t"
      "ldr q5, [%[x], #16]\n\tushr v0.16b, v0.16b, #4\n\t"
      "and v10.16b, v8.16b, %[m4].16b\n\tldr q9, [%[w], #48]\n\t"
      "smull v19.8h, v1.8b, v7.8b\n\tsmull v17.8h, v3.8b, v5.8b\n\t"
      "smull v16.8h, v2.8b, v4.8b\n\tsmull v18.8h, v0.8b, v6.8b\n\t"
      "ushr v8.16b, v8.16b, #4\n\tand v11.16b, v9.16b, %[m4].16b\n\t"
      "ldr q13, [%[x], #80]\n\tldr q14, [%[x], #96]\n\t"
      "smlal2 v17.8h, v3.16b, v5.16b\n\tsmlal2 v19.8h, v1.16b, v7.16b\n\t"
      "smlal2 v18.8h, v0.16b, v6.16b\n\tsmull v20.8h, v10.8b, v12.8b\n\t"
      "ldr q1, [%[w], #80]\n\tushr v9.16b, v9.16b, #4\n\t"
      "ldr q15, [%[x], #112]\n\tldr q0, [%[w], #64]\n\t"
      "smlal2 v16.8h, v2.16b, v4.16b\n\tsmull v22.8h, v8.8b, v14.8b\n\t"
      "smlal2 v20.8h, v10.16b, v12.16b\n\tsmull v21.8h, v11.8b, v13.8b\n\t"
      "smull v23.8h, v9.8b, v15.8b\n\tldr q6, [%[x], #160]\n\t"
      "ldr q7, [%[x], #176]\n\tand v2.16b, v0.16b, %[m4].16b\n\t"
      "ldr q4, [%[x], #128]\n\tadd v16.8h, v16.8h, v17.8h\n\t"
      "ushr v0.16b, v0.16b, #4\n\tand v3.16b, v1.16b, %[m4].16b\n\t"
      "ushr v1.16b, v1.16b, #4\n\tsmlal2 v23.8h, v9.16b, v15.16b\n\t"
      "smlal2 v22.8h, v8.16b, v14.16b\n\tldr q5, [%[x], #144]\n\t"
      "add v18.8h, v18.8h, v19.8h\n\tldr q15, [%[x], #240]\n\t"
      "smlal2 v21.8h, v11.16b, v13.16b\n\tsaddlp v16.4s, v16.8h\n\t"
      "saddlp v18.4s, v18.8h\n\tldr q8, [%[w], #96]\n\t"
      "smull v17.8h, v3.8b, v5.8b\n\tldr q9, [%[w], #112]\n\t"
      "addp v16.4s, v16.4s, v18.4s\n\tldr q13, [%[x], #208]\n\t"
      "add v20.8h, v20.8h, v21.8h\n\tldr q12, [%[x], #192]\n\t"
      "add v22.8h, v22.8h, v23.8h\n\tmla %[i].4s, v16.4s, %[s0].4s\n\t"
      "smull v16.8h, v2.8b, v4.8b\n\tsaddlp v22.4s, v22.8h\n\t"
      "ldr q14, [%[x], #224]\n\tsmull v18.8h, v0.8b, v6.8b\n\t"
      "smull v19.8h, v1.8b, v7.8b\n\tsmlal2 v16.8h, v2.16b, v4.16b\n\t"
      "saddlp v20.4s, v20.8h\n\tand v11.16b, v9.16b, %[m4].16b\n\t"
      "ushr v9.16b, v9.16b, #4\n\tand v10.16b, v8.16b, %[m4].16b\n\t"
      "ushr v8.16b, v8.16b, #4\n\tsmlal2 v19.8h, v1.16b, v7.16b\n\t"
      "smlal2 v18.8h, v0.16b, v6.16b\n\tsmull v21.8h, v11.8b, v13.8b\n\t"
      "addp v20.4s, v20.4s, v22.4s\n\tsmull v22.8h, v8.8b, v14.8b\n\t"
      "smull v23.8h, v9.8b, v15.8b\n\tsmlal2 v17.8h, v3.16b, v5.16b\n\t"
      "mla %[i].4s, v20.4s, %[s1].4s\n\tsmull v20.8h, v10.8b, v12.8b\n\t"
      "smlal2 v21.8h, v11.16b, v13.16b\n\tsmlal2 v22.8h, v8.16b, v14.16b\n\t"
      "add v16.8h, v16.8h, v17.8h\n\tadd v18.8h, v18.8h, v19.8h\n\t"
      "smlal2 v20.8h, v10.16b, v12.16b\n\tsaddlp v16.4s, v16.8h\n\t"
      "saddlp v18.4s, v18.8h\n\tsmlal2 v23.8h, v9.16b, v15.16b\n\t"
      "addp v16.4s, v16.4s, v18.4s\n\tadd v20.8h, v20.8h, v21.8h\n\t"
      "add v22.8h, v22.8h, v23.8h\n\tsaddlp v20.4s, v20.8h\n\t"
      "saddlp v22.4s, v22.8h\n\tmla %[i].4s, v16.4s, %[s2].4s\n\t"
      "addp v20.4s, v20.4s, v22.4s\n\tmla %[i].4s, v20.4s, %[s3].4s\n\t"
      : [i] "+w"(*isum)
      : [w] "r"(qs), [x] "r"(x), [m4] "w"(m4), [s0] "w"(scl[0]), [s1] "w"(scl[1]), [s2] "w"(scl[2]),
        [s3] "w"(scl[3])
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "memory");
}

// Values 128 n .. 128 n + 127 of Q6KTile<NeonDot16>::Tile<1, true> (the q6_k GEMV of CPUs without
// dotprod) in one asm statement, scheduled for in-order cores (Cortex-A53/A55): the instructions of
// the C++ step for hh = 0 and 1 (Q6KValues64Times4's shl / and, shl, sri and eor, the shift back to
// level - 32, GroupDots64Small's smull / smlal2 and pairwise adds, one mla by the group scales sa /
// sb), the same int32 lanes in *isum. The loads are 16-byte ldr with immediate offsets (LLVM's
// Cortex-A55 model holds the next instructions for 8 cycles after a 64-byte ld1); the two halves
// use v6-v15 and v16-v23 (hh = 1's top bit pairs 6-7 are qh itself, v4 / v5), and the order is the
// one a search over dependency-preserving moves found fastest on llvm-mca's Cortex-A55 and A510
// models: 81 and 62 modelled cycles for these 80 instructions, against 128 and 132 for the steps
// one after another. ql: 64 bytes of low nibbles, qh: 32 bytes of bit pairs, x: 128 activations.
inline void Q6KNeonDots128(const uint8_t* ql, const uint8_t* qh, const int8_t* x, int32x4_t sa,
                           int32x4_t sb, int32x4_t* isum) {
  asm("ldr q0, [%[ql]]\n\tldr q4, [%[qh]]\n\t"
      "ldr q3, [%[ql], #48]\n\tldr q1, [%[ql], #16]\n\t"
      "shl v14.16b, v0.16b, #4\n\tldr q5, [%[qh], #16]\n\t"
      "ldr q10, [%[x]]\n\tshl v6.16b, v4.16b, #6\n\t"
      "ldr q13, [%[x], #48]\n\tshl v16.16b, v4.16b, #2\n\t"
      "ldr q2, [%[ql], #32]\n\tldr q12, [%[x], #32]\n\t"
      "shl v7.16b, v5.16b, #6\n\tldr q19, [%[x], #80]\n\t"
      "sri v6.16b, v14.16b, #2\n\tshl v15.16b, v1.16b, #4\n\t"
      "ldr q11, [%[x], #16]\n\tshl v8.16b, v4.16b, #4\n\t"
      "shl v22.16b, v2.16b, #4\n\tand v1.16b, v1.16b, %[cf0].16b\n\t"
      "shl v9.16b, v5.16b, #4\n\teor v6.16b, v6.16b, %[c80].16b\n\t"
      "ldr q21, [%[x], #112]\n\tsri v7.16b, v15.16b, #2\n\t"
      "sri v8.16b, v22.16b, #2\n\tsshr v6.16b, v6.16b, #2\n\t"
      "shl v23.16b, v3.16b, #4\n\tand v3.16b, v3.16b, %[cf0].16b\n\t"
      "eor v7.16b, v7.16b, %[c80].16b\n\tand v0.16b, v0.16b, %[cf0].16b\n\t"
      "eor v8.16b, v8.16b, %[c80].16b\n\tshl v17.16b, v5.16b, #2\n\t"
      "ldr q20, [%[x], #96]\n\tsshr v7.16b, v7.16b, #2\n\t"
      "sshr v8.16b, v8.16b, #2\n\tand v2.16b, v2.16b, %[cf0].16b\n\t"
      "ldr q18, [%[x], #64]\n\tsri v17.16b, v1.16b, #2\n\t"
      "sri v16.16b, v0.16b, #2\n\tsri v9.16b, v23.16b, #2\n\t"
      "smull v14.8h, v6.8b, v10.8b\n\tsri v5.16b, v3.16b, #2\n\t"
      "sri v4.16b, v2.16b, #2\n\teor v16.16b, v16.16b, %[c80].16b\n\t"
      "eor v9.16b, v9.16b, %[c80].16b\n\teor v4.16b, v4.16b, %[c80].16b\n\t"
      "eor v5.16b, v5.16b, %[c80].16b\n\teor v17.16b, v17.16b, %[c80].16b\n\t"
      "sshr v16.16b, v16.16b, #2\n\tsshr v9.16b, v9.16b, #2\n\t"
      "sshr v5.16b, v5.16b, #2\n\tsmull v15.8h, v7.8b, v11.8b\n\t"
      "smlal2 v14.8h, v6.16b, v10.16b\n\tsmull v6.8h, v8.8b, v12.8b\n\t"
      "smull v10.8h, v9.8b, v13.8b\n\tsmlal2 v15.8h, v7.16b, v11.16b\n\t"
      "sshr v17.16b, v17.16b, #2\n\tsshr v4.16b, v4.16b, #2\n\t"
      "smlal2 v10.8h, v9.16b, v13.16b\n\tsmlal2 v6.8h, v8.16b, v12.16b\n\t"
      "smull v22.8h, v16.8b, v18.8b\n\taddp v14.8h, v14.8h, v15.8h\n\t"
      "addp v6.8h, v6.8h, v10.8h\n\tsmull v23.8h, v17.8b, v19.8b\n\t"
      "smlal2 v22.8h, v16.16b, v18.16b\n\tsmull v18.8h, v5.8b, v21.8b\n\t"
      "smull v16.8h, v4.8b, v20.8b\n\tsaddlp v6.4s, v6.8h\n\t"
      "saddlp v14.4s, v14.8h\n\tsmlal2 v18.8h, v5.16b, v21.16b\n\t"
      "smlal2 v23.8h, v17.16b, v19.16b\n\tsmlal2 v16.8h, v4.16b, v20.16b\n\t"
      "addp v22.8h, v22.8h, v23.8h\n\taddp v14.4s, v14.4s, v6.4s\n\t"
      "addp v16.8h, v16.8h, v18.8h\n\tsaddlp v22.4s, v22.8h\n\t"
      "mla %[i].4s, v14.4s, %[sa].4s\n\tsaddlp v16.4s, v16.8h\n\t"
      "addp v22.4s, v22.4s, v16.4s\n\tmla %[i].4s, v22.4s, %[sb].4s\n\t"
      : [i] "+w"(*isum)
      : [ql] "r"(ql), [qh] "r"(qh), [x] "r"(x), [c80] "w"(vdupq_n_u8(0x80)),
        [cf0] "w"(vdupq_n_u8(0xF0)), [sa] "w"(sa), [sb] "w"(sb)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "memory");
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_NEON_K_GEMV_STEPS_H_
