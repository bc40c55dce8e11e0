// IQ4_NL x Q8_0 with AVX2 on the Q4_0X16 layout (an IQ4_NL block is laid out as a Q4_0 block:
// fp16 d, then the 4-bit indices), 8 rows per 256-bit vector (avx2_x16.h): vpshufb maps each
// index to its signed level (-127..113), and vpmaddubsw(|level|, x with the level's sign) widened
// by vpmaddwd (x86::SignedMaddQuads) gives exact int32 sums of level * x, scaled by d_w * d_x of
// the block.
#include <immintrin.h>

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

struct Iq4NlY16 : x86::PairY16<kQ4_0X16TileBytes, internal::x16::Q4_0::kD, 0> {
  struct Block : PairBlock {
    using PairBlock::PairBlock;
    void Weights(int s, int part, int h, __m256i* w) const {
      x86::Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
      const __m256i table = LevelTable();
      // Unrolled: a loop would keep w[] on the stack (2.3x slower GEMV).
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) w[i] = _mm256_shuffle_epi8(table, w[i]);
    }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kIq4NlAvx2, Encoding::kIq4Nl, Isa::kAvx2, "iq4_nl_avx2",
                         x86::QuantizeRowQ8_0SY<Isa::kAvx2>, Q8_0SRowBytes, RepackQ4_0X16,
                         Q4_0X16RowBytes, 16, x86::Y16Matmul<Iq4NlY16, x86::SignedMaddQuads>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
