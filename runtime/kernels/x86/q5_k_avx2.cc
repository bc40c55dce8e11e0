// Q5_K x Q8_K with AVX2 on the Q5_KX16 layout (16 weight rows interleaved, scales and mins unpacked
// at Create), 8 rows per 256-bit vector (avx2_x16.h): vpmaddubsw of each quad vector against 4
// broadcast activation bytes, four quads added in int16 and widened by vpmaddwd, give exact int32
// sums of level * x for 8 rows (x86::MaddQuads<31>).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ5_KAvx2, Encoding::kQ5_K, Isa::kAvx2, "q5_k_avx2",
                         x86::QuantizeRowQ8_KXY<Isa::kAvx2>, Q8_KXRowBytes, RepackQ5_KX16,
                         Q5_KX16RowBytes, 16,
                         x86::Y16Matmul<x86::K45Y16<true>, x86::MaddQuads<31>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
