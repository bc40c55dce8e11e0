// The AVX-VNNI byte-dot policy for x86::X4Avx2's layouts (x4_layouts.h): one VEX-encoded
// vpdpbusd in place of AVX2's vpmaddubsw + vpmaddwd. Include it only from files compiled with
// -mavxvnni.
#ifndef EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_
#define EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_

#include <immintrin.h>

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {

struct VnniDot {
  static inline __m256i Ubs(__m256i u, __m256i s) {
    return _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), u, s);
  }
};

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_
