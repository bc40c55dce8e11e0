// The one selection routine of every per-ISA kernel family (qmatmul entries, attention,
// activations): among a family's entries, the one with the highest ISA level that this CPU
// supports and the session's cap allows. Portable code only (no ISA flags).
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_SELECT_KERNEL_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_SELECT_KERNEL_H_

#include <initializer_list>
#include <vector>

#include "absl/types/span.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {
namespace internal {

// The entry of `all` for which `matches(entry)` holds with the highest `isa` that this CPU
// supports at or below `cap` (the first of them in `all` on a tie); null if none. K has a member
// `Isa isa`.
template <typename K, typename Match>
const K* SelectKernel(absl::Span<const K* const> all, Isa cap, Match matches) {
  const K* best = nullptr;
  for (const K* k : all) {
    if (!matches(*k)) continue;
    if (static_cast<int>(k->isa) > static_cast<int>(cap) || !IsaSupported(k->isa)) continue;
    if (best == nullptr || static_cast<int>(k->isa) > static_cast<int>(best->isa)) best = k;
  }
  return best;
}

// A family of one kernel per ISA whose generic kernel comes first (as KernelSet builds it): the
// best one for `cap`, the generic one at worst.
template <typename K>
const K& SelectKernel(absl::Span<const K* const> all, Isa cap) {
  return *SelectKernel(all, cap, [](const K&) { return true; });
}

// The generic kernel first, then the non-null others (null: the file of another architecture), in
// order.
template <typename K>
std::vector<const K*> KernelSet(const K* generic, std::initializer_list<const K*> others) {
  std::vector<const K*> v = {generic};
  for (const K* k : others) {
    if (k != nullptr) v.push_back(k);
  }
  return v;
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_SELECT_KERNEL_H_
