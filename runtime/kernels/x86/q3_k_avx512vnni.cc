// Q3_K x Q8_K with AVX-512 VNNI on the Q3_KX16 layout (16 weight rows interleaved: 2-bit planes, a
// 1-bit plane per two sub-blocks, int8 scales and fp16 d per row; internal/repack_x16.h): per
// 16-value sub-block two loads and a few shifts give its 4 quads of levels 0..7, and vpdpbusd
// against broadcast activation bytes gives exact int32 sums of level * x for 16 rows
// (avx512_x16.h), starting from -4 * (sum of the sub-block's x), which removes the level offset.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q3_KX16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 16, kParts = 1, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ3_KX16TileBytes;
  using L = internal::x16::Q3_K;

  struct Block {
    const uint8_t* t;
    __m512 d;
    explicit Block(const uint8_t* tile)
        : t(tile),
          d(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile + L::kD)))) {}
    void Weights(int s, int /*part*/, __m512i* w) const {
      const __m512i m3 = _mm512_set1_epi8(3), m4 = _mm512_set1_epi8(4);
      const __m512i v = _mm512_loadu_si512(t + internal::x16::kQuadBytes * s);
      // Bit 4 (s % 2) + q of the high plane's bytes, moved to bit 2 (16-bit shifts: the bits that
      // cross into a byte from its neighbour land outside bit 2).
      const __m512i hb = _mm512_srli_epi16(
          _mm512_loadu_si512(t + L::kHighBits + internal::x16::kQuadBytes * (s / 2)), 4 * (s % 2));
      w[0] =
          _mm512_or_si512(_mm512_and_si512(v, m3), _mm512_and_si512(_mm512_slli_epi16(hb, 2), m4));
      w[1] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 2), m3),
                             _mm512_and_si512(_mm512_slli_epi16(hb, 1), m4));
      w[2] =
          _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 4), m3), _mm512_and_si512(hb, m4));
      w[3] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(v, 6), m3),
                             _mm512_and_si512(_mm512_srli_epi16(hb, 1), m4));
    }
    __m512 SubScale(int s) const {
      const __m128i sc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + L::kScales + 16 * s));
      return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(sc)), d);
    }
    __m512 Correct(__m512 acc, const uint8_t*, int64_t, int64_t, __m512) const { return acc; }
  };
  static constexpr int Quad(int /*part*/, int i) { return i; }
  // -4 * (sum of the sub-block's 16 activations) = Q8_KX's -32 * sum / 8.
  static __m512i SubInit(const uint8_t* x, int64_t /*k*/, int64_t b, int s) {
    return _mm512_set1_epi32(Blk(x, b).neg32_bsum16[s] / 8);
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ3_KAvx512Vnni, Encoding::kQ3_K, Isa::kAvx512Vnni, "q3_k_avx512vnni",
                         x86::QuantizeRowQ8_KXAvx512, Q8_KXRowBytes, RepackQ3_KX16, Q3_KX16RowBytes,
                         16, x86::X16Matmul<Q3_KX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
