// Q4_0 x Q8_0 with AVX-VNNI (VEX vpdpbusd, for AVX2-class CPUs without AVX-512 such as Alder
// Lake) on the Q4_0X16 layout, 8 rows per 256-bit vector (avx2_x16.h): vpdpbusd of the levels
// (0..15) against broadcast activation bytes, starting from -8 * (sum of the block's x), gives
// exact int32 sums of (q - 8) * x, scaled by d_w * d_x of the block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"
#include "runtime/kernels/x86/avxvnni_dot.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ4_0AvxVnni, Encoding::kQ4_0, Isa::kAvxVnni, "q4_0_avxvnni",
                         x86::QuantizeRowQ8_0SY<Isa::kAvxVnni>, Q8_0SRowBytes, RepackQ4_0X16,
                         Q4_0X16RowBytes, 16, x86::Y16Matmul<x86::Q4_0Y16, x86::VnniQuads>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
