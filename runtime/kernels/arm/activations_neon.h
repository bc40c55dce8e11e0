// The activation quantizers of the ARM kernels with ARMv8-A NEON, byte-identical to the portable
// QuantizeRowQ8_0S / QuantizeRowQ8_1S / QuantizeRowQ8_K / QuantizeRowQ8_KT and the pair layouts
// Q8_0P / Q8_1P (GGML's quantize_row_q8_0 and quantize_row_q8_K math). Under qemu the portable loop
// spent about 22 instructions per value, a third of a small GEMM's count.
//
// One out-of-line definition each (activations_q8_0_neon.cc, activations_q8_k_neon.cc), built
// for -march=armv8-a, the NEON kernels' level, which every AArch64 CPU runs. The kernels only take
// their addresses (KernelEntry's quantizer), so a call costs what it did when every kernel file
// kept its own copy (15 copies of QuantizeRowQ8_KNeon; 24.8 KB of copies in the full aarch64
// library: README, "Footprint"). The names end in "Neon", the ISA they are built for, and no
// other file defines them: files built with different -march flags share no symbol (the linker
// could otherwise keep one file's copy of an inline function for every caller, e.g. an i8mm-built
// one on a NEON-only CPU).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_ACTIVATIONS_NEON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_ACTIVATIONS_NEON_H_

#include <arm_neon.h>

#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {

// A Q8_0S row (kernel_api.h: qs, fp16-rounded d, sums).
void QuantizeRowQ8_0SNeon(const float* x, int64_t k, uint8_t* out);
// Q8_1S: float s[nbp] (s = fp16(d * sum(q)) per block), then the Q8_0S row.
void QuantizeRowQ8_1SNeon(const float* x, int64_t k, uint8_t* out);
// GGML's quantize_row_q8_K (Q8_K), and the same values in Q8_KT order (kernel_api.h).
void QuantizeRowQ8_KNeon(const float* x, int64_t k, uint8_t* out);
void QuantizeRowQ8_KTNeon(const float* x, int64_t k, uint8_t* out);
// Q8_0P / Q8_1P (kernel_api.h): two rows (x1 null: zeros) interleaved 8 values at a time.
void QuantizePairQ8_0PNeon(const float* x0, const float* x1, int64_t k, uint8_t* out);
void QuantizePairQ8_1PNeon(const float* x0, const float* x1, int64_t k, uint8_t* out);

// Internal linkage: inlined into each kernel file (arm_common.h) with that file's flags.
namespace {

// The 4x4 transpose of 4-byte words: q[t] word g <- q[g] word t. On 64 decoded values (q[g] =
// 16-value group g) it gives the order of Q8_KT activations (kernel_api.h), so that lane g of
// sdot(q[0], x[0]) + ... + sdot(q[3], x[3]) is group g's whole dot.
inline void TransposeWords4x4(int8x16_t q[4]) {
  const int32x4_t q0 = vreinterpretq_s32_s8(q[0]), q1 = vreinterpretq_s32_s8(q[1]);
  const int32x4_t q2 = vreinterpretq_s32_s8(q[2]), q3 = vreinterpretq_s32_s8(q[3]);
  const int64x2_t a0 = vreinterpretq_s64_s32(vtrn1q_s32(q0, q1));  // words 0, 2 of q0, q1
  const int64x2_t a1 = vreinterpretq_s64_s32(vtrn2q_s32(q0, q1));  // words 1, 3
  const int64x2_t a2 = vreinterpretq_s64_s32(vtrn1q_s32(q2, q3));
  const int64x2_t a3 = vreinterpretq_s64_s32(vtrn2q_s32(q2, q3));
  q[0] = vreinterpretq_s8_s64(vtrn1q_s64(a0, a2));
  q[1] = vreinterpretq_s8_s64(vtrn1q_s64(a1, a3));
  q[2] = vreinterpretq_s8_s64(vtrn2q_s64(a0, a2));
  q[3] = vreinterpretq_s8_s64(vtrn2q_s64(a1, a3));
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_ACTIVATIONS_NEON_H_
