// The row kernel of the 16-bit float weights (bf16, f16) x f32 activations with AVX2 + FMA: 4
// weight rows at a time against one activation row, each weight converted to f32 by C::Convert
// (8 values) and C::ToFloat (the tail). Include only from files built with -mavx2 -mfma (-mf16c).
#ifndef EDGEQ_RUNTIME_KERNELS_X86_HALF_ROWS_AVX2_H_
#define EDGEQ_RUNTIME_KERNELS_X86_HALF_ROWS_AVX2_H_

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
// Internal linkage: each including file keeps its own copy (compiled with its own flags).
namespace {

template <typename C>
struct HalfRowsAvx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* xb, int64_t k, float* out) {
    const float* x = reinterpret_cast<const float*>(xb);
    __m256 acc[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    int64_t l = 0;
    for (; l + 8 <= k; l += 8) {
      const __m256 xv = _mm256_loadu_ps(x + l);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        // The same columns of the next group of 4 rows (read one group later; a GEMV streams).
        if ((l & 31) == 0) {
          _mm_prefetch(reinterpret_cast<const char*>(w + (r + 4) * wrb + 2 * l), _MM_HINT_T0);
        }
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + r * wrb + 2 * l));
        acc[r] = _mm256_fmadd_ps(C::Convert(h), xv, acc[r]);
      }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m128 h = _mm_add_ps(_mm256_castps256_ps128(acc[r]), _mm256_extractf128_ps(acc[r], 1));
      const __m128 h2 = _mm_add_ps(h, _mm_movehl_ps(h, h));
      float s = _mm_cvtss_f32(_mm_add_ss(h2, _mm_movehdup_ps(h2)));
      for (int64_t t = l; t < k; ++t) {
        uint16_t b;
        std::memcpy(&b, w + r * wrb + 2 * t, 2);
        s += C::ToFloat(b) * x[t];
      }
      out[r] = s;
    }
  }
};

}  // namespace
}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_HALF_ROWS_AVX2_H_
