// Q5_0 x Q8_0 with AVX2 on the Q5_0X16 layout (two blocks per tile), 8 rows per 256-bit vector
// (avx2_x16.h): the levels (0..31) are the nibbles with the 5th bits of a bit plane or'ed in (as
// Q5_K); vpmaddubsw against broadcast activation bytes, four quads added in int16 and widened by
// vpmaddwd (x86::MaddQuads<31>), starting from -16 * (sum of the block's x), give exact int32
// sums of (q - 16) * x, scaled by d_w * d_x of the block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q5_0Y16 : x86::PairY16<kQ5_0X16TileBytes, internal::x16::Q5_0::kD, 16> {
  struct Block : PairBlock {
    using PairBlock::PairBlock;
    void Weights(int s, int part, int h, __m256i* w) const {
      x86::Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
      // Bit 4 part + i of byte p of the plane is the 5th bit of byte p of w[i].
      const __m256i c16 = _mm256_set1_epi8(16);
      const __m256i hb =
          x86::LoadY(t + internal::x16::Q5_0::kHighBits + internal::x16::kQuadBytes * s + 32 * h);
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) {
        const __m256i bit = part == 0 ? _mm256_slli_epi16(hb, 4 - i) : _mm256_srli_epi16(hb, i);
        w[i] = _mm256_or_si256(w[i], _mm256_and_si256(bit, c16));
      }
    }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ5_0Avx2, Encoding::kQ5_0, Isa::kAvx2, "q5_0_avx2",
                         x86::QuantizeRowQ8_0SY<Isa::kAvx2>, Q8_0SRowBytes, RepackQ5_0X16,
                         Q5_0X16RowBytes, 16, x86::Y16Matmul<Q5_0Y16, x86::MaddQuads<31>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
