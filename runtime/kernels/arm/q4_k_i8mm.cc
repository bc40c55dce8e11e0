// Q4_K x Q8_K GEMM on i8mm CPUs: the dotprod tile of the Q4_KR4 layout (arm::Q4KR4DotprodGemm,
// q4_k_r4.h: one schedule per core type), compiled with this file's flags. It shares its layout with the dotprod GEMV that i8mm
// CPUs select for m = 1 (one repacked copy), and llvm-mca models its super-block loop faster than
// the GGML-layout smmla tile it replaced (I8mmK45Wide; benchmarks/arm_sim/README.md, 2026-11-26
// kquant6: cycles per 32-value dot, Cortex-A510 7.4 -> 4.9, Cortex-X2 2.25 -> 1.9).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/q4_k_r4.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_KERNEL_ENTRY(kQ4_KI8mmGemm, Shape::kGemm, "q4_k_i8mm_gemm", Encoding::kQ4_K, Isa::kNeonI8mm,
                   arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ4_KR4, Q4_KR4RowBytes, 16,
                   arm::Q4KR4DotprodGemm);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
