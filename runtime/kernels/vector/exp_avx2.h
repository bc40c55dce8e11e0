// exp(x) on 8 floats with AVX2 + FMA, for the files compiled with -mavx2 -mfma only (an inline
// function: every includer must be built with exactly these flags, so that the linker's merged
// copy never runs on a CPU without them).
#ifndef EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_AVX2_H_
#define EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_AVX2_H_

#include <immintrin.h>

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {

// x = n ln2 + r, |r| <= ln2 / 2 (ln2 split in two for the reduction), e^r by its degree-6 Taylor
// polynomial (relative error < 2e-7), times 2^n. x is clamped to [-87.34, 89]: below, the result
// is the smallest normal (about 1e-38); from 88.38 on (n = 128) it is +inf, as e^x overflows f32
// from 88.72 on.
inline __m256 Avx2Exp(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.33654f)), _mm256_set1_ps(89.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145752f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.42860677e-6f), r);
  __m256 p = _mm256_set1_ps(1.0f / 720);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_AVX2_H_
