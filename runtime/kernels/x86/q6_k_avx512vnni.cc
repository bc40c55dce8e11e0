// Q6_K x Q8_K with AVX-512 VNNI on the Q6_KX16 layout (6-bit levels as nibble chunks and a 2-bit
// plane, 16 rows interleaved, int8 scales and fp16 d per row, GGML's size): per 16-value
// sub-block, 3 loads and a few shifts give its 4 quads and
// vpdpbusd accumulates exact int32 sums of level * x for 16 rows (avx512_x16.h), starting from
// -32 * (sum of the sub-block's x), which removes the level offset.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q6_KX16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 16, kParts = 1, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ6_KX16TileBytes;

  struct Block {
    const uint8_t* t;
    __m512 d;
    explicit Block(const uint8_t* tile)
        : t(tile),
          d(_mm512_cvtph_ps(_mm256_loadu_si256(
              reinterpret_cast<const __m256i*>(tile + internal::x16::Q6_K::kD)))) {}
    void Weights(int s, int /*part*/, __m512i* w) const {
      using L = internal::x16::Q6_K;
      const __m512i m4 = _mm512_set1_epi8(0x0F), m30 = _mm512_set1_epi8(0x30);
      const uint8_t* nib = t + L::kNibbles16Bytes * s;
      const __m512i c0 = _mm512_loadu_si512(nib);
      const __m512i c1 = _mm512_loadu_si512(nib + internal::x16::kQuadBytes);
      const __m512i hb = _mm512_loadu_si512(t + L::kHighBits + internal::x16::kQuadBytes * s);
      // Bits 2q..2q+1 of each byte moved to bits 4-5 (16-bit shifts: the bits that cross into a
      // byte from its neighbour land outside 0x30).
      w[0] = _mm512_or_si512(_mm512_and_si512(c0, m4),
                             _mm512_and_si512(_mm512_slli_epi16(hb, 4), m30));
      w[1] = _mm512_or_si512(_mm512_and_si512(c1, m4),
                             _mm512_and_si512(_mm512_slli_epi16(hb, 2), m30));
      w[2] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(c0, 4), m4),
                             _mm512_and_si512(hb, m30));
      w[3] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(c1, 4), m4),
                             _mm512_and_si512(_mm512_srli_epi16(hb, 2), m30));
    }
    __m512 SubScale(int s) const {
      const __m128i sc = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(t + internal::x16::Q6_K::kScales + 16 * s));
      return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(sc)), d);
    }
    __m512 Correct(__m512 acc, const uint8_t*, int64_t, int64_t, __m512) const { return acc; }
  };
  static constexpr int Quad(int /*part*/, int i) { return i; }
  static __m512i SubInit(const uint8_t* x, int64_t /*k*/, int64_t b, int s) {
    return _mm512_set1_epi32(Blk(x, b).neg32_bsum16[s]);
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ6_KAvx512Vnni, Encoding::kQ6_K, Isa::kAvx512Vnni, "q6_k_avx512vnni",
                         x86::QuantizeRowQ8_KXAvx512, Q8_KXRowBytes, RepackQ6_KX16, Q6_KX16RowBytes,
                         16, x86::X16Matmul<Q6_KX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
