// Q6_K x Q8_K with ARMv8-A NEON (arm::Q6KRows, widening multiplies).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Rows = arm::Q6KRows<arm::NeonDot16>;

}  // namespace

const KernelEntry kQ6_KNeonGemv = {
    Encoding::kQ6_K, Isa::kNeon, Shape::kGemv, "q6_k_neon_gemv", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemv<Rows>,   16};
const KernelEntry kQ6_KNeonGemm = {
    Encoding::kQ6_K, Isa::kNeon, Shape::kGemm, "q6_k_neon_gemm", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemm<Rows>,   16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
