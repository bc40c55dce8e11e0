// Q5_0 x Q8_0 with AVX-512 VNNI on the Q5_0X16 layout (avx512_x16.h): 16 weight rows per vector,
// two blocks per tile, 8 activation rows per GEMM tile. The levels (0..31) are the nibbles with
// the 5th bits of a 64-byte bit plane or'ed in (a shift and a vpternlogd per vector, as Q5_K);
// vpdpbusd against broadcast activation bytes, starting from -16 * (sum of the block's x), gives
// exact int32 sums of (q - 16) * x, scaled by d_w * d_x of the block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q5_0X16 : x86::ActQ8_0SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ5_0X16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, __m512i* w) const {
      x86::Nibbles2(t + internal::x16::NibblesPart(s, part), w);
      // Bit 4 part + i of byte p is the 5th bit of byte p of w[i]: moved to bit 4 and or'ed in
      // (vpternlogd 0xF8: a | (b & c)).
      const __m512i c16 = _mm512_set1_epi8(16);
      const __m512i h =
          _mm512_loadu_si512(t + internal::x16::Q5_0::kHighBits + internal::x16::kQuadBytes * s);
      if (part == 0) {
        w[0] = _mm512_ternarylogic_epi32(w[0], _mm512_slli_epi16(h, 4), c16, 0xF8);
        w[1] = _mm512_ternarylogic_epi32(w[1], _mm512_slli_epi16(h, 3), c16, 0xF8);
        w[2] = _mm512_ternarylogic_epi32(w[2], _mm512_slli_epi16(h, 2), c16, 0xF8);
        w[3] = _mm512_ternarylogic_epi32(w[3], _mm512_slli_epi16(h, 1), c16, 0xF8);
      } else {
        w[0] = _mm512_ternarylogic_epi32(w[0], h, c16, 0xF8);
        w[1] = _mm512_ternarylogic_epi32(w[1], _mm512_srli_epi16(h, 1), c16, 0xF8);
        w[2] = _mm512_ternarylogic_epi32(w[2], _mm512_srli_epi16(h, 2), c16, 0xF8);
        w[3] = _mm512_ternarylogic_epi32(w[3], _mm512_srli_epi16(h, 3), c16, 0xF8);
      }
    }
    __m512 SubScale(int s) const {
      return _mm512_cvtph_ps(_mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(t + internal::x16::Q5_0::kD + 32 * s)));
    }
    __m512 Correct(__m512 acc, const uint8_t*, int64_t, int64_t, __m512) const { return acc; }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
  static __m512i SubInit(const uint8_t* x, int64_t k, int64_t b, int s) {
    return _mm512_set1_epi32(-16 * Sum(x, k, b, s));
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ5_0Avx512Vnni, Encoding::kQ5_0, Isa::kAvx512Vnni, "q5_0_avx512vnni",
                         x86::QuantizeRowQ8_0SAvx512, Q8_0SRowBytes, RepackQ5_0X16, Q5_0X16RowBytes,
                         16, x86::X16Matmul<Q5_0X16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
