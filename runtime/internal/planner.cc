#include "runtime/internal/planner.h"

#include <algorithm>
#include <numeric>

namespace edgeq {
namespace internal {

ArenaPlan PlanArena(const std::vector<BufferUse>& uses, size_t alignment) {
  ArenaPlan plan;
  plan.offsets.assign(uses.size(), 0);
  std::vector<size_t> order(uses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return uses[a].size > uses[b].size; });
  auto align = [alignment](size_t x) { return (x + alignment - 1) / alignment * alignment; };
  std::vector<size_t> placed;  // indices already placed, sorted by offset
  for (size_t idx : order) {
    const BufferUse& u = uses[idx];
    size_t offset = 0;
    for (size_t p : placed) {
      const BufferUse& o = uses[p];
      if (o.last < u.first || u.last < o.first) continue;  // lifetimes disjoint
      const size_t o_begin = plan.offsets[p];
      const size_t o_end = o_begin + align(o.size);
      if (offset + align(u.size) <= o_begin) break;  // fits in the gap before `o`
      offset = std::max(offset, o_end);
    }
    plan.offsets[idx] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + align(u.size));
    placed.insert(
        std::upper_bound(placed.begin(), placed.end(), idx,
                         [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; }),
        idx);
  }
  return plan;
}

}  // namespace internal
}  // namespace edgeq
