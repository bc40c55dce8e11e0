// Q2_K x Q8_K with ARMv8-A NEON (arm::Q2KTile, widening multiplies): the GGML layout, each
// super-block's scales, mins and bit pairs decoded once per tile of activation rows.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::Q2KTile<arm::NeonDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kQ2_KNeon, Encoding::kQ2_K, Isa::kNeon, "q2_k_neon",
                                  arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr, nullptr, 16,
                                  Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
