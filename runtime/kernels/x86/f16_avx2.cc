// f16 weights x f32 activations with AVX2 + FMA + F16C: f16 -> f32 by vcvtph2ps (exact), 4 rows at
// a time (half_rows_avx2.h).
#include <immintrin.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"
#include "runtime/kernels/x86/half_rows_avx2.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct F16ConvertAvx2 {
  static __m256 Convert(__m128i h) { return _mm256_cvtph_ps(h); }
  static float ToFloat(uint16_t b) { return blocks::Fp16ToFloat(b); }
};

}  // namespace

EDGEQ_DEFINE_ROWS_KERNEL_PAIR(kF16Avx2, Encoding::kF16, Isa::kAvx2, "f16_avx2", nullptr,
                              F32RowBytes, nullptr, nullptr, 16, x86::HalfRowsAvx2<F16ConvertAvx2>);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
