// Q3_K x Q8_K with AVX2 on the Q3_KX16 layout (16 weight rows interleaved: 2-bit planes, a 1-bit
// plane per two sub-blocks, int8 scales and fp16 d per row; internal/repack_x16.h), 8 rows per
// 256-bit vector (avx2_x16.h): per 16-value sub-block two loads and a few shifts give its 4 quads
// of levels 0..7, and vpmaddubsw widened by vpmaddwd (x86::MaddQuads<7>) gives exact int32 sums of
// level * x, starting from -4 * (sum of the sub-block's x), which removes the level offset.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q3_KY16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 16, kParts = 1, kM = 4;
  static constexpr size_t kTileBytes = kQ3_KX16TileBytes;
  using L = internal::x16::Q3_K;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int /*part*/, int h, __m256i* w) const {
      const __m256i m3 = _mm256_set1_epi8(3), m4 = _mm256_set1_epi8(4);
      const __m256i v = x86::LoadY(t + internal::x16::kQuadBytes * s + 32 * h);
      // Bit 4 (s % 2) + q of the high plane's bytes, moved to bit 2 (16-bit shifts: the bits that
      // cross into a byte from its neighbour land outside bit 2).
      const __m256i hb = _mm256_srli_epi16(
          x86::LoadY(t + L::kHighBits + internal::x16::kQuadBytes * (s / 2) + 32 * h), 4 * (s % 2));
      w[0] =
          _mm256_or_si256(_mm256_and_si256(v, m3), _mm256_and_si256(_mm256_slli_epi16(hb, 2), m4));
      w[1] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 2), m3),
                             _mm256_and_si256(_mm256_slli_epi16(hb, 1), m4));
      w[2] =
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 4), m3), _mm256_and_si256(hb, m4));
      w[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(v, 6), m3),
                             _mm256_and_si256(_mm256_srli_epi16(hb, 1), m4));
    }
    __m256 SubScale(int s, int h) const {
      const __m128i sc =
          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(t + L::kScales + 16 * s + 8 * h));
      return _mm256_mul_ps(
          _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(sc)),
          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + L::kD + 16 * h))));
    }
    __m256 Correct(__m256 acc, const uint8_t*, int64_t, __m256, int) const { return acc; }
  };
  static constexpr int Quad(int /*part*/, int i) { return i; }
  // -4 * (sum of the sub-block's 16 activations) = Q8_KX's -32 * sum / 8.
  static int32_t SubInit(const uint8_t* x, int64_t /*k*/, int64_t b, int s) {
    return Blk(x, b).neg32_bsum16[s] / 8;
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ3_KAvx2, Encoding::kQ3_K, Isa::kAvx2, "q3_k_avx2",
                         x86::QuantizeRowQ8_KXY<Isa::kAvx2>, Q8_KXRowBytes, RepackQ3_KX16,
                         Q3_KX16RowBytes, 16, x86::Y16Matmul<Q3_KY16, x86::MaddQuads<7>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
