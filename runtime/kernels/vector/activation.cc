#include "runtime/kernels/vector/activation.h"

#include <cmath>
#include <cstdint>
#include <vector>

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
  static const auto* const kAll = [] {
    auto* v = new std::vector<const ActivationKernel*>{&internal::kActivationGeneric};
    for (const ActivationKernel* k :
         {internal::kActivationAvx2, internal::kActivationAvx512, internal::kActivationNeon}) {
      if (k != nullptr) v->push_back(k);
    }
    return v;
  }();
  return *kAll;
}

const ActivationKernel& SelectActivationKernel(Isa cap) {
  const ActivationKernel* best = &internal::kActivationGeneric;
  for (const ActivationKernel* k : AllActivationKernels()) {
    if (static_cast<int>(k->isa) <= static_cast<int>(cap) && IsaSupported(k->isa) &&
        static_cast<int>(k->isa) > static_cast<int>(best->isa)) {
      best = k;
    }
  }
  return *best;
}

}  // namespace kernels
}  // namespace edgeq
