// AVX-512F attention (16 floats per vector; row tails through masked loads).
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/vector/exp_avx512.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

__mmask16 Avx512TailMask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
}

struct Avx512Ops {
  static float Dot(const float* a, const float* b, int64_t n) {
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
      s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    }
    for (; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    const __m512 va = _mm512_set1_ps(a);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      _mm512_mask_storeu_ps(
          y + i, m,
          _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i)));
    }
  }
  static void Scale(float* y, float a, int64_t n) {
    const __m512 va = _mm512_set1_ps(a);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m, y + i)));
    }
  }
  static float Max(const float* x, int64_t n) {
    __m512 vm = _mm512_set1_ps(x[0]);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      vm = _mm512_mask_max_ps(vm, m, vm, _mm512_maskz_loadu_ps(m, x + i));
    }
    return _mm512_reduce_max_ps(vm);
  }
  static float ExpSum(float* x, int64_t n, float max) {
    const __m512 vmax = _mm512_set1_ps(max);
    __m512 vs = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      const __m512 e = Avx512Exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vmax));
      _mm512_mask_storeu_ps(x + i, m, e);
      vs = _mm512_mask_add_ps(vs, m, vs, e);
    }
    return _mm512_reduce_add_ps(vs);
  }
};

const AttentionKernel kKernel = {"attention_avx512", Isa::kAvx512Vnni, &AttendGroup<Avx512Ops>};

}  // namespace
}  // namespace x86

const AttentionKernel* const kAttentionAvx512 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
