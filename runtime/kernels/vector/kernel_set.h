// The list-and-select logic shared by the per-ISA kernel families that are not qmatmul (attention,
// activations): a family is a generic kernel plus optional ISA ones (null where their file is not
// compiled for this architecture), each with `isa`. Portable code only (no ISA flags).
#ifndef EDGEQ_RUNTIME_KERNELS_VECTOR_KERNEL_SET_H_
#define EDGEQ_RUNTIME_KERNELS_VECTOR_KERNEL_SET_H_

#include <initializer_list>
#include <vector>

#include "absl/types/span.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace kernels {
namespace internal {

// The generic kernel first, then the non-null others, in order.
template <typename K>
std::vector<const K*> KernelSet(const K* generic, std::initializer_list<const K*> others) {
  std::vector<const K*> v = {generic};
  for (const K* k : others) {
    if (k != nullptr) v.push_back(k);
  }
  return v;
}

// The kernel of `all` with the highest ISA this CPU supports at or below `cap` (all[0], the
// generic one, at worst).
template <typename K>
const K& SelectKernel(absl::Span<const K* const> all, Isa cap) {
  const K* best = all[0];
  for (const K* k : all) {
    if (static_cast<int>(k->isa) <= static_cast<int>(cap) && IsaSupported(k->isa) &&
        static_cast<int>(k->isa) > static_cast<int>(best->isa)) {
      best = k;
    }
  }
  return *best;
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_VECTOR_KERNEL_SET_H_
