// Q6_K x Q8_K with ARMv8.2-A dotprod on the Q6_KR4 layout (arm::Q6KR4DotprodTile, q6_k_r4.h: four
// weight rows per super-block, sdot by element; GEMV and GEMM share the layout; the GEMV has a
// schedule for in-order cores, chosen at run time).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/q6_k_r4.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_KERNEL_ENTRY(kQ6_KDotprodGemv, Shape::kGemv, "q6_k_dotprod_gemv", Encoding::kQ6_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ6_KR4,
                   Q6_KR4RowBytes, 16, arm::Q6KR4DotprodGemv);
EDGEQ_KERNEL_ENTRY(kQ6_KDotprodGemm, Shape::kGemm, "q6_k_dotprod_gemm", Encoding::kQ6_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ6_KR4,
                   Q6_KR4RowBytes, 16, arm::R4Gemm<arm::Q6KR4DotprodTile, arm::Q6KR4DotprodTile>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
