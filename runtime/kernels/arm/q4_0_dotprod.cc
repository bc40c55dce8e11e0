// Q4_0 x Q8_0 with ARMv8.2-A dotprod: the R4 layout (four weight rows per block, repack_r4.h),
// lane-indexed sdot; the GEMM decodes each block of four rows once per 8 activation rows.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Dot = arm::R4Dotprod<arm::Q4_0R4Block>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ4_0DotprodGemv, Shape::kGemv, "q4_0_dotprod_gemv", Encoding::kQ4_0,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ4_0R4,
                   Q4_0R4RowBytes, 16, arm::R4Gemv<Dot>);
EDGEQ_KERNEL_ENTRY(kQ4_0DotprodGemm, Shape::kGemm, "q4_0_dotprod_gemm", Encoding::kQ4_0,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ4_0R4,
                   Q4_0R4RowBytes, 16, arm::R4Gemm<Dot, Dot>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
