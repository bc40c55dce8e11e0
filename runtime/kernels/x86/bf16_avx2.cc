// bf16 weights x f32 activations with AVX2 + FMA: bf16 -> f32 by a 16-bit shift, 4 rows at a time
// (half_rows_avx2.h).
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/half_rows_avx2.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Bf16ConvertAvx2 {
  static __m256 Convert(__m128i h) {
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  static float ToFloat(uint16_t b) { return blocks::Bf16ToFloat(b); }
};

}  // namespace

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kBf16Avx2, Encoding::kBf16, Isa::kAvx2, "bf16_avx2", nullptr,
                              F32RowBytes, nullptr, nullptr, 16,
                              x86::HalfRowsAvx2<Bf16ConvertAvx2>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
