// Q5_1 x Q8_1, portable scalar (GGML's ggml_vec_dot_q5_1_q8_1 generic math).
#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ5_1(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ5_1*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_1*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK4_0; ++b) {
    uint32_t qh;
    std::memcpy(&qh, bw[b].qh, sizeof(qh));
    int32_t sumi = 0;
    for (int j = 0; j < blocks::kQK4_0 / 2; ++j) {
      const int v0 = (bw[b].qs[j] & 0x0F) | (((qh >> j) << 4) & 0x10);
      const int v1 = (bw[b].qs[j] >> 4) | ((qh >> (j + 12)) & 0x10);
      sumi += v0 * bx[b].qs[j] + v1 * bx[b].qs[j + 16];
    }
    sum += blocks::Fp16ToFloat(bw[b].d) * blocks::Fp16ToFloat(bx[b].d) * sumi +
           blocks::Fp16ToFloat(bw[b].m) * blocks::Fp16ToFloat(bx[b].s);
  }
  return sum;
}

}  // namespace

const KernelEntry kQ5_1GenericGemv = {
    Encoding::kQ5_1, Isa::kGeneric, Shape::kGemv, "q5_1_generic_gemv",  QuantizeRowQ8_1,
    Q8_1RowBytes,    nullptr,       nullptr,      GenericGemv<DotQ5_1>, 16};
const KernelEntry kQ5_1GenericGemm = {
    Encoding::kQ5_1, Isa::kGeneric, Shape::kGemm, "q5_1_generic_gemm",  QuantizeRowQ8_1,
    Q8_1RowBytes,    nullptr,       nullptr,      GenericGemm<DotQ5_1>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
