// Q6_K x Q8_K with ARMv8-A NEON (arm::Q6KTile, widening multiplies).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::Q6KTile<arm::NeonDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kQ6_KNeon, Encoding::kQ6_K, Isa::kNeon, "q6_k_neon",
                                  arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr, nullptr, 16,
                                  Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
