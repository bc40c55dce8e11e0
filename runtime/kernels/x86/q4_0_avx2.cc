// Q4_0 x Q8_0 with AVX2 (vpmaddubsw + vpmaddwd): weights in the Q4_0X4 layout, activations in
// Q8_0S. Per block: 16-bit pair sums of q * x (q <= 15, |x| <= 127: no saturation), widened to
// 8 int32 lanes, minus the lanes of 8 * x (computed once per activation block): exact integer
// sums of (q - 8) * x, scaled by d_w * d_x (the row kernel x86::X4Avx2).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/avx2_x4.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Q4_0Avx2 = x86::X4Avx2<x86::Q4_0X4<x86::MaddDot>>;

}  // namespace

const KernelEntry kQ4_0Avx2Gemv = {
    Encoding::kQ4_0, Isa::kAvx2,   Shape::kGemv,   "q4_0_avx2_gemv",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4, Q4_0X4RowBytes, RowsGemv<ByRow<Q4_0Avx2>>, 16};
const KernelEntry kQ4_0Avx2Gemm = {
    Encoding::kQ4_0, Isa::kAvx2,   Shape::kGemm,   "q4_0_avx2_gemm",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4, Q4_0X4RowBytes, RowsGemm<ByRow<Q4_0Avx2>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
