// Q6_K x Q8_K with AVX-512 VNNI: per 128-value half, one 64-byte load of ql gives the low nibbles
// of values 0..63 and the high nibbles of 64..127, each matching 64 contiguous x; the 2-bit high
// parts come from qh. vpmaddubsw(level, x) (63 * 127 * 2 fits int16) and vpdpwssd by the int16
// group scales accumulate exact int32 lanes; the -32 offset is 32 * sum(scale * bsum).
#include <immintrin.h>

#include "quantization/block_layout.h"
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

inline __m512i Combine(__m256i lo, __m256i hi) {
  return _mm512_inserti64x4(_mm512_zextsi256_si512(lo), hi, 1);
}

struct Q6_KVnni {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const __m512i m4 = _mm512_set1_epi8(0x0F);
    const __m512i m3 = _mm512_set1_epi8(3);
    // vpermw indices: int16 group scales 0..3 (low plane) and 4..7 (high plane), 8 lanes each.
    const __m512i idx_lo =
        _mm512_setr_epi64(0, 0, 0x0001000100010001, 0x0001000100010001, 0x0002000200020002,
                          0x0002000200020002, 0x0003000300030003, 0x0003000300030003);
    const __m512i idx_hi = _mm512_add_epi16(idx_lo, _mm512_set1_epi16(4));
    __m512 acc[R];
    __m256 accc[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm512_setzero_ps();
      accc[r] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const __m256i bsums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bx[b].bsums));
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ6_K*>(w + r * wrb)[b];
        const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bw.scales));
        const __m256i corr = _mm256_madd_epi16(_mm256_cvtepi8_epi16(sc8), bsums);
        __m512i sumi = _mm512_setzero_si512();
        for (int n = 0; n < 2; ++n) {
          const __m512i ql = _mm512_loadu_si512(bw.ql + 64 * n);
          const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bw.qh + 32 * n));
          const __m512i qh_lo = Combine(qh, _mm256_srli_epi16(qh, 2));
          const __m512i qh_hi = Combine(_mm256_srli_epi16(qh, 4), _mm256_srli_epi16(qh, 6));
          const __m512i lo = _mm512_or_si512(_mm512_and_si512(ql, m4),
                                             _mm512_slli_epi16(_mm512_and_si512(qh_lo, m3), 4));
          const __m512i hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), m4),
                                             _mm512_slli_epi16(_mm512_and_si512(qh_hi, m3), 4));
          const __m512i sc16 = _mm512_zextsi128_si512(_mm_cvtepi8_epi16(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bw.scales + 8 * n))));
          const int8_t* q8 = bx[b].qs + 128 * n;
          sumi = _mm512_dpwssd_epi32(sumi, _mm512_maddubs_epi16(lo, _mm512_loadu_si512(q8)),
                                     _mm512_permutexvar_epi16(idx_lo, sc16));
          sumi = _mm512_dpwssd_epi32(sumi, _mm512_maddubs_epi16(hi, _mm512_loadu_si512(q8 + 64)),
                                     _mm512_permutexvar_epi16(idx_hi, sc16));
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(sumi), acc[r]);
        accc[r] = _mm256_fmadd_ps(_mm256_set1_ps(32.0f * d), _mm256_cvtepi32_ps(corr), accc[r]);
      }
    }
    for (int r = 0; r < R; ++r) {
      const __m128 h =
          _mm_add_ps(_mm256_castps256_ps128(accc[r]), _mm256_extractf128_ps(accc[r], 1));
      const __m128 h2 = _mm_add_ps(h, _mm_movehl_ps(h, h));
      out[r] = Sum(acc[r]) - _mm_cvtss_f32(_mm_add_ss(h2, _mm_movehdup_ps(h2)));
    }
  }
};

}  // namespace

const KernelEntry kQ6_KAvx512VnniGemv = {
    Encoding::kQ6_K, Isa::kAvx512Vnni, Shape::kGemv, "q6_k_avx512vnni_gemv",    QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,          nullptr,      RowsGemv<ByRow<Q6_KVnni>>, 16};
const KernelEntry kQ6_KAvx512VnniGemm = {
    Encoding::kQ6_K, Isa::kAvx512Vnni, Shape::kGemm, "q6_k_avx512vnni_gemm", QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,          nullptr,      RowsGemm<Q6_KVnni>,     16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
