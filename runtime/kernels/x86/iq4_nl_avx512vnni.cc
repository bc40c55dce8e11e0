// IQ4_NL x Q8_0 with AVX-512 VNNI on the Q4_0X16 layout (an IQ4_NL block is laid out as a Q4_0
// block: fp16 d, then the 4-bit indices; avx512_x16.h): 16 weight rows per vector, two blocks per
// tile, 8 activation rows per GEMM tile. vpshufb maps each index to its level + 128 (1..241,
// unsigned), and vpdpbusd against broadcast activation bytes, starting from -128 * (sum of the
// block's x), gives exact int32 sums of level * x, scaled by d_w * d_x of the block.
#include <immintrin.h>

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

struct Iq4NlX16 : x86::ActQ8_0SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ4_0X16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, __m512i* w) const {
      x86::Nibbles2(t + internal::x16::NibblesPart(s, part), w);
      const __m512i table = LevelTable();
      // Unrolled: a loop would keep w[] on the stack (2.3x slower GEMV).
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) w[i] = _mm512_shuffle_epi8(table, w[i]);
    }
    __m512 SubScale(int s) const {
      return _mm512_cvtph_ps(_mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(t + internal::x16::Q4_0::kD + 32 * s)));
    }
    __m512 Correct(__m512 acc, const uint8_t*, int64_t, int64_t, __m512) const { return acc; }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
  static __m512i SubInit(const uint8_t* x, int64_t k, int64_t b, int s) {
    return _mm512_set1_epi32(-128 * Sum(x, k, b, s));
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kIq4NlAvx512Vnni, Encoding::kIq4Nl, Isa::kAvx512Vnni, "iq4_nl_avx512vnni",
                         x86::QuantizeRowQ8_0SAvx512, Q8_0SRowBytes, RepackQ4_0X16, Q4_0X16RowBytes,
                         16, x86::X16Matmul<Iq4NlX16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
