// The X4 weight layouts (Q4_0X4 / Q8_0X4, internal/repack.h) and their 256-bit row kernel
// x86::X4Avx2, shared by the AVX2 and AVX-VNNI q4_0/q8_0 kernel files and compiled with their
// flags. The kernel is generic over the unsigned x signed byte dot: x86::MaddDot (AVX2 vpmaddubsw
// + vpmaddwd) or x86::VnniDot (AVX-VNNI vpdpbusd, avxvnni_dot.h). Both give the exact int32 sums
// of four products per lane here (no pair exceeds int16: q4_0 levels <= 15, |q8_0| <= 128,
// |x| <= 127).
#ifndef EDGEQ_RUNTIME_KERNELS_X86_AVX2_X4_H_
#define EDGEQ_RUNTIME_KERNELS_X86_AVX2_X4_H_

#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/repack.h"

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

// q4_0/q8_0 x Q8_0S on the X4 layouts (internal/repack.h), R weight rows against one activation
// row, 4 blocks per step: exact int32 lanes per block, scaled by d_w * d_x. E (the encoding)
// provides: kQsBytesPerBlock; struct Group, built from the 4 activation blocks of a step;
// static void Load(const uint8_t* row, int64_t g, __m256i q[4]) (the 4 blocks' values); static
// __m256i Dot(const Group&, int b, __m256i q, __m256i x) (lanes summing to block b's dot).
template <typename E>
struct X4Avx2 {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    __m256 acc[R];
    for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
    for (int64_t g = 0; g < nbp / 4; ++g) {
      __m256i xb[4];
      for (int b = 0; b < 4; ++b) xb[b] = Load32(xq + 128 * g + 32 * b);
      const typename E::Group group(xb);
      const __m128 dx = _mm_loadu_ps(xd + 4 * g);
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        __m256i q[4];
        E::Load(wr, g, q);
        const __m128 dw = _mm_cvtph_ps(_mm_loadl_epi64(
            reinterpret_cast<const __m128i*>(wr + nbp * E::kQsBytesPerBlock + 8 * g)));
        const __m256 s = _mm256_castps128_ps256(_mm_mul_ps(dw, dx));
        for (int b = 0; b < 4; ++b) {
          const __m256 sb = _mm256_permutevar8x32_ps(s, _mm256_set1_epi32(b));
          acc[r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(E::Dot(group, b, q[b], xb[b])), sb, acc[r]);
        }
      }
    }
    for (int r = 0; r < R; ++r) out[r] = HSum(acc[r]);
  }
};

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
    const __m256i v0 = Load32(row + 64 * g), v1 = Load32(row + 64 * g + 32);
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
    for (int b = 0; b < 4; ++b) q[b] = Load32(row + 128 * g + 32 * b);
  }
  static __m256i Dot(const Group& /*group*/, int /*b*/, __m256i q, __m256i x) {
    return ByteDot::Ubs(_mm256_sign_epi8(q, q), _mm256_sign_epi8(x, q));
  }
};

}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_AVX2_X4_H_
