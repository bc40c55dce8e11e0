// AVX2 helpers and the row kernels shared by the AVX2 kernel files (q4_0/q8_0 over a block loader,
// Q4_K/Q5_K over a level decoder), compiled with those files' flags.
#ifndef EDGEQ_RUNTIME_KERNELS_X86_K_AVX2_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_X86_K_AVX2_COMMON_H_

#include <immintrin.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/k_scales.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/repack.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {

inline float HSum(__m256 a) {
  const __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  const __m128 h2 = _mm_add_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_add_ss(h2, _mm_movehdup_ps(h2)));
}

inline __m256i Load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

// q4_0/q8_0 x Q8_0S on the X4 layouts (internal/repack.h), R weight rows against one activation
// row, 4 blocks per step: exact int32 lanes per block, scaled by d_w * d_x. E (the encoding)
// provides: kQsBytesPerBlock; struct Group, built from the 4 activation blocks of a step;
// static void Load(const uint8_t* row, int64_t g, __m256i q[4]) (the 4 blocks' values); static
// __m256i Dot(const Group&, int b, __m256i q, __m256i x) (lanes summing to block b's dot).
template <typename E>
struct X4Avx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    __m256 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t g = 0; g < nbp / 4; ++g) {
      __m256i xb[4];
      for (int b = 0; b < 4; ++b) xb[b] = Load32(xq + 128 * g + 32 * b);
      const typename E::Group group(xb);
      const __m128 dx = _mm_loadu_ps(xd + 4 * g);
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        __m256i q[4];
        E::Load(wr, g, q);
        const __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64(
            reinterpret_cast<const __m128i*>(wr + nbp * E::kQsBytesPerBlock + 8 * g)));
        const __m256 s = _mm256_castps128_ps256(_mm_mul_ps(dw, dx));
        for (int b = 0; b < 4; ++b) {
          const __m256 sb = _mm256_permutevar8x32_ps(s, _mm256_set1_epi32(b));
          acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(E::Dot(group, b, q[b], xb[b])), sb, acc[r]);
        }
      }
    }
    for (int r = 0; r < R; ++r) out[r] = HSum(acc[r]);
  }
};

// Q4_K/Q5_K x Q8_K, one weight row at a time (ByRow): per 32-value sub-block, vpmaddubsw(levels,
// x) then vpmaddwd by the sub-block's 6-bit scale gives exact int32 lanes of scale * sum(q * x)
// (levels <= 31, |x| <= 127: no int16 saturation); the mins use the activation's 16-value sums
// (bsums), as in GGML. L (the encoding's level decoder) provides: using Block; explicit L(const
// Block&); void AddHighBits(__m256i* lo, __m256i* hi) adding the high bits of the next 64 levels
// (called once per 64 values, in order).
template <typename L>
struct K45Avx2 {
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
      for (int t = 0; t < 8; ++t) xv[t] = Load32(bx[b].qs + 32 * t);
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const typename L::Block*>(w + r * wrb)[b];
        // Scales in int16 lanes 0..7 of both 128-bit halves, mins in lanes 8..15.
        const KScaleMin smb = ScaleMinBytes(bw.scales);
        const __m128i smv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(smb.data()));
        const __m128i sm = _mm_cvtepu8_epi16(smv);
        const __m128i sm_hi = _mm_cvtepu8_epi16(_mm_srli_si128(smv, 8));
        const __m256i sc16 = _mm256_broadcastsi128_si256(sm);
        // Sum over sub-blocks of min * (sum of its 32 x) = sum of mins x pairwise bsums.
        const __m256i bs = Load32(bx[b].bsums);
        const __m128i bs_pairs =
            _mm_hadd_epi16(_mm256_castsi256_si128(bs), _mm256_extracti128_si256(bs, 1));
        const __m128i prod = _mm_madd_epi16(sm_hi, bs_pairs);
        __m256i sumi = _mm256_setzero_si256();
        L levels(bw);
        for (int j = 0; j < 4; ++j) {
          const __m256i q = Load32(bw.qs + 32 * j);
          __m256i lo = _mm256_and_si256(q, m4);
          __m256i hi = _mm256_and_si256(_mm256_srli_epi16(q, 4), m4);
          levels.AddHighBits(&lo, &hi);

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
      out[r] = HSum(_mm256_sub_ps(acc[r], _mm256_setr_m128(accm[r], _mm_setzero_ps())));
  }
};

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_K_AVX2_COMMON_H_
