#include "runtime/internal/planner.h"

#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace internal {
namespace {

bool Overlap(const BufferUse& a, size_t oa, const BufferUse& b, size_t ob) {
  const bool time = !(a.last < b.first || b.last < a.first);
  const bool space = oa < ob + b.size && ob < oa + a.size;
  return time && space;
}

TEST(PlannerTest, ChainReusesTwoBuffers) {
  // a -> b -> c -> d, each read only by the next step.
  std::vector<BufferUse> uses = {{100, 0, 1}, {100, 1, 2}, {100, 2, 3}, {100, 3, 4}};
  ArenaPlan plan = PlanArena(uses, 64);
  EXPECT_EQ(plan.total_bytes, 256u);  // two 128-byte slots
  EXPECT_EQ(plan.offsets[0], plan.offsets[2]);
  EXPECT_NE(plan.offsets[0], plan.offsets[1]);
}

TEST(PlannerTest, NoOverlapWhenAlive) {
  std::vector<BufferUse> uses;
  for (int i = 0; i < 50; ++i) {
    uses.push_back({static_cast<size_t>(1 + (i * 37) % 300), i % 7, i % 7 + i % 5});
  }
  ArenaPlan plan = PlanArena(uses, 64);
  size_t sum = 0;
  for (size_t i = 0; i < uses.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0u);
    EXPECT_LE(plan.offsets[i] + uses[i].size, plan.total_bytes);
    sum += (uses[i].size + 63) / 64 * 64;
    for (size_t j = 0; j < i; ++j) {
      EXPECT_FALSE(Overlap(uses[i], plan.offsets[i], uses[j], plan.offsets[j])) << i << " " << j;
    }
  }
  EXPECT_LT(plan.total_bytes, sum);
}

TEST(PlannerTest, Empty) {
  ArenaPlan plan = PlanArena({}, 64);
  EXPECT_EQ(plan.total_bytes, 0u);
}

}  // namespace
}  // namespace internal
}  // namespace edgeq
