// The AVX-VNNI byte-dot policies of the 256-bit kernels: for x86::X4Avx2's layouts (avx2_x4.h)
// one VEX-encoded vpdpbusd in place of AVX2's vpmaddubsw + vpmaddwd; for the K-quant X16 driver
// (avx2_x16.h) one vpdpbusd per quad vector in place of MaddQuads. Include it only from files
// compiled with -mavxvnni.
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

struct VnniQuads {
  static inline __m256i Acc(__m256i acc, const __m256i* w, const __m256i* x) {
    acc = _mm256_dpbusd_avx_epi32(acc, w[0], x[0]);
    acc = _mm256_dpbusd_avx_epi32(acc, w[1], x[1]);
    acc = _mm256_dpbusd_avx_epi32(acc, w[2], x[2]);
    return _mm256_dpbusd_avx_epi32(acc, w[3], x[3]);
  }
};

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_
