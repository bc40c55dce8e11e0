// Q6_K x Q8_K with ARMv8.2-A dotprod (arm::Q6KRows, sdot).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Rows = arm::Q6KRows<arm::DotprodDot16>;

}  // namespace

const KernelEntry kQ6_KDotprodGemv = {
    Encoding::kQ6_K, Isa::kNeonDotprod, Shape::kGemv, "q6_k_dotprod_gemv", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemv<Rows>,      16};
const KernelEntry kQ6_KDotprodGemm = {
    Encoding::kQ6_K, Isa::kNeonDotprod, Shape::kGemm, "q6_k_dotprod_gemm", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemm<Rows>,      16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
