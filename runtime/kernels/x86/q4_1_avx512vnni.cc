// Q4_1 x Q8_1 with AVX-512 VNNI on the Q4_1X16 layout (avx512_x16.h): 16 weight rows per vector,
// two blocks per tile, 8 activation rows per GEMM tile. vpdpbusd of the levels (0..15) against
// broadcast activation bytes gives exact int32 sums of q * x, scaled by d_w * d_x of the block;
// each block then adds m_w * s_x (GGML's Q8_1 s = fp16(d * sum x)). Activations in Q8_1S,
// quantized by the portable quantizer.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q4_1X16 : x86::ActQ8_1SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ4_1X16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, __m512i* w) const {
      x86::Nibbles2(t + internal::x16::NibblesPart(s, part), w);
    }
    __m512 SubScale(int s) const { return Halves(internal::x16::Q4_1::kD, s); }
    // + m * s_x of both blocks (GGML's min term).
    __m512 Correct(__m512 acc, const uint8_t* x, int64_t, int64_t b, __m512) const {
      acc = _mm512_fmadd_ps(Halves(internal::x16::Q4_1::kM, 0),
                            _mm512_set1_ps(x86::ActQ8_1SPairs::MinScale(x, b, 0)), acc);
      return _mm512_fmadd_ps(Halves(internal::x16::Q4_1::kM, 1),
                             _mm512_set1_ps(x86::ActQ8_1SPairs::MinScale(x, b, 1)), acc);
    }
    __m512 Halves(size_t at, int s) const {
      return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + at + 32 * s)));
    }
  };
  static constexpr int Quad(int part, int i) { return x86::NibbleQuad(part, i); }
  static __m512i SubInit(const uint8_t*, int64_t, int64_t, int) { return _mm512_setzero_si512(); }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ4_1Avx512Vnni, Encoding::kQ4_1, Isa::kAvx512Vnni, "q4_1_avx512vnni",
                         QuantizeRowQ8_1S, Q8_1SRowBytes, RepackQ4_1X16, Q4_1X16RowBytes, 16,
                         x86::X16Matmul<Q4_1X16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
