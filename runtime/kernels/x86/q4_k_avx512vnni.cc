// Q4_K x Q8_K with AVX-512 VNNI: one 64-byte load holds the nibbles of 4 sub-blocks; the low
// plane is sub-blocks (0, 2) and the high plane (1, 3) of each 128-value half. Per plane:
// vpmaddubsw(levels, x) into int16 pair sums (15 * 127 * 2 fits) and vpdpwssd by the int16
// sub-block scales: exact int32 lanes of scale * level * x. The mins use the bsums, as in GGML.
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/k_scales.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

inline float Sum(__m512 a) {
  __m512 h = _mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0x4E));
  h = _mm512_add_ps(h, _mm512_shuffle_f32x4(h, h, 0xB1));
  const __m128 q = _mm512_castps512_ps128(h);
  const __m128 q2 = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q2, _mm_movehdup_ps(q2)));
}

inline __m512i Combine(const int8_t* lo, const int8_t* hi) {
  return _mm512_inserti64x4(
      _mm512_zextsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(lo))),
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(hi)), 1);
}

struct Q4_KVnni {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    // vpermw indices: int16 scale s in lanes 0..15 and scale s + 2 in lanes 16..31.
    const __m512i idx[4] = {_mm512_inserti64x4(_mm512_set1_epi16(0), _mm256_set1_epi16(2), 1),
                            _mm512_inserti64x4(_mm512_set1_epi16(1), _mm256_set1_epi16(3), 1),
                            _mm512_inserti64x4(_mm512_set1_epi16(4), _mm256_set1_epi16(6), 1),
                            _mm512_inserti64x4(_mm512_set1_epi16(5), _mm256_set1_epi16(7), 1)};
    __m512 acc[R];
    __m128 accm[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm512_setzero_ps();
      accm[r] = _mm_setzero_ps();
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const int8_t* q8 = bx[b].qs;
      // x of sub-blocks (0,2), (1,3), (4,6), (5,7).
      const __m512i xv[4] = {Combine(q8, q8 + 64), Combine(q8 + 32, q8 + 96),
                             Combine(q8 + 128, q8 + 192), Combine(q8 + 160, q8 + 224)};
      const __m256i bs = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bx[b].bsums));
      const __m128i bs_pairs =
          _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ4_K*>(w + r * wrb)[b];
        const KScaleMin smb = ScaleMinBytes(bw.scales);
        const __m128i smv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(smb.data()));
        const __m512i sc16 = _mm512_zextsi128_si512(_mm_cvtepu8_epi16(smv));
        const __m128i prod = _mm_madd_epi16(_mm_cvtepu8_epi16(_mm_srli_si128(smv, 8)), bs_pairs);
        const __m512i v0 = _mm512_loadu_si512(bw.qs);
        const __m512i v1 = _mm512_loadu_si512(bw.qs + 64);
        const __m512i planes[4] = {
            _mm512_and_si512(v0, m4), _mm512_and_si512(_mm512_srli_epi16(v0, 4), m4),
            _mm512_and_si512(v1, m4), _mm512_and_si512(_mm512_srli_epi16(v1, 4), m4)};
        __m512i sumi = _mm512_setzero_si512();
        for (int t = 0; t < 4; ++t) {
          sumi = _mm512_dpwssd_epi32(sumi, _mm512_maddubs_epi16(planes[t], xv[t]),
                                     _mm512_permutexvar_epi16(idx[t], sc16));
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        const float dmin = blocks::Fp16ToFloat(bw.dmin) * bx[b].d;
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(sumi), acc[r]);
        accm[r] = _mm_fmadd_ps(_mm_set1_ps(dmin), _mm_cvtepi32_ps(prod), accm[r]);
      }
    }
    for (int r = 0; r < R; ++r) {
      const __m128 m2 = _mm_add_ps(accm[r], _mm_movehl_ps(accm[r], accm[r]));
      out[r] = Sum(acc[r]) - _mm_cvtss_f32(_mm_add_ss(m2, _mm_movehdup_ps(m2)));
    }
  }
};

}  // namespace

const KernelEntry kQ4_KAvx512VnniGemv = {
    Encoding::kQ4_K, Isa::kAvx512Vnni, Shape::kGemv, "q4_k_avx512vnni_gemv", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,          nullptr,      RowsGemv<Q4_KVnni>,     16};
const KernelEntry kQ4_KAvx512VnniGemm = {
    Encoding::kQ4_K, Isa::kAvx512Vnni, Shape::kGemm, "q4_k_avx512vnni_gemm", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,          nullptr,      RowsGemm<Q4_KVnni>,     16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
