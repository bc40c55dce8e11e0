// Q4_0: 32 values in 18 bytes (fp16 scale d, 16 bytes of 4-bit quants); x = (q - 8) * d.
//
// Matches GGML's quantize_row_q4_0_ref / dequantize_row_q4_0 bit for bit. One deviation, where
// GGML's C code has undefined behaviour: when the f32 scale is so small (|max| below about
// 2.4e-38) that 1/d overflows to inf, GGML converts inf/NaN to int8 (gcc and clang builds store
// different bytes); edgeq stores all-zero quants. The fp16 scale of such a block is +-0, so every
// dequantized value is +-0 either way.
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

constexpr int kQK = blocks::kQK4_0;
constexpr int kBlockBytes = sizeof(blocks::BlockQ4_0);

// The signed value with the largest magnitude; the first one wins a tie (GGML's `amax < |v|`),
// and an all-zero block gives +0.
inline float SignedAbsMax(const float* x) {
#if defined(__SSE2__)
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  __m128 a[8];
  for (int k = 0; k < 8; ++k) a[k] = _mm_and_ps(_mm_loadu_ps(x + 4 * k), abs_mask);
  __m128 m = _mm_max_ps(_mm_max_ps(_mm_max_ps(a[0], a[1]), _mm_max_ps(a[2], a[3])),
                        _mm_max_ps(_mm_max_ps(a[4], a[5]), _mm_max_ps(a[6], a[7])));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  const float amax = _mm_cvtss_f32(m);
  if (amax == 0.0f) return 0.0f;
  for (int k = 0; k < 8; ++k) {
    const int mask = _mm_movemask_ps(_mm_cmpeq_ps(a[k], m));
    if (mask != 0) return x[4 * k + __builtin_ctz(static_cast<unsigned>(mask))];
  }
  return 0.0f;  // unreachable for finite input
#else
  float amax = 0.0f;
  float max = 0.0f;
  for (int j = 0; j < kQK; ++j) {
    const float v = x[j];
    if (amax < std::fabs(v)) {
      amax = std::fabs(v);
      max = v;
    }
  }
  return max;
#endif
}

inline void QuantizeBlock(const float* x, uint8_t* out) {
  const float max = SignedAbsMax(x);
  const float d = max / -8;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  StoreU16(out, blocks::FloatToFp16(d));
  uint8_t* qs = out + 2;
  if (std::isinf(id)) {  // subnormal d: GGML's UB case, defined here as zero quants
    for (int j = 0; j < kQK / 2; ++j) qs[j] = 0;
    return;
  }
#if defined(__SSE2__)
  const __m128 vid = _mm_set1_ps(id);
  const __m128 half = _mm_set1_ps(8.5f);
  __m128i q[8];
  for (int k = 0; k < 8; ++k) {
    q[k] = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(x + 4 * k), vid), half));
  }
  const __m128i fifteen = _mm_set1_epi16(15);
  const __m128i lo0 = _mm_min_epi16(_mm_packs_epi32(q[0], q[1]), fifteen);
  const __m128i lo1 = _mm_min_epi16(_mm_packs_epi32(q[2], q[3]), fifteen);
  const __m128i hi0 = _mm_min_epi16(_mm_packs_epi32(q[4], q[5]), fifteen);
  const __m128i hi1 = _mm_min_epi16(_mm_packs_epi32(q[6], q[7]), fifteen);
  const __m128i lo = _mm_packus_epi16(lo0, lo1);
  const __m128i hi = _mm_packus_epi16(hi0, hi1);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(qs), _mm_or_si128(lo, _mm_slli_epi16(hi, 4)));
#else
  for (int j = 0; j < kQK / 2; ++j) {
    const float x0 = x[j] * id;
    const float x1 = x[kQK / 2 + j] * id;
    const int q0 = static_cast<int8_t>(x0 + 8.5f);
    const int q1 = static_cast<int8_t>(x1 + 8.5f);
    const uint8_t xi0 = static_cast<uint8_t>(q0 < 15 ? q0 : 15);
    const uint8_t xi1 = static_cast<uint8_t>(q1 < 15 ? q1 : 15);
    qs[j] = static_cast<uint8_t>(xi0 | (xi1 << 4));
  }
#endif
}

}  // namespace

void QuantizeRowQ4_0(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ4_0(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const uint8_t* qs = b + 2;
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK / 2; ++j) {
      const int x0 = (qs[j] & 0x0f) - 8;
      const int x1 = (qs[j] >> 4) - 8;
      yb[j] = static_cast<float>(x0) * d;
      yb[j + kQK / 2] = static_cast<float>(x1) * d;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
