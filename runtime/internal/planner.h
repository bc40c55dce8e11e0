// Memory planning: offsets in one arena for buffers with known lifetimes.
#ifndef EDGEQ_RUNTIME_INTERNAL_PLANNER_H_
#define EDGEQ_RUNTIME_INTERNAL_PLANNER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgeq {
namespace internal {

// A buffer needed from step `first` to step `last` (inclusive) of `size` bytes.
struct BufferUse {
  size_t size;
  int first;
  int last;
};

struct ArenaPlan {
  std::vector<size_t> offsets;  // one per BufferUse, multiples of `alignment`
  size_t total_bytes = 0;
};

// Greedy by size: buffers are placed largest first at the lowest aligned offset that does not
// overlap (in bytes) any already placed buffer whose lifetime overlaps. Two buffers share bytes
// only if their lifetimes are disjoint.
ArenaPlan PlanArena(const std::vector<BufferUse>& uses, size_t alignment);

}  // namespace internal
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_INTERNAL_PLANNER_H_
