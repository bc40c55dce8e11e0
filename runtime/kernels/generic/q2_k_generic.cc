// Q2_K x Q8_K, portable scalar (GGML's ggml_vec_dot_q2_K_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotQ2_K(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const blocks::BlockQ2_K*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
    const uint8_t* sc = bw[b].scales;
    int32_t summs = 0;
    for (int j = 0; j < 16; ++j) summs += bx[b].bsums[j] * (sc[j] >> 4);
    int32_t isum = 0;
    for (int half = 0; half < 2; ++half) {
      const uint8_t* q2 = bw[b].qs + 32 * half;
      for (int shift = 0; shift < 8; shift += 2) {
        // Values 128 half + 32 (shift / 2) + l: sub-blocks 8 half + shift + (l >= 16).
        const int8_t* y = bx[b].qs + 128 * half + 16 * shift;
        const int g = 8 * half + shift;
        int32_t s0 = 0, s1 = 0;
        for (int l = 0; l < 16; ++l) {
          s0 += y[l] * ((q2[l] >> shift) & 3);
          s1 += y[l + 16] * ((q2[l + 16] >> shift) & 3);
        }
        isum += (sc[g] & 0xF) * s0 + (sc[g + 1] & 0xF) * s1;
      }
    }
    const float dall = bx[b].d * blocks::Fp16ToFloat(bw[b].d);
    const float dmin = bx[b].d * blocks::Fp16ToFloat(bw[b].dmin);
    sum += dall * isum - dmin * summs;
  }
  return sum;
}

}  // namespace

const KernelEntry kQ2_KGenericGemv = {
    Encoding::kQ2_K, Isa::kGeneric, Shape::kGemv, "q2_k_generic_gemv",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemv<DotQ2_K>, 16};
const KernelEntry kQ2_KGenericGemm = {
    Encoding::kQ2_K, Isa::kGeneric, Shape::kGemm, "q2_k_generic_gemm",  QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,       nullptr,      GenericGemm<DotQ2_K>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
