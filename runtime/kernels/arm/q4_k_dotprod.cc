// Q4_K x Q8_K with ARMv8.2-A dotprod on the Q4_KR4 layout (arm::Q4KR4DotprodTile, q4_k_r4.h: four
// weight rows per super-block, sdot by element; GEMV and GEMM share the layout; the GEMV has a
// schedule for in-order cores, chosen at run time).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/q4_k_r4.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_KERNEL_ENTRY(kQ4_KDotprodGemv, Shape::kGemv, "q4_k_dotprod_gemv", Encoding::kQ4_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ4_KR4,
                   Q4_KR4RowBytes, 16, arm::Q4KR4DotprodGemv);
EDGEQ_KERNEL_ENTRY(kQ4_KDotprodGemm, Shape::kGemm, "q4_k_dotprod_gemm", Encoding::kQ4_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, RepackQ4_KR4,
                   Q4_KR4RowBytes, 16, arm::Q4KR4DotprodGemm);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
