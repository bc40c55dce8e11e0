// Q6_K x Q8_K with AVX2: 6-bit levels (0..63) rebuilt from ql/qh per 32 values, vpmaddubsw with x
// (63 * 127 * 2 fits int16) and vpmaddwd by the two 16-value group scales: exact int32 lanes of
// sum(scale * level * x); the -32 offset is 32 * sum(scale * bsum) from the activation's bsums.
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/k_avx2_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q6_KAvx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i m3 = _mm256_set1_epi8(3);
    __m256 acc[R];
    float accc[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm256_setzero_ps();
      accc[r] = 0.0f;
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ6_K*>(w + r * wrb)[b];
        int32_t corr = 0;
        for (int g = 0; g < 16; ++g) corr += bw.scales[g] * bx[b].bsums[g];
        __m256i sumi = _mm256_setzero_si256();
        for (int n = 0; n < 2; ++n) {
          const __m256i ql0 = x86::Load32(bw.ql + 64 * n);
          const __m256i ql1 = x86::Load32(bw.ql + 64 * n + 32);
          const __m256i qh = x86::Load32(bw.qh + 32 * n);
          const __m256i v[4] = {
              _mm256_or_si256(_mm256_and_si256(ql0, m4),
                              _mm256_slli_epi16(_mm256_and_si256(qh, m3), 4)),
              _mm256_or_si256(_mm256_and_si256(ql1, m4),
                              _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2), m3), 4)),
              _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), m4),
                              _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 4), m3), 4)),
              _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4),
                              _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 6), m3), 4)),
          };
          const int8_t* sc = bw.scales + 8 * n;
          for (int t = 0; t < 4; ++t) {
            const __m256i xv = x86::Load32(bx[b].qs + 128 * n + 32 * t);
            const __m256i s16 =
                _mm256_setr_m128i(_mm_set1_epi16(sc[2 * t]), _mm_set1_epi16(sc[2 * t + 1]));
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(v[t], xv), s16));
          }
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc[r]);
        accc[r] += d * (32 * corr);
      }
    }
    for (int r = 0; r < R; ++r) out[r] = x86::HSum(acc[r]) - accc[r];
  }
};

}  // namespace

const KernelEntry kQ6_KAvx2Gemv = {
    Encoding::kQ6_K, Isa::kAvx2, Shape::kGemv, "q6_k_avx2_gemv",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemv<Q6_KAvx2>, 16};
const KernelEntry kQ6_KAvx2Gemm = {
    Encoding::kQ6_K, Isa::kAvx2, Shape::kGemm, "q6_k_avx2_gemm",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemm<Q6_KAvx2>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
