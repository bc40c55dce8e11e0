// Q5_K x Q8_K GEMM with ARMv8.6-A i8mm (smmla: a 2x8 by 8x2 int8 product per instruction), 2
// weight rows x 8 activation rows per tile (the weights decoded and zipped once per tile) over the
// 5-bit levels (nibble + qh bit, 0..31), GGML layout (no repack). (m = 1 has no pair of activation
// rows to share an smmla, so the GEMV shape class uses the dotprod kernel on i8mm CPUs.)
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/arm/i8mm_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

const KernelEntry kQ5_KI8mmGemm = {
    Encoding::kQ5_K,
    Isa::kNeonI8mm,
    Shape::kGemm,
    "q5_k_i8mm_gemm",
    arm::QuantizeRowQ8_KNeon,
    Q8_KRowBytes,
    nullptr,
    nullptr,
    arm::I8mmWideGemm<arm::I8mmK45Wide<arm::Q5_KLevels>,
                      arm::K45Tile<arm::Q5_KLevels, arm::DotprodDot16>>,
    16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
