// Q5_0 x Q8_0 with ARMv8.2-A dotprod on the Q5_0R4 layout (the high bits transposed and inverted,
// repack_r4.h), the signed levels by one tst and one sli per 16 values; lane-indexed sdot. The GEMM
// (R4SdotPairs) decodes each block of four rows once per 8 activation rows, which come in pairs
// (Q8_0P: one load per pair and block).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::R4Tile<arm::Q5_0R4Block, arm::SdotLanes>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ5_0DotprodGemv, Shape::kGemv, "q5_0_dotprod_gemv", Encoding::kQ5_0,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ5_0R4,
                   Q5_0R4RowBytes, 16, arm::R4Gemv<Tile>);
EDGEQ_DEFINE_R4_PAIR_GEMM(kQ5_0DotprodGemm, Encoding::kQ5_0, Isa::kNeonDotprod, "q5_0_dotprod",
                          arm::QuantizePairQ8_0PNeon, Q8_0PUnitBytes, RepackQ5_0R4, Q5_0R4RowBytes,
                          arm::R4SdotPairs<arm::Q5_0R4Block>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
