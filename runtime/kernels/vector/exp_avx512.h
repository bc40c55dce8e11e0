// exp(x) on 16 floats with AVX-512F, for the files compiled with -mavx2 -mfma -mavx512f only (an
// inline function: every includer must be built with exactly these flags).
#ifndef EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_AVX512_H_
#define EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_AVX512_H_

#include <immintrin.h>

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {

// As Avx2Exp (exp_avx2.h): x = n ln2 + r, degree-6 Taylor polynomial of e^r, scaled by 2^n
// (vscalefps); x clamped to [-87.34, 89] (+inf from 88.38 on).
inline __m512 Avx512Exp(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.33654f)), _mm512_set1_ps(89.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145752f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.42860677e-6f), r);
  __m512 p = _mm512_set1_ps(1.0f / 720);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_AVX512_H_
