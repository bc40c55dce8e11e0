// Q4_K x Q8_K with AVX2: per 32-value sub-block, vpmaddubsw(levels, x) then vpmaddwd by the
// sub-block's 6-bit scale gives exact int32 lanes of scale * sum(q * x) (levels <= 15, |x| <= 127:
// no int16 saturation); the mins use the activation's 16-value sums (bsums), as in GGML.
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/k_scales.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/k_avx2_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q4_KAvx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    // vpshufb masks broadcasting int16 lane i (0..7) of each 128-bit half. (Local constants: a
    // namespace-scope __m256i would be initialized with AVX2 code at start-up, on any CPU.)
    const __m256i kScaleShuffle[8] = {_mm256_set1_epi16(0x0100), _mm256_set1_epi16(0x0302),
                                      _mm256_set1_epi16(0x0504), _mm256_set1_epi16(0x0706),
                                      _mm256_set1_epi16(0x0908), _mm256_set1_epi16(0x0B0A),
                                      _mm256_set1_epi16(0x0D0C), _mm256_set1_epi16(0x0F0E)};

    __m256 acc[R];
    __m128 accm[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm256_setzero_ps();
      accm[r] = _mm_setzero_ps();
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      __m256i xv[8];
      for (int t = 0; t < 8; ++t) xv[t] = x86::Load32(bx[b].qs + 32 * t);
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ4_K*>(w + r * wrb)[b];
        // Scales in int16 lanes 0..7 of both 128-bit halves, mins in lanes 8..15.
        const KScaleMin smb = ScaleMinBytes(bw.scales);
        const __m128i smv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(smb.data()));
        const __m128i sm = _mm_cvtepu8_epi16(smv);
        const __m128i sm_hi = _mm_cvtepu8_epi16(_mm_srli_si128(smv, 8));
        const __m256i sc16 = _mm256_broadcastsi128_si256(sm);
        // Sum over sub-blocks of min * (sum of its 32 x) = sum of mins x pairwise bsums.
        const __m256i bs = x86::Load32(bx[b].bsums);
        const __m128i bs_pairs =
            _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
        const __m128i prod = _mm_madd_epi16(sm_hi, bs_pairs);
        __m256i sumi = _mm256_setzero_si256();

        for (int j = 0; j < 4; ++j) {
          const __m256i q = x86::Load32(bw.qs + 32 * j);
          __m256i lo = _mm256_and_si256(q, m4);
          __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);

          const __m256i p0 = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, xv[2 * j]),
                                               _mm256_shuffle_epi8(sc16, kScaleShuffle[2 * j]));
          const __m256i p1 = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, xv[2 * j + 1]),
                                               _mm256_shuffle_epi8(sc16, kScaleShuffle[2 * j + 1]));
          sumi = _mm256_add_epi32(sumi, _mm256_add_epi32(p0, p1));
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        const float dmin = blocks::Fp16ToFloat(bw.dmin) * bx[b].d;
        acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc[r]);
        accm[r] = _mm_fmadd_ps(_mm_set1_ps(dmin), _mm_cvtepi32_ps(prod), accm[r]);
      }
    }
    for (int r = 0; r < R; ++r)
      out[r] = x86::HSum(_mm256_sub_ps(acc[r], _mm256_setr_m128(accm[r], _mm_setzero_ps())));
  }
};

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
