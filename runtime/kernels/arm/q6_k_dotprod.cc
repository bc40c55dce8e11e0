// Q6_K x Q8_K with ARMv8.2-A dotprod (arm::Q6KTile, sdot).
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
using Tile = arm::Q6KTile<arm::DotprodDot16>;
using TileT = arm::Q6KTile<arm::DotprodDot16, true>;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ6_KDotprodGemv, Shape::kGemv, "q6_k_dotprod_gemv", Encoding::kQ6_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KNeon, Q8_KRowBytes, nullptr, nullptr, 16,
                   arm::TileGemv<Tile>);
EDGEQ_KERNEL_ENTRY(kQ6_KDotprodGemm, Shape::kGemm, "q6_k_dotprod_gemm", Encoding::kQ6_K,
                   Isa::kNeonDotprod, arm::QuantizeRowQ8_KTNeon, Q8_KTRowBytes, nullptr, nullptr,
                   16, arm::TileGemm<TileT>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
