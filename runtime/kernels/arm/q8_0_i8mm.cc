// Q8_0 x Q8_0 GEMM with ARMv8.6-A i8mm (smmla: a 2x8 by 8x2 int8 product per instruction), 2 weight
// rows x 2 activation rows per step, repacked weights. (m = 1 has no pair of activation rows to
// share an smmla, so the GEMV shape class uses the dotprod kernel on i8mm CPUs.)
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/arm/i8mm_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

const KernelEntry kQ8_0I8mmGemm = {Encoding::kQ8_0,
                                   Isa::kNeonI8mm,
                                   Shape::kGemm,
                                   "q8_0_i8mm_gemm",
                                   QuantizeRowQ8_0S,
                                   Q8_0SRowBytes,
                                   RepackQ8_0X4,
                                   Q8_0X4RowBytes,
                                   arm::I8mmGemm<arm::I8mmX4Tile2x2<arm::Q8_0X4Loader>>,
                                   16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
