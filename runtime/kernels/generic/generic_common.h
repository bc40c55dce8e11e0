// GEMV/GEMM drivers of the portable scalar kernels around one row-dot function.
#ifndef EDGEQ_RUNTIME_KERNELS_GENERIC_GENERIC_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_GENERIC_GENERIC_COMMON_H_

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

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_GENERIC_GENERIC_COMMON_H_
