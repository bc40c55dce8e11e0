// Q4_1 x Q8_1 with ARMv8.2-A dotprod on the Q4_1R4 layout (repack_r4.h), levels 0..15 as stored and
// the mins times the activations' Q8_1 sums; lane-indexed sdot. The GEMM (R4SdotPairs) decodes each
// block of four rows once per 8 activation rows, which come in pairs (Q8_1P: one load per
// pair and block).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::R4Tile<arm::Q4_1R4Block, arm::SdotLanes>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ4_1DotprodGemv, Shape::kGemv, "q4_1_dotprod_gemv", Encoding::kQ4_1,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_1SNeon, Q8_1SRowBytes, RepackQ4_1R4,
                   Q4_1R4RowBytes, 16, arm::R4Gemv<Tile>);
EDGEQ_DEFINE_R4_PAIR_GEMM(kQ4_1DotprodGemm, Encoding::kQ4_1, Isa::kNeonDotprod, "q4_1_dotprod",
                          arm::QuantizePairQ8_1PNeon, Q8_1PUnitBytes, RepackQ4_1R4, Q4_1R4RowBytes,
                          arm::R4SdotPairs<arm::Q4_1R4Block>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
