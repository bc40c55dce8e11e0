// IQ4_XS x Q8_K with AVX2 on the IQ4_XSX16 layout (16 weight rows interleaved: 4-bit indices as
// nibble chunks, int8 sub-block scales and fp16 d per row; internal/repack_x16.h), 8 rows per
// 256-bit vector (avx2_x16.h): vpshufb maps each index to its signed level (-127..113), and
// vpmaddubsw(|level|, x with the level's sign) widened by vpmaddwd (x86::SignedMaddQuads) gives
// exact int32 sums of level * x per 32-value sub-block, scaled by d * (ls - 32) * d_x.
#include <immintrin.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// The 16 signed levels in both 128-bit lanes.
inline __m256i LevelTable() {
  const int8_t* v = blocks::kIq4NlValues;
  return _mm256_broadcastsi128_si256(_mm_setr_epi8(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
                                                   v[8], v[9], v[10], v[11], v[12], v[13], v[14],
                                                   v[15]));
}

struct Iq4XsY16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 8, kParts = 2, kM = 4;
  static constexpr size_t kTileBytes = kIq4XsX16TileBytes;
  using L = internal::x16::Iq4Xs;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, int h, __m256i* w) const {
      x86::Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
      const __m256i table = LevelTable();
      // Unrolled: a loop would keep w[] on the stack (2.3x slower GEMV).
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) w[i] = _mm256_shuffle_epi8(table, w[i]);
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
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
  static int32_t SubInit(const uint8_t*, int64_t, int64_t, int) { return 0; }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kIq4XsAvx2, Encoding::kIq4Xs, Isa::kAvx2, "iq4_xs_avx2",
                         x86::QuantizeRowQ8_KXY<Isa::kAvx2>, Q8_KXRowBytes, RepackIq4XsX16,
                         Iq4XsX16RowBytes, 16, x86::Y16Matmul<Iq4XsY16, x86::SignedMaddQuads>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
