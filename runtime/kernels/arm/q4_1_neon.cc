// Q4_1 x Q8_1 with ARMv8-A NEON on the Q4_1R4 layout (repack_r4.h), levels 0..15 as stored and the
// mins times the activations' Q8_1 sums; the four rows' dots by widening multiplies (NeonLanes).
// The GEMM decodes each block of four rows once per 8 activation rows.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::R4Tile<arm::Q4_1R4Block, arm::NeonLanes>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ4_1NeonGemv, Shape::kGemv, "q4_1_neon_gemv", Encoding::kQ4_1, Isa::kNeon,
                   arm::QuantizeRowQ8_1SNeon, Q8_1SRowBytes, RepackQ4_1R4, Q4_1R4RowBytes, 16,
                   arm::R4Gemv<Tile>);
EDGEQ_KERNEL_ENTRY(kQ4_1NeonGemm, Shape::kGemm, "q4_1_neon_gemm", Encoding::kQ4_1, Isa::kNeon,
                   arm::QuantizeRowQ8_1SNeon, Q8_1SRowBytes, RepackQ4_1R4, Q4_1R4RowBytes, 16,
                   arm::R4Gemm<Tile, Tile>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
