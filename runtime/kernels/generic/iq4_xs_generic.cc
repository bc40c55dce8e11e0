// IQ4_XS x Q8_K, portable scalar (GGML's ggml_vec_dot_iq4_xs_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotIq4Xs(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockIq4Xs*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
  const int8_t* v = blocks::kIq4NlValues;
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
    int32_t isum = 0;
    for (int ib = 0; ib < blocks::kQK_K / 32; ++ib) {
      const int ls = ((bw[b].scales_l[ib / 2] >> 4 * (ib % 2)) & 0xf) |
                     (((bw[b].scales_h >> 2 * ib) & 3) << 4);
      const uint8_t* qs = bw[b].qs + 16 * ib;
      const int8_t* y = bx[b].qs + 32 * ib;
      int32_t s = 0;
      for (int j = 0; j < 16; ++j) s += y[j] * v[qs[j] & 0xf] + y[j + 16] * v[qs[j] >> 4];
      isum += (ls - 32) * s;
    }
    sum += blocks::Fp16ToFloat(bw[b].d) * bx[b].d * isum;
  }
  return sum;
}

}  // namespace

const KernelEntry kIq4XsGenericGemv = {
    Encoding::kIq4Xs, Isa::kGeneric, Shape::kGemv, "iq4_xs_generic_gemv", QuantizeRowQ8_K,
    Q8_KRowBytes,     nullptr,       nullptr,      GenericGemv<DotIq4Xs>, 16};
const KernelEntry kIq4XsGenericGemm = {
    Encoding::kIq4Xs, Isa::kGeneric, Shape::kGemm, "iq4_xs_generic_gemm", QuantizeRowQ8_K,
    Q8_KRowBytes,     nullptr,       nullptr,      GenericGemm<DotIq4Xs>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
