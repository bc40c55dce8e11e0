// bf16 weights x f32 activations with ARMv8-A NEON: bf16 -> f32 by a 16-bit shift (exact), 4 rows
// at a time (half_rows_neon.h).
#include "runtime/kernels/arm/half_rows_neon.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kBf16Neon, Encoding::kBf16, Isa::kNeon, "bf16_neon", nullptr,
                              F32RowBytes, nullptr, nullptr, 16,
                              arm::HalfRowsNeon<arm::Bf16ConvertNeon>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
