// Q4_K x Q8_K with ARMv8-A NEON (arm::K45Tile over the 4-bit levels, widening multiplies).
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

using Tile = arm::K45Tile<arm::Q4_KLevels, arm::NeonDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kQ4_KNeon, Encoding::kQ4_K, Isa::kNeon, "q4_k_neon",
                                  arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr, nullptr, 16,
                                  Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
