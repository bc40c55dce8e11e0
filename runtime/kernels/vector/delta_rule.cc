#include "runtime/kernels/vector/delta_rule.h"

#include <cstdint>
#include <vector>

#include "runtime/kernels/internal/select_kernel.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float SumLanes(float* part) {
  for (int w = 8; w >= 1; w /= 2) {
    for (int l = 0; l < w; ++l) part[l] += part[l + w];
  }
  return part[0];
}

// (row * decay) . k, row unchanged.
float DecayedDot(const float* __restrict row, const float* __restrict k, float decay, int64_t n) {
  float part[16] = {};
  for (int64_t i = 0; i < n; ++i) {
    const float x = row[i] * decay;
    part[i % 16] += x * k[i];
  }
  return SumLanes(part);
}

// row = row * decay + k * d, then returns row . q.
float UpdateDot(float* __restrict row, const float* __restrict k, float decay, float d,
                const float* __restrict q, int64_t n) {
  float part[16] = {};
  for (int64_t i = 0; i < n; ++i) {
    const float x = row[i] * decay + k[i] * d;
    row[i] = x;
    part[i % 16] += x * q[i];
  }
  return SumLanes(part);
}

}  // namespace

void DeltaRuleTokenGeneric(float* m, const float* k, const float* q, const float* v, float decay,
                           float b, float scale, int64_t s, float* o) {
  for (int64_t j = 0; j < s; ++j) {
    float* mj = m + j * s;
    const float dj = (v[j] - DecayedDot(mj, k, decay, s)) * b;
    o[j] = UpdateDot(mj, k, decay, dj, q, s) * scale;
  }
}

const DeltaRuleKernel kDeltaRuleGeneric = {"delta_rule_generic", Isa::kGeneric,
                                           &DeltaRuleTokenGeneric};

// The other architecture's kernels are not compiled into this binary.
#if defined(__aarch64__)
const DeltaRuleKernel* const kDeltaRuleAvx2 = nullptr;
const DeltaRuleKernel* const kDeltaRuleAvx512 = nullptr;
#else
const DeltaRuleKernel* const kDeltaRuleNeon = nullptr;
#endif

}  // namespace internal

absl::Span<const DeltaRuleKernel* const> AllDeltaRuleKernels() {
  static const auto* const kAll = new std::vector<const DeltaRuleKernel*>(internal::KernelSet(
      &internal::kDeltaRuleGeneric,
      {internal::kDeltaRuleAvx2, internal::kDeltaRuleAvx512, internal::kDeltaRuleNeon}));
  return *kAll;
}

const DeltaRuleKernel& SelectDeltaRuleKernel(Isa cap) {
  return internal::SelectKernel(AllDeltaRuleKernels(), cap);
}

}  // namespace kernels
}  // namespace edgeq
