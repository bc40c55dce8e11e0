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
    // vpshufb masks: int16 lane 2t in the low 128-bit half, lane 2t + 1 in the high half.
    const __m256i kPairShuffle[4] = {_mm256_setr_epi64x(0x0100010001000100, 0x0100010001000100,
                                                        0x0302030203020302, 0x0302030203020302),
                                     _mm256_setr_epi64x(0x0504050405040504, 0x0504050405040504,
                                                        0x0706070607060706, 0x0706070607060706),
                                     _mm256_setr_epi64x(0x0908090809080908, 0x0908090809080908,
                                                        0x0B0A0B0A0B0A0B0A, 0x0B0A0B0A0B0A0B0A),
                                     _mm256_setr_epi64x(0x0D0C0D0C0D0C0D0C, 0x0D0C0D0C0D0C0D0C,
                                                        0x0F0E0F0E0F0E0F0E, 0x0F0E0F0E0F0E0F0E)};
    __m256 acc[R];
    __m256 accc[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = _mm256_setzero_ps();
      accc[r] = _mm256_setzero_ps();
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ6_K*>(w + r * wrb)[b];
        const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bw.scales));
        const __m256i sc16all = _mm256_cvtepi8_epi16(sc8);  // the 16 group scales as int16
        // 32 * sum(scale * bsum): the -32 offset of every level.
        const __m256i corr = _mm256_madd_epi16(sc16all, x86::Load32(bx[b].bsums));
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
          // int16 group scales 8n .. 8n + 7 in both 128-bit halves.
          const __m256i sc16 = _mm256_broadcastsi128_si256(_mm_cvtepi8_epi16(
              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(bw.scales + 8 * n))));
          for (int t = 0; t < 4; ++t) {
            const __m256i xv = x86::Load32(bx[b].qs + 128 * n + 32 * t);
            const __m256i s16 = _mm256_shuffle_epi8(sc16, kPairShuffle[t]);
            sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(_mm256_maddubs_epi16(v[t], xv), s16));
          }
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        acc[r] = _mm256_fmadd_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(sumi), acc[r]);
        accc[r] = _mm256_fmadd_ps(_mm256_set1_ps(32.0f * d), _mm256_cvtepi32_ps(corr), accc[r]);
      }
    }
    for (int r = 0; r < R; ++r) out[r] = x86::HSum(_mm256_sub_ps(acc[r], accc[r]));
  }
};

}  // namespace

const KernelEntry kQ6_KAvx2Gemv = {
    Encoding::kQ6_K, Isa::kAvx2, Shape::kGemv, "q6_k_avx2_gemv",          QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemv<ByRow<Q6_KAvx2>>, 16};
const KernelEntry kQ6_KAvx2Gemm = {
    Encoding::kQ6_K, Isa::kAvx2, Shape::kGemm, "q6_k_avx2_gemm",          QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,    nullptr,      RowsGemm<ByRow<Q6_KAvx2>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
