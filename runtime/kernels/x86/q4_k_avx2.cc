// Q4_K x Q8_K with AVX2 (the row kernel x86::K45Avx2 over the 4-bit levels).
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/k_avx2_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Q4_K's levels are its nibbles: no high bits.
struct Q4_KLevels {
  using Block = blocks::BlockQ4_K;
  explicit Q4_KLevels(const Block& /*b*/) {}
  void AddHighBits(__m256i* /*lo*/, __m256i* /*hi*/) {}
};

using Q4_KAvx2 = x86::K45Avx2<Q4_KLevels>;

}  // namespace

const KernelEntry kQ4_KAvx2Gemv = {
    Encoding::kQ4_K, Isa::kAvx2, Shape::kGemv, "q4_k_avx2_gemv",          QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemv<ByRow<Q4_KAvx2>>, 16};
const KernelEntry kQ4_KAvx2Gemm = {
    Encoding::kQ4_K, Isa::kAvx2, Shape::kGemm, "q4_k_avx2_gemm",          QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemm<ByRow<Q4_KAvx2>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
