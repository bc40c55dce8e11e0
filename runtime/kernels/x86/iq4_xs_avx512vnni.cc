// IQ4_XS x Q8_K with AVX-512 VNNI on the IQ4_XSX16 layout (16 weight rows interleaved: 4-bit
// indices as nibble chunks, int8 sub-block scales and fp16 d per row; internal/repack_x16.h;
// avx512_x16.h): vpshufb maps each index to its level + 128 (1..241, unsigned), and vpdpbusd
// against broadcast activation bytes, starting from -128 * (sum of the sub-block's x), gives exact
// int32 sums of level * x per 32-value sub-block, scaled by d * (ls - 32) * d_x.
#include <immintrin.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// The 16 levels + 128 as unsigned bytes, in every 128-bit lane.
inline __m512i LevelTable() {
  const int8_t* v = blocks::kIq4NlValues;
  auto b = [v](int i) { return static_cast<char>(v[i] + 128); };
  return _mm512_broadcast_i32x4(_mm_setr_epi8(b(0), b(1), b(2), b(3), b(4), b(5), b(6), b(7), b(8),
                                              b(9), b(10), b(11), b(12), b(13), b(14), b(15)));
}

struct Iq4XsX16 : x86::ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 8, kParts = 2, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kIq4XsX16TileBytes;
  using L = internal::x16::Iq4Xs;

  struct Block {
    const uint8_t* t;
    __m512 d;
    explicit Block(const uint8_t* tile)
        : t(tile),
          d(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(tile + L::kD)))) {}
    void Weights(int s, int part, __m512i* w) const {
      x86::Nibbles2(t + internal::x16::NibblesPart(s, part), w);
      const __m512i table = LevelTable();
      // Unrolled: a loop would keep w[] on the stack (2.3x slower GEMV).
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) w[i] = _mm512_shuffle_epi8(table, w[i]);
    }
    __m512 SubScale(int s) const {
      const __m128i sc = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + L::kScales + 16 * s));
      return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(sc)), d);
    }
    __m512 Correct(__m512 acc, const uint8_t*, int64_t, int64_t, __m512) const { return acc; }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
  // -128 * (sum of the sub-block's 32 activations) removes the +128 of the levels.
  static __m512i SubInit(const uint8_t* x, int64_t /*k*/, int64_t b, int s) {
    return _mm512_set1_epi32(-128 * Blk(x, b).bsum32[s]);
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kIq4XsAvx512Vnni, Encoding::kIq4Xs, Isa::kAvx512Vnni, "iq4_xs_avx512vnni",
                         x86::QuantizeRowQ8_KXAvx512, Q8_KXRowBytes, RepackIq4XsX16,
                         Iq4XsX16RowBytes, 16, x86::X16Matmul<Iq4XsX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
