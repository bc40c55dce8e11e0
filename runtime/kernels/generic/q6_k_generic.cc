// Q6_K x Q8_K, portable scalar (GGML's ggml_vec_dot_q6_K_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ6_K(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ6_K*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
    int32_t sumi = 0;
    for (int n = 0; n < 2; ++n) {
      const uint8_t* ql = bw[b].ql + 64 * n;
      const uint8_t* qh = bw[b].qh + 32 * n;
      const int8_t* sc = bw[b].scales + 8 * n;
      const int8_t* y = bx[b].qs + 128 * n;
      int32_t s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        s[is + 0] += q1 * y[l];
        s[is + 2] += q2 * y[l + 32];
        s[is + 4] += q3 * y[l + 64];
        s[is + 6] += q4 * y[l + 96];
      }
      for (int g = 0; g < 8; ++g) sumi += sc[g] * s[g];
    }
    sum += blocks::Fp16ToFloat(bw[b].d) * bx[b].d * sumi;
  }
  return sum;
}

}  // namespace

const KernelEntry kQ6_KGenericGemv = {
    Encoding::kQ6_K, Isa::kGeneric, Shape::kGemv, "q6_k_generic_gemv",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemv<DotQ6_K>, 16};
const KernelEntry kQ6_KGenericGemm = {
    Encoding::kQ6_K, Isa::kGeneric, Shape::kGemm, "q6_k_generic_gemm",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemm<DotQ6_K>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
