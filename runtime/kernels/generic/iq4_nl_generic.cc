// IQ4_NL x Q8_0, portable scalar (GGML's ggml_vec_dot_iq4_nl_q8_0 generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotIq4Nl(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockIq4Nl*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK4_0; ++b) {
    const float d = blocks::Fp16ToFloat(bx[b].d) * blocks::Fp16ToFloat(bw[b].d);
    int32_t sumi = 0;
    for (int j = 0; j < blocks::kQK4_0 / 2; ++j) {
      sumi += bx[b].qs[j] * blocks::kIq4NlValues[bw[b].qs[j] & 0x0F] +
              bx[b].qs[j + 16] * blocks::kIq4NlValues[bw[b].qs[j] >> 4];
    }
    sum += d * sumi;
  }
  return sum;
}

}  // namespace

const KernelEntry kIq4NlGenericGemv = {
    Encoding::kIq4Nl, Isa::kGeneric, Shape::kGemv, "iq4_nl_generic_gemv", QuantizeRowQ8_0,
    Q8_0RowBytes,     nullptr,       nullptr,      GenericGemv<DotIq4Nl>, 16};
const KernelEntry kIq4NlGenericGemm = {
    Encoding::kIq4Nl, Isa::kGeneric, Shape::kGemm, "iq4_nl_generic_gemm", QuantizeRowQ8_0,
    Q8_0RowBytes,     nullptr,       nullptr,      GenericGemm<DotIq4Nl>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
