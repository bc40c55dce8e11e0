// Q2_K x Q8_K with AVX2 on the Q2_KX16 layout (16 weight rows interleaved, GGML's size: 2-bit
// planes, the scale|min bytes, fp16 d and dmin per row; internal/repack_x16.h), 8 rows per 256-bit
// vector (avx2_x16.h): per 16-value sub-block one load and three shifts give its 4 quads, and
// vpmaddubsw widened by vpmaddwd (x86::MaddQuads<3>) gives exact int32 sums of level * x. The mins
// use the activation's 16-value sums (d * sc * sum - dmin * m * bsum, as in GGML).
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

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

struct Q2_KY16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 16, kParts = 1, kM = 4;
  static constexpr size_t kTileBytes = kQ2_KX16TileBytes;
  using L = internal::x16::Q2_K;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int /*part*/, int h, __m256i* w) const {
      const __m256i m3 = _mm256_set1_epi8(3);
      const __m256i v = x86::LoadY(t + internal::x16::kQuadBytes * s + 32 * h);
      w[0] = _mm256_and_si256(v, m3);
      w[1] = _mm256_and_si256(_mm256_srli_epi16(v, 2), m3);
      w[2] = _mm256_and_si256(_mm256_srli_epi16(v, 4), m3);
      w[3] = _mm256_and_si256(_mm256_srli_epi16(v, 6), m3);
    }
    __m256 SubScale(int s, int h) const {
      const __m128i sc = _mm_and_si128(
          _mm_loadl_epi64(reinterpret_cast<const __m128i*>(t + L::kScales + 16 * s + 8 * h)),
          _mm_set1_epi8(0x0F));
      return _mm256_mul_ps(
          _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc)),
          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + L::kD + 16 * h))));
    }
    // acc - dmin * dx * sum over sub-blocks of min * (sum of the sub-block's 16 activations): the
    // mins of sub-blocks 2j and 2j + 1 interleaved per row into int16 pairs for vpmaddwd.
    __m256 Correct(__m256 acc, const uint8_t* x, int64_t b, __m256 dx, int h) const {
      const int32_t* n32 = x86::ActQ8_KX::Blk(x, b).neg32_bsum16;
      const uint8_t* sc = t + L::kScales + 8 * h;
      __m256i m = _mm256_setzero_si256();
      for (int j = 0; j < 8; ++j) {
        const __m128i lo = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(sc + 32 * j));
        const __m128i hi = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(sc + 32 * j + 16));
        const __m128i mins =
            _mm_and_si128(_mm_srli_epi16(_mm_unpacklo_epi8(lo, hi), 4), _mm_set1_epi8(0x0F));
        m = _mm256_add_epi32(m, _mm256_madd_epi16(_mm256_cvtepu8_epi16(mins),
                                                  _mm256_set1_epi32(Bsum16Pair(n32 + 2 * j))));
      }
      const __m256 dmin =
          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t + L::kDmin + 16 * h)));
      return _mm256_fnmadd_ps(_mm256_cvtepi32_ps(m), _mm256_mul_ps(dmin, dx), acc);
    }
  };
  static constexpr int Quad(int /*part*/, int i) { return i; }
  static int32_t SubInit(const uint8_t*, int64_t, int64_t, int) { return 0; }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ2_KAvx2, Encoding::kQ2_K, Isa::kAvx2, "q2_k_avx2",
                         x86::QuantizeRowQ8_KXY<Isa::kAvx2>, Q8_KXRowBytes, RepackQ2_KX16,
                         Q2_KX16RowBytes, 16, x86::Y16Matmul<Q2_KY16, x86::MaddQuads<3>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
