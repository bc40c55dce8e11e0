// Q4_K x Q8_K with ARMv8.2-A dotprod (arm::K45Tile over the 4-bit levels, sdot).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// GEMV: Q8_K rows as GGML's; GEMM: Q8_KT rows and the levels transposed once per tile.
using Tile = arm::K45Tile<arm::Q4_KLevels, arm::DotprodDot16>;
using TileT = arm::K45Tile<arm::Q4_KLevels, arm::DotprodDot16, true>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ4_KDotprodGemv, Shape::kGemv, "q4_k_dotprod_gemv", Encoding::kQ4_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr, nullptr, 16,
                   arm::TileGemv<Tile>);
EDGEQ_KERNEL_ENTRY(kQ4_KDotprodGemm, Shape::kGemm, "q4_k_dotprod_gemm", Encoding::kQ4_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KTNeon, Q8_KTRowBytes, nullptr, nullptr,
                   16, arm::TileGemm<TileT>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
