// Q4_K x Q8_K with ARMv8.2-A dotprod (the row kernel arm::K45Dotprod over the 4-bit levels).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Q4_K's levels are its nibbles: no high bits.
struct Q4_KLevels {
  using Block = blocks::BlockQ4_K;
  explicit Q4_KLevels(const Block& /*b*/) {}
  void AddHighBits(uint8x16_t*, uint8x16_t*, uint8x16_t*, uint8x16_t*) {}
};

using Q4_KDotprod = arm::K45Dotprod<Q4_KLevels>;

}  // namespace

const KernelEntry kQ4_KDotprodGemv = {
    Encoding::kQ4_K, Isa::kNeonDotprod, Shape::kGemv, "q4_k_dotprod_gemv",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemv<Q4_KDotprod>, 16};
const KernelEntry kQ4_KDotprodGemm = {
    Encoding::kQ4_K, Isa::kNeonDotprod, Shape::kGemm, "q4_k_dotprod_gemm",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemm<Q4_KDotprod>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
