// Q5_K x Q8_K with AVX2 (the row kernel x86::K45Avx2 over the 5-bit levels).
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/k_avx2_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// The 5th bit of level l of 64-value chunk j is bit 2j (low 32) / 2j + 1 (high 32) of qh[l % 32].
class Q5_KLevels {
 public:
  using Block = blocks::BlockQ5_K;
  explicit Q5_KLevels(const Block& b) : qh_(x86::Load32(b.qh)) {}
  void AddHighBits(__m256i* lo, __m256i* hi) {
    const __m256i one = _mm256_set1_epi8(1);
    *lo = _mm256_or_si256(*lo, _mm256_slli_epi16(_mm256_and_si256(qh_, one), 4));
    qh_ = _mm256_srli_epi16(qh_, 1);
    *hi = _mm256_or_si256(*hi, _mm256_slli_epi16(_mm256_and_si256(qh_, one), 4));
    qh_ = _mm256_srli_epi16(qh_, 1);
  }

 private:
  __m256i qh_;
};

using Q5_KAvx2 = x86::K45Avx2<Q5_KLevels>;

}  // namespace

const KernelEntry kQ5_KAvx2Gemv = {
    Encoding::kQ5_K, Isa::kAvx2, Shape::kGemv, "q5_k_avx2_gemv",          QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemv<ByRow<Q5_KAvx2>>, 16};
const KernelEntry kQ5_KAvx2Gemm = {
    Encoding::kQ5_K, Isa::kAvx2, Shape::kGemm, "q5_k_avx2_gemm",          QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemm<ByRow<Q5_KAvx2>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
