// Q5_K x Q8_K with ARMv8-A NEON (arm::K45Rows over the 5-bit levels, widening multiplies).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Rows = arm::K45Rows<arm::Q5_KLevels, arm::NeonDot16>;

}  // namespace

const KernelEntry kQ5_KNeonGemv = {
    Encoding::kQ5_K, Isa::kNeon, Shape::kGemv, "q5_k_neon_gemv", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemv<Rows>,   16};
const KernelEntry kQ5_KNeonGemm = {
    Encoding::kQ5_K, Isa::kNeon, Shape::kGemm, "q5_k_neon_gemm", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemm<Rows>,   16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
