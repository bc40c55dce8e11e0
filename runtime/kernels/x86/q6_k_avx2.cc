// Q6_K x Q8_K with AVX2 on the Q6_KX16 layout (16 weight rows interleaved, scales unpacked at
// Create), 8 rows per 256-bit vector (avx2_x16.h): vpmaddubsw of each quad vector against 4
// broadcast activation bytes, two quads added in int16 and widened by vpmaddwd, give exact int32
// sums of level * x for 8 rows (x86::MaddQuads<63>).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ6_KAvx2, Encoding::kQ6_K, Isa::kAvx2, "q6_k_avx2",
                         x86::QuantizeRowQ8_KXY<Isa::kAvx2>, Q8_KXRowBytes, RepackQ6_KX16,
                         Q6_KX16RowBytes, 16, x86::Y16Matmul<x86::Q6_KY16, x86::MaddQuads<63>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
