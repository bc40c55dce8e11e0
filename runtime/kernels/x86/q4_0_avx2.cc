// Q4_0 x Q8_0 with AVX2 (vpmaddubsw + vpmaddwd): weights in the Q4_0X4 layout, activations in
// Q8_0S. Per block: 16-bit pair sums of q * x (q <= 15, |x| <= 127: no saturation), widened to
// 8 int32 lanes, minus the lanes of 8 * x (computed once per activation block): exact integer
// sums of (q - 8) * x, scaled by d_w * d_x (the row kernel x86::X4Avx2).
#include <immintrin.h>

#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/repack.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/k_avx2_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q4_0X4 {
  static constexpr int kQsBytesPerBlock = 16;
  // The lanes of 8 * x of each block (subtracted from those of level * x).
  struct Group {
    __m256i c8[4];
    explicit Group(const __m256i* x) {
      for (int b = 0; b < 4; ++b) {
        c8[b] = _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_set1_epi8(8), x[b]),
                                  _mm256_set1_epi16(1));
      }
    }
  };
  // Nibble planes: v0 low = block 0, v1 low = block 1, v0 high = block 2, v1 high = block 3.
  static void Load(const uint8_t* row, int64_t g, __m256i q[4]) {
    const __m256i m4 = _mm256_set1_epi8(0x0F);
    const __m256i v0 = x86::Load32(row + 64 * g), v1 = x86::Load32(row + 64 * g + 32);
    q[0] = _mm256_and_si256(v0, m4);
    q[1] = _mm256_and_si256(v1, m4);
    q[2] = _mm256_and_si256(_mm256_srli_epi16(v0, 4), m4);
    q[3] = _mm256_and_si256(_mm256_srli_epi16(v1, 4), m4);
  }
  static __m256i Dot(const Group& group, int b, __m256i q, __m256i x) {
    return _mm256_sub_epi32(_mm256_madd_epi16(_mm256_maddubs_epi16(q, x), _mm256_set1_epi16(1)),
                            group.c8[b]);
  }
};

using Q4_0Avx2 = x86::X4Avx2<Q4_0X4>;

}  // namespace

const KernelEntry kQ4_0Avx2Gemv = {
    Encoding::kQ4_0, Isa::kAvx2,   Shape::kGemv,   "q4_0_avx2_gemv",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4, Q4_0X4RowBytes, RowsGemv<ByRow<Q4_0Avx2>>, 16};
const KernelEntry kQ4_0Avx2Gemm = {
    Encoding::kQ4_0, Isa::kAvx2,   Shape::kGemm,   "q4_0_avx2_gemm",          QuantizeRowQ8_0S,
    Q8_0SRowBytes,   RepackQ4_0X4, Q4_0X4RowBytes, RowsGemm<ByRow<Q4_0Avx2>>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
