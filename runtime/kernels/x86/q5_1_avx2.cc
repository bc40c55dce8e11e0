// Q5_1 x Q8_1 with AVX2 on the Q5_1X16 layout (two blocks per tile), 8 rows per 256-bit vector
// (avx2_x16.h): the levels (0..31) are the nibbles with the 5th bits of a bit plane or'ed in;
// vpmaddubsw against broadcast activation bytes, widened by vpmaddwd (x86::MaddQuads<31>), gives
// exact int32 sums of q * x, scaled by d_w * d_x of the block; each block then adds m_w * s_x
// (GGML's Q8_1 s). Activations in Q8_1S, quantized by the portable quantizer.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q5_1Y16 : x86::ActQ8_1SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kM = 4;
  static constexpr size_t kTileBytes = kQ5_1X16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, int h, __m256i* w) const {
      x86::Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
      // Bit 4 part + i of byte p of the plane is the 5th bit of byte p of w[i].
      const __m256i c16 = _mm256_set1_epi8(16);
      const __m256i hb =
          x86::LoadY(t + internal::x16::Q5_1::kHighBits + internal::x16::kQuadBytes * s + 32 * h);
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) {
        const __m256i bit = part == 0 ? _mm256_slli_epi16(hb, 4 - i) : _mm256_srli_epi16(hb, i);
        w[i] = _mm256_or_si256(w[i], _mm256_and_si256(bit, c16));
      }
    }
    __m256 SubScale(int s, int h) const { return Halves(internal::x16::Q5_1::kD, s, h); }
    // + m * s_x of both blocks (GGML's min term).
    __m256 Correct(__m256 acc, const uint8_t* x, int64_t b, __m256, int h) const {
      acc = _mm256_fmadd_ps(Halves(internal::x16::Q5_1::kM, 0, h),
                            _mm256_set1_ps(x86::ActQ8_1SPairs::MinScale(x, b, 0)), acc);
      return _mm256_fmadd_ps(Halves(internal::x16::Q5_1::kM, 1, h),
                             _mm256_set1_ps(x86::ActQ8_1SPairs::MinScale(x, b, 1)), acc);
    }
    __m256 Halves(size_t at, int s, int h) const {
      return _mm256_cvtph_ps(_mm_loadu_si128(
          reinterpret_cast<const __m128i*>(t + at + internal::x16::kHalfPerRowBytes * s + 16 * h)));
    }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
  static int32_t SubInit(const uint8_t*, int64_t, int64_t, int) { return 0; }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ5_1Avx2, Encoding::kQ5_1, Isa::kAvx2, "q5_1_avx2", QuantizeRowQ8_1S,
                         Q8_1SRowBytes, RepackQ5_1X16, Q5_1X16RowBytes, 16,
                         x86::Y16Matmul<Q5_1Y16, x86::MaddQuads<31>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
