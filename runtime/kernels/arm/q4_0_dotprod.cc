// Q4_0 x Q8_0 with ARMv8.2-A dotprod (sdot: 4 int8 products per int32 lane), repacked weights.
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Kernel = arm::ArmRows<arm::Q4_0X4Loader, arm::DotprodDot>;

}  // namespace

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kQ4_0Dotprod, Encoding::kQ4_0, Isa::kNeonDotprod, "q4_0_dotprod",
                              QuantizeRowQ8_0S, Q8_0SRowBytes, RepackQ4_0X4, Q4_0X4RowBytes, 16,
                              Kernel);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
