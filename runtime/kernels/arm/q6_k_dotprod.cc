// Q6_K x Q8_K with ARMv8.2-A dotprod (arm::Q6KTile, sdot).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::Q6KTile<arm::DotprodDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kQ6_KDotprod, Encoding::kQ6_K, Isa::kNeonDotprod, "q6_k_dotprod",
                                  QuantizeRowQ8_K, Q8_KRowBytes, nullptr, nullptr, 16, Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
