// Q4_1 x Q8_1 on the Q4_1R4 layout (levels 0..15, the mins times the activations' Q8_1 s) with
// ARMv8.6-A i8mm: the R4 GEMM tile of r4_i8mm.h over activation pairs (Q8_1P). The GEMV shape class
// keeps the dotprod kernel on the same layout (m = 1 has no second row for an smmla).
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/r4_i8mm.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_R4_PAIR_GEMM(kQ4_1I8mmGemm, Encoding::kQ4_1, Isa::kNeonI8mm, "q4_1_i8mm",
                          arm::QuantizePairQ8_1PNeon, Q8_1PUnitBytes, RepackQ4_1R4, Q4_1R4RowBytes,
                          arm::R4I8mm<arm::Q4_1R4Block>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
