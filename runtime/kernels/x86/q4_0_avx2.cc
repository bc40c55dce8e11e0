// Q4_0 x Q8_0 with AVX2 on the Q4_0X16 layout (16 weight rows interleaved, two blocks per tile),
// 8 rows per 256-bit vector (avx2_x16.h): vpmaddubsw of the levels (0..15) against broadcast
// activation bytes, four quads added in int16 and widened by vpmaddwd (x86::MaddQuads<15>),
// starting from -8 * (sum of the block's x), give exact int32 sums of (q - 8) * x, scaled by
// d_w * d_x of the block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ4_0Avx2, Encoding::kQ4_0, Isa::kAvx2, "q4_0_avx2",
                         x86::QuantizeRowQ8_0SY<Isa::kAvx2>, Q8_0SRowBytes, RepackQ4_0X16,
                         Q4_0X16RowBytes, 16, x86::Y16Matmul<x86::Q4_0Y16, x86::MaddQuads<15>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
