// Q8_0 x Q8_0 with AVX2: weights in the Q8_0X4 layout (signed), activations in Q8_0S. Per block:
// vpmaddubsw(|w|, sign(x, w)) (|w| <= 128, |x| <= 127: no saturation) and vpmaddwd into 8 exact
// int32 lanes, scaled by d_w * d_x (the row kernel x86::X4Avx2).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/avx2_x4.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using Q8_0Avx2 = x86::X4Avx2<x86::Q8_0X4<x86::MaddDot>>;

}  // namespace

const KernelEntry kQ8_0Avx2Gemv = {
    Encoding::kQ8_0, Isa::kAvx2,   Shape::kGemv,   "q8_0_avx2_gemv",   QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ8_0X4, Q8_0X4RowBytes, RowsGemv<Q8_0Avx2>, 16};
const KernelEntry kQ8_0Avx2Gemm = {
    Encoding::kQ8_0, Isa::kAvx2,   Shape::kGemm,   "q8_0_avx2_gemm",   QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ8_0X4, Q8_0X4RowBytes, RowsGemm<Q8_0Avx2>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
