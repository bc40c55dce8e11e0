// AVX-512F activations (16 floats per vector; the tail through masked loads and stores).
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/vector/activation.h"
#include "runtime/kernels/vector/exp_avx512.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

__mmask16 Avx512TailMask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
}

__m512 Avx512Silu(__m512 x) {
  const __m512 e = Avx512Exp(_mm512_sub_ps(_mm512_setzero_ps(), x));
  return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
}

void SiluAvx512(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Avx512TailMask(n - i);
    _mm512_mask_storeu_ps(y + i, m, Avx512Silu(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

void SwigluAvx512(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = Avx512TailMask(n - i);
    _mm512_mask_storeu_ps(y + i, m,
                          _mm512_mul_ps(Avx512Silu(_mm512_maskz_loadu_ps(m, gate + i)),
                                        _mm512_maskz_loadu_ps(m, up + i)));
  }
}

const ActivationKernel kKernel = {"activation_avx512", Isa::kAvx512Vnni, &SiluAvx512,
                                  &SwigluAvx512};

}  // namespace
}  // namespace x86

const ActivationKernel* const kActivationAvx512 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
