#include "runtime/kernels/attention/attention.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "quantization/block_layout.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/internal/select_kernel.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Portable scalar operations: the reference order of every sum (left to right).
struct GenericOps {
  static void ScoresTile(const float* const* q, int64_t rows, const float* k, int64_t stride,
                         int64_t n, int64_t hs, float scale, float* const* s) {
    ScoresTileByRow<GenericOps>(q, rows, k, stride, n, hs, scale, s);
  }
  static void WeightedSumTile(float* const* s, int64_t rows, const float* v, int64_t stride,
                              int64_t n, int64_t hs, bool accumulate, float* const* o) {
    WeightedSumTileByRow<GenericOps>(s, rows, v, stride, n, hs, accumulate, o);
  }
  static void Scores(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
                     float scale, float* s) {
    ScoresByDot<GenericOps>(q, k, stride, n, hs, scale, s);
  }
  static void WeightedSum(const float* s, const float* v, int64_t stride, int64_t n, int64_t hs,
                          bool accumulate, float* o) {
    WeightedSumByAxpy<GenericOps>(s, v, stride, n, hs, accumulate, o);
  }
  static float Dot(const float* a, const float* b, int64_t n) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += a * x[i];
  }
  static void Scale(float* y, float a, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] *= a;
  }
  static float Max(const float* x, int64_t n) {
    float m = x[0];
    for (int64_t i = 1; i < n; ++i) m = std::max(m, x[i]);
    return m;
  }
  static float ExpSum(float* x, int64_t n, float max) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
      x[i] = std::exp(x[i] - max);
      s += x[i];
    }
    return s;
  }
  static void DecodeQ8_0(const uint8_t* row, int64_t n, float* out) {
    DecodeQ8_0ByScalar<GenericOps>(row, n, out);
  }
  static void DecodeF16(const uint8_t* row, int64_t n, float* out) {
    DecodeF16ByScalar<GenericOps>(row, n, out);
  }
};

void EncodeF16Generic(const float* x, int64_t n, uint16_t* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = blocks::GgmlFloatToFp16(x[i]);
}
void DecodeF16Generic(const uint16_t* h, int64_t n, float* out) {
  DecodeF16ByScalar<GenericOps>(reinterpret_cast<const uint8_t*>(h), n, out);
}

}  // namespace

const AttentionKernel kAttentionGeneric = {"attention_generic", Isa::kGeneric,
                                           &AttendRows<GenericOps>, &EncodeF16Generic,
                                           &DecodeF16Generic};

// The other architecture's kernels are not compiled into this binary.
#if defined(__aarch64__)
const AttentionKernel* const kAttentionAvx2 = nullptr;
const AttentionKernel* const kAttentionAvx512 = nullptr;
#else
const AttentionKernel* const kAttentionNeon = nullptr;
#endif

}  // namespace internal

absl::Span<const AttentionKernel* const> AllAttentionKernels() {
  static const auto* const kAll = new std::vector<const AttentionKernel*>(internal::KernelSet(
      &internal::kAttentionGeneric,
      {internal::kAttentionAvx2, internal::kAttentionAvx512, internal::kAttentionNeon}));
  return *kAll;
}

// Every AArch64 CPU has NEON: there the NEON kernel is the dispatcher's only entry and a cap below
// NEON runs it too (as for the qmatmul kernels, qmatmul.cc's Dispatched), so an aarch64 library
// does not carry the generic kernel (README, "Footprint"); AllAttentionKernels() (tests) still
// lists it.
const AttentionKernel& SelectAttentionKernel(Isa cap) {
#if defined(__aarch64__)
  static_cast<void>(cap);
  return *internal::kAttentionNeon;
#else
  return internal::SelectKernel(AllAttentionKernels(), cap);
#endif
}

}  // namespace kernels
}  // namespace edgeq
