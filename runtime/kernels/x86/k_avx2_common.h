// Small AVX2 helpers shared by the K-quant AVX2 kernel files (compiled with their flags).
#ifndef EDGEQ_RUNTIME_KERNELS_X86_K_AVX2_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_X86_K_AVX2_COMMON_H_

#include <immintrin.h>

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {

inline float HSum(__m256 a) {
  const __m128 h = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  const __m128 h2 = _mm_add_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_add_ss(h2, _mm_movehdup_ps(h2)));
}

inline __m256i Load32(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_K_AVX2_COMMON_H_
