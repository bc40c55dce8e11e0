// Q5_0 x Q8_0 with ARMv8.2-A dotprod on the Q5_0R4 layout (the high bits transposed and inverted,
// repack_r4.h), the signed levels by one tst and one sli per 16 values; lane-indexed sdot. The GEMM
// decodes each block of four rows once per 8 activation rows.
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
EDGEQ_KERNEL_ENTRY(kQ5_0DotprodGemm, Shape::kGemm, "q5_0_dotprod_gemm", Encoding::kQ5_0,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ5_0R4,
                   Q5_0R4RowBytes, 16, arm::R4Gemm<Tile, Tile>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
