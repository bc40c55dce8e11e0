// AVX-512F delta rule (delta_rule.h): a state row's 16-lane partial sums are one vector; rows
// whose length is not a multiple of 16 go through the generic code.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/vector/delta_rule.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

// Lanes added 8, 4, 2 and 1 apart (delta_rule.h's order).
float SumLanes16(__m512 v) {
  const __m256 a =
      _mm256_add_ps(_mm512_castps512_ps256(v),
                    _mm256_castsi256_ps(_mm512_extracti64x4_epi64(_mm512_castps_si512(v), 1)));
  const __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  const __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  return _mm_cvtss_f32(_mm_add_ss(c, _mm_shuffle_ps(c, c, 1)));
}

void TokenAvx512(float* m, const float* k, const float* q, const float* v, float decay, float b,
                 float scale, int64_t s, float* o) {
  if (s % 16 != 0) {
    DeltaRuleTokenGeneric(m, k, q, v, decay, b, scale, s, o);
    return;
  }
  const __m512 vdecay = _mm512_set1_ps(decay);
  for (int64_t j = 0; j < s; ++j) {
    float* mj = m + j * s;
    __m512 dot = _mm512_setzero_ps();
    for (int64_t i = 0; i < s; i += 16) {
      const __m512 x = _mm512_mul_ps(_mm512_loadu_ps(mj + i), vdecay);
      dot = _mm512_add_ps(dot, _mm512_mul_ps(x, _mm512_loadu_ps(k + i)));
    }
    const __m512 d = _mm512_set1_ps((v[j] - SumLanes16(dot)) * b);
    __m512 out = _mm512_setzero_ps();
    for (int64_t i = 0; i < s; i += 16) {
      const __m512 x = _mm512_add_ps(_mm512_mul_ps(_mm512_loadu_ps(mj + i), vdecay),
                                     _mm512_mul_ps(_mm512_loadu_ps(k + i), d));
      _mm512_storeu_ps(mj + i, x);
      out = _mm512_add_ps(out, _mm512_mul_ps(x, _mm512_loadu_ps(q + i)));
    }
    o[j] = SumLanes16(out) * scale;
  }
}

const DeltaRuleKernel kKernel = {"delta_rule_avx512", Isa::kAvx512Vnni, &TokenAvx512};

}  // namespace
}  // namespace x86

const DeltaRuleKernel* const kDeltaRuleAvx512 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
