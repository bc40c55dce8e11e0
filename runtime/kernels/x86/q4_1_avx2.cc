// Q4_1 x Q8_1 with AVX2 on the Q4_1X16 layout (two blocks per tile), 8 rows per 256-bit vector
// (avx2_x16.h): vpmaddubsw of the levels (0..15) against broadcast activation bytes, four quads
// added in int16 and widened by vpmaddwd (x86::MaddQuads<15>), give exact int32 sums of q * x,
// scaled by d_w * d_x of the block; each block then adds m_w * s_x (GGML's Q8_1 s). Activations
// in Q8_1S, quantized by the portable quantizer.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx2_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q4_1Y16 : x86::ActQ8_1SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kM = 4;
  static constexpr size_t kTileBytes = kQ4_1X16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, int h, __m256i* w) const {
      x86::Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
    }
    __m256 SubScale(int s, int h) const { return Halves(internal::x16::Q4_1::kD, s, h); }
    // + m * s_x of both blocks (GGML's min term).
    __m256 Correct(__m256 acc, const uint8_t* x, int64_t b, __m256, int h) const {
      acc = _mm256_fmadd_ps(Halves(internal::x16::Q4_1::kM, 0, h),
                            _mm256_set1_ps(x86::ActQ8_1SPairs::MinScale(x, b, 0)), acc);
      return _mm256_fmadd_ps(Halves(internal::x16::Q4_1::kM, 1, h),
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

EDGEQ_DEFINE_KERNEL_PAIR(kQ4_1Avx2, Encoding::kQ4_1, Isa::kAvx2, "q4_1_avx2", QuantizeRowQ8_1S,
                         Q8_1SRowBytes, RepackQ4_1X16, Q4_1X16RowBytes, 16,
                         x86::Y16Matmul<Q4_1Y16, x86::MaddQuads<15>>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
