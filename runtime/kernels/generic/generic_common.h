// GEMV/GEMM drivers of the portable scalar kernels around one row-dot function, and the Q4_K/Q5_K
// row dot over a level decoder.
#ifndef EDGEQ_RUNTIME_KERNELS_GENERIC_GENERIC_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_GENERIC_GENERIC_COMMON_H_

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {

// Dot of one weight row (GGML layout) with one activation row (the kernel's format).
using RowDotFn = float (*)(const uint8_t* w, const uint8_t* x, int64_t k);

template <RowDotFn Dot>
void GenericGemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) p.y[j] = Dot(p.w + j * p.w_row_bytes, p.xq, p.k);
}

// Weight rows are the outer loop so that each stays in cache while every activation row uses it.
template <RowDotFn Dot>
void GenericGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* w = p.w + j * p.w_row_bytes;
    for (int64_t i = 0; i < p.m; ++i) {
      p.y[i * p.y_stride + j] = Dot(w, p.xq + i * p.xq_row_bytes, p.k);
    }
  }
}

// Q4_K/Q5_K x Q8_K (GGML's vec_dot math). L provides: using Block; static int Low(const Block&,
// int j, int l) and High(...): the levels of values 64 j + l and 64 j + 32 + l (l < 32).
template <typename L>
float DotQ45_K(const uint8_t* w, const uint8_t* x, int64_t k) {
  const auto* bw = reinterpret_cast<const typename L::Block*>(w);
  const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
  float sum = 0.0f;
  for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
    uint8_t sc[8], mn[8];
    blocks::UnpackKScales(bw[b].scales, sc, mn);
    int32_t summ = 0;
    for (int j = 0; j < 16; ++j) summ += bx[b].bsums[j] * mn[j / 2];
    int32_t sumi = 0;
    for (int j = 0; j < 4; ++j) {
      const int8_t* y = bx[b].qs + 64 * j;
      int32_t s0 = 0, s1 = 0;
      for (int l = 0; l < 32; ++l) {
        s0 += L::Low(bw[b], j, l) * y[l];
        s1 += L::High(bw[b], j, l) * y[l + 32];
      }
      sumi += sc[2 * j] * s0 + sc[2 * j + 1] * s1;
    }
    const float d = blocks::Fp16ToFloat(bw[b].d) * bx[b].d;
    const float dmin = blocks::Fp16ToFloat(bw[b].dmin) * bx[b].d;
    sum += d * sumi - dmin * summ;
  }
  return sum;
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_GENERIC_GENERIC_COMMON_H_
