// f16 weights x f32 activations with ARMv8-A NEON: f16 -> f32 by FCVTL (exact), 4 rows at a
// time (half_rows_neon.h).
#include "runtime/kernels/arm/half_rows_neon.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kF16Neon, Encoding::kF16, Isa::kNeon, "f16_neon", nullptr,
                              F32RowBytes, nullptr, nullptr, 16,
                              arm::HalfRowsNeon<arm::F16ConvertNeon>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
