// Q4_0 x Q8_0 GEMM with ARMv8.6-A i8mm: the R4 layout (four weight rows per block, repack_r4.h,
// shared with the dotprod GEMV), zipped once per block into smmla operands for 8 activation rows.
// (m = 1 has no pair of activation rows to share an smmla, so the GEMV shape class uses the
// dotprod kernel on i8mm CPUs; a last odd activation row uses the lane-indexed sdot tile.)
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using W = arm::Q4_0R4Block;

}  // namespace

EDGEQ_KERNEL_ENTRY(kQ4_0I8mmGemm, Shape::kGemm, "q4_0_i8mm_gemm", Encoding::kQ4_0, Isa::kNeonI8mm,
                   QuantizeRowQ8_0S, Q8_0SRowBytes, RepackQ4_0R4, Q4_0R4RowBytes, 16,
                   arm::R4Gemm<arm::R4I8mm<W>, arm::R4Dotprod<W>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
