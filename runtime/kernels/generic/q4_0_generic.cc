// Q4_0 x Q8_0, portable scalar (GGML's ggml_vec_dot_q4_0_q8_0 generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ4_0(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ4_0*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK4_0; ++b) {
    int32_t sumi = 0;
    for (int j = 0; j < blocks::kQK4_0 / 2; ++j) {
      const int v0 = (bw[b].qs[j] & 0x0F) - 8;
      const int v1 = (bw[b].qs[j] >> 4) - 8;
      sumi += v0 * bx[b].qs[j] + v1 * bx[b].qs[j + 16];
    }
    sum += sumi * blocks::Fp16ToFloat(bw[b].d) * blocks::Fp16ToFloat(bx[b].d);
  }
  return sum;
}

}  // namespace

const KernelEntry kQ4_0GenericGemv = {
    Encoding::kQ4_0, Isa::kGeneric, Shape::kGemv, "q4_0_generic_gemv",  QuantizeRowQ8_0,
    Q8_0RowBytes,    nullptr,       nullptr,      GenericGemv<DotQ4_0>, 16};
const KernelEntry kQ4_0GenericGemm = {
    Encoding::kQ4_0, Isa::kGeneric, Shape::kGemm, "q4_0_generic_gemm",  QuantizeRowQ8_0,
    Q8_0RowBytes,    nullptr,       nullptr,      GenericGemm<DotQ4_0>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
