// Q8_0 x Q8_0 with ARMv8.2-A dotprod on the R4 layout (four weight rows per block, repack_r4.h),
// lane-indexed sdot. The GEMM (R4SdotPairs) decodes each block of four rows once per 8 activation
// rows, which come in pairs (Q8_0P: one load per pair and block).
// On in-order cores (ActiveCoreSchedule) the GEMM's 4-pair tile runs the asm loop of
// r4_pair_inorder.h (bit-identical).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/r4_pair_inorder.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
EDGEQ_KERNEL_ENTRY(kQ8_0DotprodGemv, Shape::kGemv, "q8_0_dotprod_gemv", Encoding::kQ8_0,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ8_0R4,
                   Q8_0R4RowBytes, 16, arm::R4DotprodGemv<arm::Q8_0R4Block>);
EDGEQ_DEFINE_R4_PAIR_GEMM_FN(kQ8_0DotprodGemm, Encoding::kQ8_0, Isa::kNeonDotprod, "q8_0_dotprod",
                             arm::QuantizePairQ8_0PNeon, Q8_0PUnitBytes, RepackQ8_0R4,
                             Q8_0R4RowBytes, arm::R4DotprodPairGemm<arm::Q8_0R4Block>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
