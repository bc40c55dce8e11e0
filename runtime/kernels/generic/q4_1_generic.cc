// Q4_1 x Q8_1, portable scalar (GGML's ggml_vec_dot_q4_1_q8_1 generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ4_1(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ4_1*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_1*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK4_0; ++b) {
    int32_t sumi = 0;
    for (int j = 0; j < blocks::kQK4_0 / 2; ++j) {
      const int v0 = bw[b].qs[j] & 0x0F;
      const int v1 = bw[b].qs[j] >> 4;
      sumi += v0 * bx[b].qs[j] + v1 * bx[b].qs[j + 16];
    }
    sum += blocks::Fp16ToFloat(bw[b].d) * blocks::Fp16ToFloat(bx[b].d) * sumi +
           blocks::Fp16ToFloat(bw[b].m) * blocks::Fp16ToFloat(bx[b].s);
  }
  return sum;
}

}  // namespace

const KernelEntry kQ4_1GenericGemv = {
    Encoding::kQ4_1, Isa::kGeneric, Shape::kGemv, "q4_1_generic_gemv",  QuantizeRowQ8_1,
    Q8_1RowBytes,    nullptr,       nullptr,      GenericGemv<DotQ4_1>, 16};
const KernelEntry kQ4_1GenericGemm = {
    Encoding::kQ4_1, Isa::kGeneric, Shape::kGemm, "q4_1_generic_gemm",  QuantizeRowQ8_1,
    Q8_1RowBytes,    nullptr,       nullptr,      GenericGemm<DotQ4_1>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
