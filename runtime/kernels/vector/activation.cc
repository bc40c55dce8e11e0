#include "runtime/kernels/vector/activation.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/kernels/internal/select_kernel.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

void SiluGeneric(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.0f + std::exp(-x[i]));
}

void SwigluGeneric(const float* gate, const float* up, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

}  // namespace

const ActivationKernel kActivationGeneric = {"activation_generic", Isa::kGeneric, &SiluGeneric,
                                             &SwigluGeneric};

// The other architecture's kernels are not compiled into this binary.
#if defined(__aarch64__)
const ActivationKernel* const kActivationAvx2 = nullptr;
const ActivationKernel* const kActivationAvx512 = nullptr;
#else
const ActivationKernel* const kActivationNeon = nullptr;
#endif

}  // namespace internal

absl::Span<const ActivationKernel* const> AllActivationKernels() {
  static const auto* const kAll = new std::vector<const ActivationKernel*>(internal::KernelSet(
      &internal::kActivationGeneric,
      {internal::kActivationAvx2, internal::kActivationAvx512, internal::kActivationNeon}));
  return *kAll;
}

const ActivationKernel& SelectActivationKernel(Isa cap) {
  return internal::SelectKernel(AllActivationKernels(), cap);
}

}  // namespace kernels
}  // namespace edgeq
