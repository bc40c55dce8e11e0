// IQ4_NL x Q8_0 with ARMv8-A NEON (widening multiplies, pairwise accumulate) on the Q4_0X4 layout
// (IQ4_NL's blocks have Q4_0's bytes); the nibbles index the 16 levels by one table lookup.
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/arm_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Kernel = arm::ArmRows<arm::Iq4NlX4Loader, arm::NeonDot>;

}  // namespace

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kIq4NlNeon, Encoding::kIq4Nl, Isa::kNeon, "iq4_nl_neon",
                              arm::QuantizeRowQ8_0SNeon, Q8_0SRowBytes, RepackQ4_0X4,
                              Q4_0X4RowBytes, 16, Kernel);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
