// Q6_K x Q8_K GEMM on i8mm CPUs: the dotprod tile of the Q6_KR4 layout (arm::Q6KR4DotprodTile,
// q6_k_r4.h), compiled with this file's flags. It shares its layout with the dotprod GEMV that i8mm
// CPUs select for m = 1 (one repacked copy), and llvm-mca models its super-block loop faster than
// the GGML-layout smmla tile it replaced (I8mmQ6KWide; benchmarks/arm_sim/README.md, kquant6).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/q6_k_r4.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_KERNEL_ENTRY(kQ6_KI8mmGemm, Shape::kGemm, "q6_k_i8mm_gemm", Encoding::kQ6_K, Isa::kNeonI8mm,
                   arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ6_KR4, Q6_KR4RowBytes, 16,
                   arm::R4Gemm<arm::Q6KR4DotprodTile, arm::Q6KR4DotprodTile>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
