// Q8_0 x Q8_0 with AVX-VNNI (VEX vpdpbusd, for AVX2-class CPUs without AVX-512 such as Alder
// Lake) on the Q8_0X16 layout (w + 128 as uint8), 8 rows per 256-bit vector (avx2_x16.h):
// vpdpbusd against broadcast activation bytes, starting from -128 * (sum of the block's x), gives
// exact int32 sums of w * x, scaled by d_w * d_x of the block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"
#include "runtime/kernels/x86/avxvnni_dot.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ8_0AvxVnni, Encoding::kQ8_0, Isa::kAvxVnni, "q8_0_avxvnni",
                         x86::QuantizeRowQ8_0SY<Isa::kAvxVnni>, Q8_0SRowBytes, RepackQ8_0X16,
                         Q8_0X16RowBytes, 16, x86::Y16Matmul<x86::Q8_0Y16<false>, x86::VnniQuads>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
