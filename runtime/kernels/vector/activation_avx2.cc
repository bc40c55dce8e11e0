// AVX2 + FMA activations (8 floats per vector; the tail through the generic formula).
#include <immintrin.h>

#include <cmath>
#include <cstdint>

#include "runtime/kernels/vector/activation.h"
#include "runtime/kernels/vector/exp_avx2.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

__m256 Avx2Silu(__m256 x) {
  const __m256 e = Avx2Exp(_mm256_sub_ps(_mm256_setzero_ps(), x));
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

void SiluAvx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Avx2Silu(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void SwigluAvx2(const float* gate, const float* up, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm256_storeu_ps(y + i,
                     _mm256_mul_ps(Avx2Silu(_mm256_loadu_ps(gate + i)), _mm256_loadu_ps(up + i)));
  }
  for (; i < n; ++i) y[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

const ActivationKernel kKernel = {"activation_avx2", Isa::kAvx2, &SiluAvx2, &SwigluAvx2};

}  // namespace
}  // namespace x86

const ActivationKernel* const kActivationAvx2 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
