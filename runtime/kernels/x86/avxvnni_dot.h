// The AVX-VNNI byte dot of the 256-bit X16 driver (avx2_x16.h): one VEX-encoded vpdpbusd per quad
// vector in place of AVX2's vpmaddubsw + vpmaddwd (MaddQuads). Include it only from files compiled
// with -mavxvnni.
#ifndef EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_
#define EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_

#include <immintrin.h>

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

struct VnniQuads {
  static inline __m256i Acc(__m256i acc, const __m256i* w, const __m256i* x) {
    acc = _mm256_dpbusd_avx_epi32(acc, w[0], x[0]);
    acc = _mm256_dpbusd_avx_epi32(acc, w[1], x[1]);
    acc = _mm256_dpbusd_avx_epi32(acc, w[2], x[2]);
    return _mm256_dpbusd_avx_epi32(acc, w[3], x[3]);
  }
};

}  // namespace
}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_AVXVNNI_DOT_H_
