// AVX2 + FMA attention (8 floats per vector).
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/vector/exp_avx2.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

float HSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

float HMax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

struct Avx2Ops {
  static float Dot(const float* a, const float* b, int64_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
      s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    }
    for (; i + 8 <= n; i += 8) {
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    }
    float s = HSum(_mm256_add_ps(s0, s1));
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    const __m256 va = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    }
    for (; i < n; ++i) y[i] += a * x[i];
  }
  static void Scale(float* y, float a, int64_t n) {
    const __m256 va = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(va, _mm256_loadu_ps(y + i)));
    for (; i < n; ++i) y[i] *= a;
  }
  static float Max(const float* x, int64_t n) {
    int64_t i = 0;
    float m = x[0];
    if (n >= 8) {
      __m256 vm = _mm256_loadu_ps(x);
      for (i = 8; i + 8 <= n; i += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
      m = HMax(vm);
    }
    for (; i < n; ++i) m = m > x[i] ? m : x[i];
    return m;
  }
  static float ExpSum(float* x, int64_t n, float max) {
    const __m256 vmax = _mm256_set1_ps(max);
    __m256 vs = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 e = Avx2Exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmax));
      _mm256_storeu_ps(x + i, e);
      vs = _mm256_add_ps(vs, e);
    }
    float s = HSum(vs);
    for (; i < n; ++i) {
      x[i] = std::exp(x[i] - max);
      s += x[i];
    }
    return s;
  }
};

const AttentionKernel kKernel = {"attention_avx2", Isa::kAvx2, &AttendGroup<Avx2Ops>};

}  // namespace
}  // namespace x86

const AttentionKernel* const kAttentionAvx2 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
