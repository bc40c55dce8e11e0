#include "llm/prefill_plan.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace edgeq {
namespace llm {

std::vector<int> PrefillBlockSizes(int ubatch) {
  std::vector<int> sizes;
  if (ubatch <= 1) return sizes;
  for (int s = kSmallestPrefillBlock; s < ubatch; s *= 2) sizes.push_back(s);
  sizes.push_back(ubatch);
  return sizes;
}

std::vector<int> PlanPrefill(int64_t n, absl::Span<const int> sizes) {
  std::vector<int> plan;
  if (n <= 0) return plan;
  const int largest = sizes.empty() ? 1 : sizes.back();
  // Full blocks of the largest size (the cheapest per token).
  while (largest > 1 && n >= largest) {
    plan.push_back(largest);
    n -= largest;
  }
  if (sizes.empty()) {
    plan.insert(plan.end(), static_cast<size_t>(n), 1);
    return plan;
  }
  // The rest (< largest): cost[r] = cheapest way to run r tokens, in sixths of a decode step.
  const int rest = static_cast<int>(n);
  std::vector<int64_t> cost(rest + 1, 0);
  std::vector<int> first(rest + 1, 1);
  for (int r = 1; r <= rest; ++r) {
    // Larger blocks first on ties; a decode step only when strictly cheaper.
    cost[r] = INT64_MAX;
    for (auto it = sizes.rbegin(); it != sizes.rend(); ++it) {
      const int s = *it;
      const int64_t c = 6 + s + cost[std::max(0, r - s)];
      if (c < cost[r]) {
        cost[r] = c;
        first[r] = s;
      }
    }
    if (6 + cost[r - 1] < cost[r]) {
      cost[r] = 6 + cost[r - 1];
      first[r] = 1;
    }
  }
  for (int r = rest; r > 0; r -= std::min(r, first[r])) plan.push_back(first[r]);
  return plan;
}

}  // namespace llm
}  // namespace edgeq
