// Q4_0 x Q8_0 with AVX-VNNI (VEX-encoded vpdpbusd, for AVX2-class CPUs without AVX-512 such as
// Alder Lake): the AVX2 kernel's layout and row kernel (x86::X4Avx2) with one vpdpbusd in place
// of vpmaddubsw + vpmaddwd; results identical to the AVX2 kernel's.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/avx2_x4.h"
#include "runtime/kernels/x86/avxvnni_dot.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Q4_0AvxVnni = x86::X4Avx2<x86::Q4_0X4<x86::VnniDot>>;

}  // namespace

const KernelEntry kQ4_0AvxVnniGemv = {
    Encoding::kQ4_0, Isa::kAvxVnni, Shape::kGemv,   "q4_0_avxvnni_gemv",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4,  Q4_0X4RowBytes, RowsGemv<ByRow<Q4_0AvxVnni>>, 16};
const KernelEntry kQ4_0AvxVnniGemm = {
    Encoding::kQ4_0, Isa::kAvxVnni, Shape::kGemm,   "q4_0_avxvnni_gemm",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4,  Q4_0X4RowBytes, RowsGemm<ByRow<Q4_0AvxVnni>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
