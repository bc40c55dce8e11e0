#include "core/parallel.h"

#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pthreadpool.h"

namespace edgeq {
namespace {

using Pool = std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)>;

TEST(ParallelTest, WorthParallelIsTheOneThreshold) {
  Pool pool(pthreadpool_create(2), pthreadpool_destroy);
  ASSERT_NE(pool, nullptr);
  EXPECT_FALSE(WorthParallel(nullptr, int64_t{1} << 30));
  EXPECT_FALSE(WorthParallel(pool.get(), kMinParallelWork - 1));
  EXPECT_TRUE(WorthParallel(pool.get(), kMinParallelWork));
  Pool single(pthreadpool_create(1), pthreadpool_destroy);
  EXPECT_FALSE(WorthParallel(single.get(), int64_t{1} << 30));
  // Matmuls: 2^20 multiply-adds is where they go parallel (a 288x288 GEMV stays serial).
  EXPECT_EQ(MatmulWork(int64_t{1} << 20), kMinParallelWork);
  EXPECT_FALSE(WorthParallel(pool.get(), MatmulWork(288 * 288)));
  EXPECT_TRUE(WorthParallel(pool.get(), MatmulWork(int64_t{32000} * 288)));
}

TEST(ParallelTest, SmallWorkRunsOnceOnTheCallingThread) {
  Pool pool(pthreadpool_create(2), pthreadpool_destroy);
  ASSERT_NE(pool, nullptr);
  std::vector<std::pair<size_t, size_t>> calls;
  const std::thread::id me = std::this_thread::get_id();
  bool other_thread = false;
  ParallelFor(pool.get(), 1000, 10, kMinParallelWork - 1, [&](size_t s, size_t c) {
    calls.emplace_back(s, c);
    other_thread |= std::this_thread::get_id() != me;
  });
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(size_t{0}, size_t{1000}));
  EXPECT_FALSE(other_thread);
  calls.clear();
  ParallelFor(nullptr, 7, 3, int64_t{1} << 40,
              [&](size_t s, size_t c) { calls.emplace_back(s, c); });
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(size_t{0}, size_t{7}));
  ParallelFor(pool.get(), 0, 3, int64_t{1} << 40, [&](size_t, size_t) { FAIL() << "n = 0"; });
}

TEST(ParallelTest, LargeWorkCoversEveryItemOnceInTiles) {
  Pool pool(pthreadpool_create(2), pthreadpool_destroy);
  ASSERT_NE(pool, nullptr);
  constexpr size_t kN = 1003, kTile = 10;
  std::vector<std::atomic<int>> seen(kN);
  std::atomic<int> tiles{0};
  ParallelFor(pool.get(), kN, kTile, kMinParallelWork, [&](size_t s, size_t c) {
    EXPECT_EQ(s % kTile, 0u);
    EXPECT_EQ(c, std::min(kTile, kN - s));
    for (size_t i = s; i < s + c; ++i) seen[i]++;
    tiles++;
  });
  EXPECT_EQ(tiles.load(), 101);
  for (size_t i = 0; i < kN; ++i) EXPECT_EQ(seen[i].load(), 1) << i;
}

}  // namespace
}  // namespace edgeq
