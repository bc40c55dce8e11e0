// IQ4_XS x Q8_K with ARMv8.2-A dotprod (arm::Iq4XsTile, sdot): the GGML layout, levels by
// table lookup, each super-block decoded once per tile of activation rows.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Tile = arm::Iq4XsTile<arm::DotprodDot16>;

}  // namespace

EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(kIq4XsDotprod, Encoding::kIq4Xs, Isa::kNeonDotprod,
                                  "iq4_xs_dotprod", arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr,
                                  nullptr, 16, Tile);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
