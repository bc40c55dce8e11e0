// Q5_K x Q8_K with ARMv8.2-A dotprod (arm::K45Tile over the 5-bit levels, sdot).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::K45Tile<arm::Q5_KLevels, arm::DotprodDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kQ5_KDotprod, Encoding::kQ5_K, Isa::kNeonDotprod, "q5_k_dotprod",
                                  QuantizeRowQ8_K, Q8_KRowBytes, nullptr, nullptr, 16, Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
