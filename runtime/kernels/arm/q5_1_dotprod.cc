// Q5_1 x Q8_1 with ARMv8.2-A dotprod on the Q5_1R4 layout (repack_r4.h), the mins times the
// activations' Q8_1 sums; lane-indexed sdot. The GEMV uses the levels - 16 and a correction per
// activation row (one row: cheaper than 8 adds per block); the GEMM (R4SdotPairs) the levels
// themselves, each block of four rows decoded once per 8 activation rows, which come in pairs
// (Q8_1P: one load per pair and block).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile1 = arm::R4Tile<arm::Q5_1R4Block, arm::SdotLanes>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ5_1DotprodGemv, Shape::kGemv, "q5_1_dotprod_gemv", Encoding::kQ5_1,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_1SNeon, Q8_1SRowBytes, RepackQ5_1R4,
                   Q5_1R4RowBytes, 16, arm::R4Gemv<Tile1>);
EDGEQ_DEFINE_R4_PAIR_GEMM(kQ5_1DotprodGemm, Encoding::kQ5_1, Isa::kNeonDotprod, "q5_1_dotprod",
                          arm::QuantizePairQ8_1PNeon, Q8_1PUnitBytes, RepackQ5_1R4, Q5_1R4RowBytes,
                          arm::R4SdotPairs<arm::Q5_1R4UnsignedBlock>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
