// Q5_0 x Q8_0 with ARMv8-A NEON on the Q5_0R4 layout (the high bits transposed and inverted,
// repack_r4.h), the signed levels by one tst and one sli per 16 values; the four rows' dots by
// widening multiplies (NeonLanes). The GEMM decodes each block of four rows once per 8 activation
// rows.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::R4Tile<arm::Q5_0R4Block, arm::NeonLanes>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ5_0NeonGemv, Shape::kGemv, "q5_0_neon_gemv", Encoding::kQ5_0, Isa::kNeon,
                   arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ5_0R4, Q5_0R4RowBytes, 16,
                   arm::R4Gemv<Tile>);
EDGEQ_KERNEL_ENTRY(kQ5_0NeonGemm, Shape::kGemm, "q5_0_neon_gemm", Encoding::kQ5_0, Isa::kNeon,
                   arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ5_0R4, Q5_0R4RowBytes, 16,
                   arm::R4Gemm<Tile, Tile>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
