// Q8_0: 32 values in 34 bytes (fp16 scale d, 32 int8 quants); x = q * d.
//
// Matches GGML's quantize_row_q8_0_ref / dequantize_row_q8_0 bit for bit (roundf: half away
// from zero). Where GGML has undefined behaviour (a block whose largest |x| is below about
// 3.7e-37: the f32 scale is subnormal, 1/d is inf and GGML converts inf/NaN to int8), edgeq
// stores all-zero quants; the stored fp16 scale is 0, so the block decodes to zeros either way.
#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK8_0;
constexpr int kBlockBytes = sizeof(blocks::BlockQ8_0);

inline void QuantizeBlock(const float* x, uint8_t* out) {
#if defined(__SSE2__)
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  __m128 m = _mm_setzero_ps();
  for (int k = 0; k < 8; ++k) m = _mm_max_ps(m, _mm_and_ps(_mm_loadu_ps(x + 4 * k), abs_mask));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  const float amax = _mm_cvtss_f32(m);
#else
  float amax = 0.0f;
  for (int j = 0; j < kQK; ++j) {
    const float a = std::fabs(x[j]);
    amax = amax > a ? amax : a;
  }
#endif
  const float d = amax / ((1 << 7) - 1);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  StoreU16(out, blocks::FloatToFp16(d));
  int8_t* qs = reinterpret_cast<int8_t*>(out + 2);
  if (std::isinf(id)) {  // subnormal d: GGML's UB case, defined here as zero quants
    for (int j = 0; j < kQK; ++j) qs[j] = 0;
    return;
  }
#if defined(__SSE2__)
  // roundf(v) = trunc(v) + (|v - trunc(v)| >= 0.5 ? sign(v) : 0); v - trunc(v) is exact.
  const __m128 vid = _mm_set1_ps(id);
  const __m128 half = _mm_set1_ps(0.5f);
  const __m128 neg_half = _mm_set1_ps(-0.5f);
  __m128i q[8];
  for (int k = 0; k < 8; ++k) {
    const __m128 v = _mm_mul_ps(_mm_loadu_ps(x + 4 * k), vid);
    const __m128i t = _mm_cvttps_epi32(v);
    const __m128 frac = _mm_sub_ps(v, _mm_cvtepi32_ps(t));
    // Comparison masks are -1 where true: subtracting the "up" mask adds 1.
    const __m128i up = _mm_castps_si128(_mm_cmpge_ps(frac, half));
    const __m128i down = _mm_castps_si128(_mm_cmple_ps(frac, neg_half));
    q[k] = _mm_add_epi32(_mm_sub_epi32(t, up), down);
  }
  const __m128i w0 = _mm_packs_epi32(q[0], q[1]);
  const __m128i w1 = _mm_packs_epi32(q[2], q[3]);
  const __m128i w2 = _mm_packs_epi32(q[4], q[5]);
  const __m128i w3 = _mm_packs_epi32(q[6], q[7]);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(qs), _mm_packs_epi16(w0, w1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + 16), _mm_packs_epi16(w2, w3));
#else
  for (int j = 0; j < kQK; ++j) qs[j] = static_cast<int8_t>(std::roundf(x[j] * id));
#endif
}

}  // namespace

void QuantizeRowQ8_0(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ8_0(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const int8_t* qs = reinterpret_cast<const int8_t*>(b + 2);
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK; ++j) yb[j] = static_cast<float>(qs[j]) * d;
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
