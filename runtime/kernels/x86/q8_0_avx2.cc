// Q8_0 x Q8_0 with AVX2 on the Q8_0X16 layout (16 weight rows interleaved, two blocks per tile),
// 8 rows per 256-bit vector (avx2_x16.h): the stored w + 128 turned back into signed w, then
// vpmaddubsw(|w|, x with w's sign) against broadcast activation bytes, widened by vpmaddwd
// (x86::SignedMaddQuads), gives exact int32 sums of w * x, scaled by d_w * d_x of the block. GEMM
// runs both 8-row halves of a group per broadcast activation quad (x86::Q8_0SignedMatmul).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ8_0Avx2, Encoding::kQ8_0, Isa::kAvx2, "q8_0_avx2",
                         x86::QuantizeRowQ8_0SY<Isa::kAvx2>, Q8_0SRowBytes, RepackQ8_0X16,
                         Q8_0X16RowBytes, 16, x86::Q8_0SignedMatmul);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
