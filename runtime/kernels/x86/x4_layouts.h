// The Q4_0X4 / Q8_0X4 weight layouts for the 256-bit row kernel x86::X4Avx2, generic over the
// unsigned x signed byte dot: x86::MaddDot (AVX2 vpmaddubsw + vpmaddwd) or an AVX-VNNI vpdpbusd
// policy (x86::VnniDot, avxvnni_dot.h). Both give the exact int32 sums of four
// products per lane here (no pair exceeds int16: q4_0 levels <= 15, |q8_0| <= 128, |x| <= 127).
#ifndef EDGEQ_RUNTIME_KERNELS_X86_X4_LAYOUTS_H_
#define EDGEQ_RUNTIME_KERNELS_X86_X4_LAYOUTS_H_

#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/x86/k_avx2_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {

// AVX2: 16-bit pair sums, then 32-bit.
struct MaddDot {
  static inline __m256i Ubs(__m256i u, __m256i s) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
  }
};

// Q4_0 x Q8_0S: per block, 16-bit pair sums of q * x (q <= 15), minus the lanes of 8 * x
// (computed once per activation block): exact integer sums of (q - 8) * x.
template <typename ByteDot>
struct Q4_0X4 {
  static constexpr int kQsBytesPerBlock = 16;
  // The lanes of 8 * x of each block (subtracted from those of level * x).
  struct Group {
    __m256i c8[4];
    explicit Group(const __m256i* x) {
      for (int b = 0; b < 4; ++b) {
        c8[b] = ByteDot::Ubs(_mm256_set1_epi8(8), x[b]);
      }
    }
  };
  // Nibble planes: v0 low = block 0, v1 low = block 1, v0 high = block 2, v1 high = block 3.
  static void Load(const uint8_t* row, int64_t g, __m256i q[4]) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i v0 = x86::Load32(row + 64 * g), v1 = x86::Load32(row + 64 * g + 32);
    q[0] = _mm256_and_si256(v0, m4);
    q[1] = _mm256_and_si256(v1, m4);
    q[2] = _mm256_and_si256(_mm256_srli_epi16(v0, 4), m4);
    q[3] = _mm256_and_si256(_mm256_srli_epi16(v1, 4), m4);
  }
  static __m256i Dot(const Group& group, int b, __m256i q, __m256i x) {
    return _mm256_sub_epi32(ByteDot::Ubs(q, x), group.c8[b]);
  }
};

// Q8_0 x Q8_0S: vpmaddubsw(|w|, sign(x, w)).
template <typename ByteDot>
struct Q8_0X4 {
  static constexpr int kQsBytesPerBlock = 32;
  struct Group {
    explicit Group(const __m256i* /*x*/) {}
  };
  static void Load(const uint8_t* row, int64_t g, __m256i q[4]) {
    for (int b = 0; b < 4; ++b) q[b] = x86::Load32(row + 128 * g + 32 * b);
  }
  static __m256i Dot(const Group& /*group*/, int /*b*/, __m256i q, __m256i x) {
    return ByteDot::Ubs(_mm256_sign_epi8(q, q), _mm256_sign_epi8(x, q));
  }
};

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_X4_LAYOUTS_H_
