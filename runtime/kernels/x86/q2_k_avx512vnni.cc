// Q2_K x Q8_K with AVX-512 VNNI on the Q2_KX16 layout (16 weight rows interleaved, GGML's size:
// 2-bit planes, the scale|min bytes, fp16 d and dmin per row; internal/repack_x16.h): per 16-value
// sub-block one load and three shifts give its 4 quads, and vpdpbusd against broadcast activation
// bytes gives exact int32 sums of level * x for 16 rows (avx512_x16.h). The mins use the
// activation's 16-value sums (vpdpwssd of int16 pairs), as in GGML.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// The 16-value sums of sub-blocks 2j and 2j + 1 (from Q8_KX's -32 * sums) as an int16 pair.
inline int32_t Bsum16Pair(const int32_t* neg32_bsum16) {
  const uint32_t lo = static_cast<uint16_t>(static_cast<int16_t>(-(neg32_bsum16[0] / 32)));
  const uint32_t hi = static_cast<uint16_t>(static_cast<int16_t>(-(neg32_bsum16[1] / 32)));
  return static_cast<int32_t>(lo | (hi << 16));
}

struct Q2_KX16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 16, kParts = 1, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ2_KX16TileBytes;
  using L = internal::x16::Q2_K;

  struct Block {
    const uint8_t* t;
    __m512 d;
    explicit Block(const uint8_t* tile)
        : t(tile),
          d(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile + L::kD)))) {}
    void Weights(int s, int /*part*/, __m512i* w) const {
      const __m512i m3 = _mm512_set1_epi8(3);
      const __m512i v = _mm512_loadu_si512(t + internal::x16::kQuadBytes * s);
      w[0] = _mm512_and_si512(v, m3);
      w[1] = _mm512_and_si512(_mm512_srli_epi16(v, 2), m3);
      w[2] = _mm512_and_si512(_mm512_srli_epi16(v, 4), m3);
      w[3] = _mm512_and_si512(_mm512_srli_epi16(v, 6), m3);
    }
    __m512 SubScale(int s) const {
      const __m128i sc =
          _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + L::kScales + 16 * s)),
                        _mm_set1_epi8(0x0F));
      return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(sc)), d);
    }
    // acc - dmin * dx * sum over sub-blocks of min * (sum of the sub-block's 16 activations): the
    // mins of sub-blocks 2j and 2j + 1 interleaved per row into int16 pairs for vpdpwssd.
    __m512 Correct(__m512 acc, const uint8_t* x, int64_t /*k*/, int64_t b, __m512 dx) const {
      const int32_t* n32 = x86::ActQ8_KX::Blk(x, b).neg32_bsum16;
      const uint8_t* sc = t + L::kScales;
      const __m256i m4 = _mm256_set1_epi8(0x0F);
      __m512i m = _mm512_setzero_si512();
      for (int j = 0; j < 8; ++j) {
        const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sc + 32 * j));
        const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sc + 32 * j + 16));
        const __m256i pairs8 =
            _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
        const __m256i mins = _mm256_and_si256(_mm256_srli_epi16(pairs8, 4), m4);
        m = _mm512_dpwssd_epi32(m, _mm512_cvtepu8_epi16(mins),
                                _mm512_set1_epi32(Bsum16Pair(n32 + 2 * j)));
      }
      const __m512 dmin =
          _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + L::kDmin)));
      return _mm512_fnmadd_ps(_mm512_cvtepi32_ps(m), _mm512_mul_ps(dmin, dx), acc);
    }
  };
  static constexpr int Quad(int /*part*/, int i) { return i; }
  static __m512i SubInit(const uint8_t*, int64_t, int64_t, int) { return _mm512_setzero_si512(); }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ2_KAvx512Vnni, Encoding::kQ2_K, Isa::kAvx512Vnni, "q2_k_avx512vnni",
                         x86::QuantizeRowQ8_KXAvx512, Q8_KXRowBytes, RepackQ2_KX16, Q2_KX16RowBytes,
                         16, x86::X16Matmul<Q2_KX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
