// GEMV/GEMM drivers around a kernel's R-row dot routine (R = 1..4 weight rows against one
// activation row). Included by the ISA files so that everything inlines into code compiled with
// that file's ISA flags.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_ROW_DRIVER_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_ROW_DRIVER_H_

#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// K provides: template <int R> static void Rows(const uint8_t* w, size_t w_row_bytes,
//                                               const uint8_t* x, int64_t k, float* out);
// writing out[r] = dot(weight row r, x) for r < R.
template <typename K>
inline void RowsAny(int r, const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
  switch (r) {
    case 1:
      K::template Rows<1>(w, wrb, x, k, out);
      break;
    case 2:
      K::template Rows<2>(w, wrb, x, k, out);
      break;
    case 3:
      K::template Rows<3>(w, wrb, x, k, out);
      break;
    default:
      K::template Rows<4>(w, wrb, x, k, out);
      break;
  }
}

// Adapts a kernel to run its 1-row form R times (for kernels whose multi-row form needs more
// vector registers than the ISA has).
template <typename K>
struct ByRow {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    for (int r = 0; r < R; ++r) K::template Rows<1>(w + r * wrb, wrb, x, k, out + r);
  }
};

template <typename K>
void RowsGemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4)
    K::template Rows<4>(p.w + j * p.w_row_bytes, p.w_row_bytes, p.xq, p.k, p.y + j);
  if (j < j1)
    RowsAny<K>(static_cast<int>(j1 - j), p.w + j * p.w_row_bytes, p.w_row_bytes, p.xq, p.k,
               p.y + j);
}

// Four weight rows stay in L1 while every activation row passes over them.
template <typename K>
void RowsGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; j += 4) {
    const int r = static_cast<int>(j1 - j < 4 ? j1 - j : 4);
    const uint8_t* w = p.w + j * p.w_row_bytes;
    for (int64_t i = 0; i < p.m; ++i) {
      float out[4];
      RowsAny<K>(r, w, p.w_row_bytes, p.xq + i * p.xq_row_bytes, p.k, out);
      for (int t = 0; t < r; ++t) p.y[i * p.y_stride + j + t] = out[t];
    }
  }
}

// Defines prefix##Gemv and prefix##Gemm as EDGEQ_DEFINE_KERNEL_PAIR does, for a row kernel K (the
// last argument): RowsGemv<K> and RowsGemm<K>.
#define EDGEQ_DEFINE_ROWS_KERNEL_PAIR(prefix, encoding, isa, name, quantize, act_row_bytes,     \
                                      repack, repacked_row_bytes, tile_n, ...)                  \
  EDGEQ_KERNEL_ENTRY(prefix##Gemv, Shape::kGemv, name "_gemv", encoding, isa, quantize,         \
                     act_row_bytes, repack, repacked_row_bytes, tile_n, RowsGemv<__VA_ARGS__>); \
  EDGEQ_KERNEL_ENTRY(prefix##Gemm, Shape::kGemm, name "_gemm", encoding, isa, quantize,         \
                     act_row_bytes, repack, repacked_row_bytes, tile_n, RowsGemm<__VA_ARGS__>)

}  // namespace
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_ROW_DRIVER_H_
