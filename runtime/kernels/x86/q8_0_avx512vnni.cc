// Q8_0 x Q8_0 with AVX-512 VNNI on the Q8_0X16 layout (avx512_x16.h): 16 weight rows per vector
// as w + 128 (uint8), two blocks per tile, 8 activation rows per GEMM tile. vpdpbusd against
// broadcast activation bytes, starting from -128 * (sum of the block's x), gives exact int32 sums
// of w * x, scaled by d_w * d_x of the block.
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/avx512_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q8_0X16 : x86::ActQ8_0SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kQ8_0X16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int part, __m512i* w) const {
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i)
        w[i] = _mm512_loadu_si512(t + internal::x16::Levels32Part(s, part) + 64 * i);
    }
    __m512 SubScale(int s) const {
      return _mm512_cvtph_ps(_mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(t + internal::x16::Q8_0::kD + 32 * s)));
    }
    __m512 Correct(__m512 acc, const uint8_t*, int64_t, int64_t, __m512) const { return acc; }
  };
  static constexpr int Quad(int part, int i) { return 4 * part + i; }
  static __m512i SubInit(const uint8_t* x, int64_t k, int64_t b, int s) {
    return _mm512_set1_epi32(-128 * Sum(x, k, b, s));
  }
};

}  // namespace

EDGEQ_DEFINE_KERNEL_PAIR(kQ8_0Avx512Vnni, Encoding::kQ8_0, Isa::kAvx512Vnni, "q8_0_avx512vnni",
                         x86::QuantizeRowQ8_0SAvx512, Q8_0SRowBytes, RepackQ8_0X16, Q8_0X16RowBytes,
                         16, x86::X16Matmul<Q8_0X16>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
