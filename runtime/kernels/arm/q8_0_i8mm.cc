// Q8_0 x Q8_0 on the Q8_0R4 layout with ARMv8.6-A i8mm: the R4 GEMM of r4_i8mm.h over activation
// pairs (Q8_0P; R4I8mmGemm: the wide tile of 16 activation rows on out-of-order cores, the 4-pair
// tile on in-order ones). The GEMV shape class keeps the dotprod kernel on the same layout (m = 1
// has no second row for an smmla).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_i8mm.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_R4_PAIR_GEMM_FN(kQ8_0I8mmGemm, Encoding::kQ8_0, Isa::kNeonI8mm, "q8_0_i8mm",
                             arm::QuantizePairQ8_0PNeon, Q8_0PUnitBytes, RepackQ8_0R4,
                             Q8_0R4RowBytes, arm::R4I8mmGemm<arm::Q8_0R4Block>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
