// Q8_0 x Q8_0 with AVX2: weights in the Q8_0X4 layout (signed), activations in Q8_0S. Per block:
// vpmaddubsw(|w|, sign(x, w)) (|w| <= 128, |x| <= 127: no saturation) and vpmaddwd into 8 exact
// int32 lanes, scaled by d_w * d_x.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q8_0Avx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t g = 0; g < nbp / 4; ++g) {
      __m256i xb[4];
      for (int b = 0; b < 4; ++b) {
        xb[b] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq + 128 * g + 32 * b));
      }
      const __m128 dx = _mm_loadu_ps(xd + 4 * g);
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        const __m128 dw =
            _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(wr + nbp * 32 + 8 * g)));
        const __m256 s2 = _mm256_castps128_ps256(_mm_mul_ps(dw, dx));
        for (int b = 0; b < 4; ++b) {
          const __m256i wv =
              _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr + 128 * g + 32 * b));
          const __m256i p = _mm256_madd_epi16(
              _mm256_maddubs_epi16(_mm256_sign_epi8(wv, wv), _mm256_sign_epi8(xb[b], wv)), ones);
          const __m256 sb = _mm256_permutevar8x32_ps(s2, _mm256_set1_epi32(b));
          acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), sb, acc[r]);
        }
      }
    }
    for (int r = 0; r < R; ++r) {
      const __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc[r]), _mm256_extractf128_ps(acc[r], 1));
      const __m128 h2 = _mm_add_ps(h, _mm_movehl_ps(h, h));
      out[r] = _mm_cvtss_f32(_mm_add_ss(h2, _mm_movehdup_ps(h2)));
    }
  }
};

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
