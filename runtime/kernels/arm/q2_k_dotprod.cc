// Q2_K x Q8_K with ARMv8.2-A dotprod (arm::Q2KTile, sdot): the GGML layout, each
// super-block's scales, mins and bit pairs decoded once per tile of activation rows.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::Q2KTile<arm::DotprodDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kQ2_KDotprod, Encoding::kQ2_K, Isa::kNeonDotprod, "q2_k_dotprod",
                                  arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr, nullptr, 16,
                                  Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
