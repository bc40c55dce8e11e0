// Q8_0 x Q8_0 with ARMv8-A NEON (widening multiplies, pairwise accumulate), repacked weights.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Kernel = arm::ArmRows<arm::Q8_0X4Loader, arm::NeonDot>;

}  // namespace

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kQ8_0Neon, Encoding::kQ8_0, Isa::kNeon, "q8_0_neon",
                              arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ8_0X4,
                              Q8_0X4RowBytes, 16, Kernel);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
