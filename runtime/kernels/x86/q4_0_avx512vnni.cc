// Q4_0 x Q8_0 with AVX-512 VNNI (vpdpbusd): weights in the Q4_0X4 layout (4 blocks per 64 bytes,
// two blocks per nibble plane), activations in Q8_0S. Per 4-block group and weight row: two
// vpdpbusd whose accumulators start at -8 * (sum of x) per lane, so every lane holds an exact
// integer sum of (q - 8) * x; the 16 lanes are scaled by d_w * d_x of their block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Horizontal sum (not _mm512_reduce_add_ps, which trips GCC 12's -Wmaybe-uninitialized).
inline float Sum(__m512 a) {
  __m512 h = _mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0x4E));
  h = _mm512_add_ps(h, _mm512_shuffle_f32x4(h, h, 0xB1));
  const __m128 q = _mm512_castps512_ps128(h);
  const __m128 q2 = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q2, _mm_movehdup_ps(q2)));
}

struct Q4_0Vnni {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    const __m512i eight = _mm512_set1_epi8(8);
    const __m512i idx01 = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m512i idx23 = _mm512_setr_epi32(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    __m512 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm512_setzero_ps();
    for (int64_t g = 0; g < nbp / 4; ++g) {
      const __m512i xa = _mm512_loadu_si512(xq + 128 * g);
      const __m512i xb = _mm512_loadu_si512(xq + 128 * g + 64);
      const __m512i na = _mm512_sub_epi32(_mm512_setzero_si512(),
                                          _mm512_dpbusd_epi32(_mm512_setzero_si512(), eight, xa));
      const __m512i nb = _mm512_sub_epi32(_mm512_setzero_si512(),
                                          _mm512_dpbusd_epi32(_mm512_setzero_si512(), eight, xb));
      const __m128 dx = _mm_loadu_ps(xd + 4 * g);
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        const __m512i v = _mm512_loadu_si512(wr + 64 * g);
        const __m512i lo = _mm512_and_si512(v, m4);
        const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(v, 4), m4);
        const __m512i ia = _mm512_dpbusd_epi32(na, lo, xa);
        const __m512i ib = _mm512_dpbusd_epi32(nb, hi, xb);
        const __m128 dw =
            _mm_cvtph_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(wr + nbp * 16 + 8 * g)));
        const __m512 s = _mm512_castps128_ps512(_mm_mul_ps(dw, dx));
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ia), _mm512_permutexvar_ps(idx01, s), acc[r]);
        acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(ib), _mm512_permutexvar_ps(idx23, s), acc[r]);
      }
    }
    for (int r = 0; r < R; ++r) out[r] = Sum(acc[r]);
  }
};

}  // namespace

const KernelEntry kQ4_0Avx512VnniGemv = {
    Encoding::kQ4_0, Isa::kAvx512Vnni, Shape::kGemv,   "q4_0_avx512vnni_gemv", QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4,     Q4_0X4RowBytes, RowsGemv<Q4_0Vnni>,     16};
const KernelEntry kQ4_0Avx512VnniGemm = {
    Encoding::kQ4_0, Isa::kAvx512Vnni, Shape::kGemm,   "q4_0_avx512vnni_gemm", QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4,     Q4_0X4RowBytes, RowsGemm<Q4_0Vnni>,     16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
