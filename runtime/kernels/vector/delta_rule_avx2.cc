// AVX2 delta rule (delta_rule.h): a state row's 16-lane partial sums are two 8-float vectors
// (lanes 0-7 and 8-15); rows whose length is not a multiple of 16 go through the generic code.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/vector/delta_rule.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

// Lanes added 8, 4, 2 and 1 apart (delta_rule.h's order).
float SumLanes16(__m256 lo, __m256 hi) {
  const __m256 a = _mm256_add_ps(lo, hi);
  const __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  const __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  return _mm_cvtss_f32(_mm_add_ss(c, _mm_shuffle_ps(c, c, 1)));
}

void TokenAvx2(float* m, const float* k, const float* q, const float* v, float decay, float b,
               float scale, int64_t s, float* o) {
  if (s % 16 != 0) {
    DeltaRuleTokenGeneric(m, k, q, v, decay, b, scale, s, o);
    return;
  }
  const __m256 vdecay = _mm256_set1_ps(decay);
  for (int64_t j = 0; j < s; ++j) {
    float* mj = m + j * s;
    __m256 dot[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t i = 0; i < s; i += 16) {
      for (int h = 0; h < 2; ++h) {
        const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(mj + i + 8 * h), vdecay);
        dot[h] = _mm256_add_ps(dot[h], _mm256_mul_ps(x, _mm256_loadu_ps(k + i + 8 * h)));
      }
    }
    const __m256 d = _mm256_set1_ps((v[j] - SumLanes16(dot[0], dot[1])) * b);
    __m256 out[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t i = 0; i < s; i += 16) {
      for (int h = 0; h < 2; ++h) {
        float* p = mj + i + 8 * h;
        const __m256 x = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(p), vdecay),
                                       _mm256_mul_ps(_mm256_loadu_ps(k + i + 8 * h), d));
        _mm256_storeu_ps(p, x);
        out[h] = _mm256_add_ps(out[h], _mm256_mul_ps(x, _mm256_loadu_ps(q + i + 8 * h)));
      }
    }
    o[j] = SumLanes16(out[0], out[1]) * scale;
  }
}

const DeltaRuleKernel kKernel = {"delta_rule_avx2", Isa::kAvx2, &TokenAvx2};

}  // namespace
}  // namespace x86

const DeltaRuleKernel* const kDeltaRuleAvx2 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
