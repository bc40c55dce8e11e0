// Q4_K x Q8_K with AVX-VNNI (VEX vpdpbusd, for AVX2-class CPUs without AVX-512
// such as Alder Lake) on the Q4_KX16 layout (16 weight rows interleaved, scales and mins
// unpacked at Create), 8 rows per 256-bit vector (avx2_x16.h): one vpdpbusd per quad vector
// against 4 broadcast activation bytes gives exact int32 sums of level * x for 8 rows.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"
#include "runtime/kernels/x86/avxvnni_dot.h"

namespace edgeq {
namespace kernels {
namespace internal {

EDGEQ_DEFINE_KERNEL_PAIR(kQ4_KAvxVnni, Encoding::kQ4_K, Isa::kAvxVnni, "q4_k_avxvnni",
                         x86::QuantizeRowQ8_KXY<Isa::kAvxVnni>, Q8_KXRowBytes, RepackQ4_KX16,
                         Q4_KX16RowBytes, 16, x86::Y16Matmul<x86::K45Y16<false>, x86::VnniQuads>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
