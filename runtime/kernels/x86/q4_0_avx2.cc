// Q4_0 x Q8_0 with AVX2 (vpmaddubsw + vpmaddwd): weights in the Q4_0X4 layout, activations in
// Q8_0S. Per block: 16-bit pair sums of q * x (q <= 15, |x| <= 127: no saturation), widened to
// 8 int32 lanes, minus the lanes of 8 * x (computed once per activation block): exact integer
// sums of (q - 8) * x, scaled by d_w * d_x.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q4_0Avx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i eight = _mm256_set1_epi8(8);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t g = 0; g < nbp / 4; ++g) {
      __m256i xb[4], c8[4];
      for (int b = 0; b < 4; ++b) {
        xb[b] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xq + 128 * g + 32 * b));
        c8[b] = _mm256_madd_epi16(_mm256_maddubs_epi16(eight, xb[b]), ones);
      }
      const __m128 dx = _mm_loadu_ps(xd + 4 * g);
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        const __m256i v0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr + 64 * g));
        const __m256i v1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wr + 64 * g + 32));
        // Nibble planes: v0 low = block 0, v1 low = block 1, v0 high = block 2, v1 high = block 3.
        const __m256i q[4] = {_mm256_and_si256(v0, m4), _mm256_and_si256(v1, m4),
                              _mm256_and_si256(_mm256_srli_epi16(v0, 4), m4),
                              _mm256_and_si256(_mm256_srli_epi16(v1, 4), m4)};
        const __m128 dw =
            _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(wr + nbp * 16 + 8 * g)));
        const __m128 s = _mm_mul_ps(dw, dx);
        const __m256 s2 = _mm256_castps128_ps256(s);
        for (int b = 0; b < 4; ++b) {
          const __m256i p =
              _mm256_sub_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(q[b], xb[b]), ones), c8[b]);
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

const KernelEntry kQ4_0Avx2Gemv = {
    Encoding::kQ4_0, Isa::kAvx2,   Shape::kGemv,   "q4_0_avx2_gemv",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4, Q4_0X4RowBytes, RowsGemv<ByRow<Q4_0Avx2>>, 16};
const KernelEntry kQ4_0Avx2Gemm = {
    Encoding::kQ4_0, Isa::kAvx2,   Shape::kGemm,   "q4_0_avx2_gemm",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4, Q4_0X4RowBytes, RowsGemm<ByRow<Q4_0Avx2>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
