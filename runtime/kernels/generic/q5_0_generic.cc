// Q5_0 x Q8_0, portable scalar (GGML's ggml_vec_dot_q5_0_q8_0 generic math).
#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ5_0(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ5_0*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_0*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK4_0; ++b) {
    uint32_t qh;
    std::memcpy(&qh, bw[b].qh, sizeof(qh));
    int32_t sumi = 0;
    for (int j = 0; j < blocks::kQK4_0 / 2; ++j) {
      const int v0 = ((bw[b].qs[j] & 0x0F) | (((qh >> j) << 4) & 0x10)) - 16;
      const int v1 = ((bw[b].qs[j] >> 4) | ((qh >> (j + 12)) & 0x10)) - 16;
      sumi += v0 * bx[b].qs[j] + v1 * bx[b].qs[j + 16];
    }
    sum += blocks::Fp16ToFloat(bw[b].d) * blocks::Fp16ToFloat(bx[b].d) * sumi;
  }
  return sum;
}

}  // namespace

const KernelEntry kQ5_0GenericGemv = {
    Encoding::kQ5_0, Isa::kGeneric, Shape::kGemv, "q5_0_generic_gemv",  QuantizeRowQ8_0,
    Q8_0RowBytes,    nullptr,       nullptr,      GenericGemv<DotQ5_0>, 16};
const KernelEntry kQ5_0GenericGemm = {
    Encoding::kQ5_0, Isa::kGeneric, Shape::kGemm, "q5_0_generic_gemm",  QuantizeRowQ8_0,
    Q8_0RowBytes,    nullptr,       nullptr,      GenericGemm<DotQ5_0>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
