// Q5_K x Q8_K, portable scalar (GGML's ggml_vec_dot_q5_K_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/k_scales.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ5_K(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ5_K*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
    uint8_t sc[8], mn[8];
    UnpackKScales(bw[b].scales, sc, mn);
    int32_t summ = 0;
    for (int j = 0; j < 16; ++j) summ += bx[b].bsums[j] * mn[j / 2];
    int32_t sumi = 0;
    for (int j = 0; j < 4; ++j) {
      const uint8_t* q = bw[b].qs + 32 * j;
      const uint8_t* qh = bw[b].qh;
      const int8_t* y = bx[b].qs + 64 * j;
      const int u1 = 1 << (2 * j), u2 = 2 << (2 * j);
      int32_t s0 = 0, s1 = 0;
      for (int l = 0; l < 32; ++l) {
        s0 += ((q[l] & 0x0F) + ((qh[l] & u1) ? 16 : 0)) * y[l];
        s1 += ((q[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) * y[l + 32];
      }
      sumi += sc[2 * j] * s0 + sc[2 * j + 1] * s1;
    }
    const float d = blocks::Fp16ToFloat(bw[b].d) * bx[b].d;
    const float dmin = blocks::Fp16ToFloat(bw[b].dmin) * bx[b].d;
    sum += d * sumi - dmin * summ;
  }
  return sum;
}

}  // namespace

const KernelEntry kQ5_KGenericGemv = {
    Encoding::kQ5_K, Isa::kGeneric, Shape::kGemv, "q5_k_generic_gemv",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemv<DotQ5_K>, 16};
const KernelEntry kQ5_KGenericGemm = {
    Encoding::kQ5_K, Isa::kGeneric, Shape::kGemm, "q5_k_generic_gemm",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemm<DotQ5_K>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
