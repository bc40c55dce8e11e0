// IQ4_NL x Q8_0 with ARMv8.2-A dotprod on the R4 layout with the indices as stored (repack_r4.h),
// levels by table lookup, lane-indexed sdot. The GEMM (R4SdotPairs) decodes each block of four rows
// once per 8 activation rows, which come in pairs (Q8_0P: one load per pair and block).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
EDGEQ_KERNEL_ENTRY(kIq4NlDotprodGemv, Shape::kGemv, "iq4_nl_dotprod_gemv", Encoding::kIq4Nl,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackIq4NlR4,
                   Q4_0R4RowBytes, 16, arm::R4DotprodGemv<arm::Iq4NlR4Block>);
EDGEQ_DEFINE_R4_PAIR_GEMM(kIq4NlDotprodGemm, Encoding::kIq4Nl, Isa::kNeonDotprod, "iq4_nl_dotprod",
                          arm::QuantizePairQ8_0PNeon, Q8_0PUnitBytes, RepackIq4NlR4, Q4_0R4RowBytes,
                          arm::R4SdotPairs<arm::Iq4NlR4Block>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
