#include "runtime/kernels/internal/packed_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <thread>  // NOLINT(build/c++11)
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace kernels {
namespace {

bool AllZero(const uint8_t* p, size_t n) {
  return std::all_of(p, p + n, [](uint8_t b) { return b == 0; });
}

TEST(PackedMemoryTest, AllocationsArePageAlignedZeroedAndDisjoint) {
  const PackedMemory::Stats before = PackedMemory::GetStats();
  // Every test releases what it allocated, so each starts with no chunk (and no current one).
  ASSERT_EQ(before.chunks, 0);
  PackedMemory a, b, c;
  uint8_t* pa = a.Allocate(1);
  uint8_t* pb = b.Allocate(5000);
  uint8_t* pc = c.Allocate(PackedMemory::kAlignment);
  ASSERT_NE(pa, nullptr);
  ASSERT_NE(pb, nullptr);
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(a.size(), 4096u);
  EXPECT_EQ(b.size(), 8192u);
  EXPECT_EQ(c.size(), 4096u);
  for (const uint8_t* p : {pa, pb, pc}) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % PackedMemory::kAlignment, 0u);
  }
  EXPECT_TRUE(AllZero(pa, a.size()));
  EXPECT_TRUE(AllZero(pb, b.size()));
  EXPECT_TRUE(AllZero(pc, c.size()));
  // Consecutive small allocations share one chunk, one after the other.
  EXPECT_EQ(pb, pa + a.size());
  EXPECT_EQ(pc, pb + b.size());
  std::fill(pa, pa + a.size(), 0xa5);
  std::fill(pb, pb + b.size(), 0x5a);
  EXPECT_TRUE(AllZero(pc, c.size()));
  const PackedMemory::Stats during = PackedMemory::GetStats();
  EXPECT_EQ(during.chunks, before.chunks + 1);
  EXPECT_EQ(during.live_bytes, before.live_bytes + 16384u);
}

TEST(PackedMemoryTest, ChunksAreHugePageAlignedAndUnmappedWithTheirLastAllocation) {
  const PackedMemory::Stats before = PackedMemory::GetStats();
  // Every test releases what it allocated, so each starts with no chunk (and no current one).
  ASSERT_EQ(before.chunks, 0);
  {
    PackedMemory first;
    uint8_t* p = first.Allocate(100);
    ASSERT_NE(p, nullptr);
    // The first allocation of a fresh chunk starts it.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % PackedMemory::kHugePage, 0u);
    EXPECT_EQ(PackedMemory::GetStats().chunks, before.chunks + 1);
  }
  EXPECT_EQ(PackedMemory::GetStats().chunks, before.chunks);
  EXPECT_EQ(PackedMemory::GetStats().live_bytes, before.live_bytes);
  // Memory given back and asked for again is fresh (zero-filled).
  PackedMemory again;
  uint8_t* p = again.Allocate(4096);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(AllZero(p, 4096));
}

TEST(PackedMemoryTest, FullChunkStartsAnotherAndLargeRequestsGetTheirOwn) {
  const PackedMemory::Stats before = PackedMemory::GetStats();
  // Every test releases what it allocated, so each starts with no chunk (and no current one).
  ASSERT_EQ(before.chunks, 0);
  std::vector<PackedMemory> held(2);
  // Almost a whole chunk, then a request that does not fit what is left.
  uint8_t* p0 = held[0].Allocate(PackedMemory::kChunkBytes - PackedMemory::kAlignment);
  uint8_t* p1 = held[1].Allocate(2 * PackedMemory::kAlignment);
  ASSERT_NE(p0, nullptr);
  ASSERT_NE(p1, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p1) % PackedMemory::kHugePage, 0u);
  EXPECT_EQ(PackedMemory::GetStats().chunks, before.chunks + 2);
  // Larger than a chunk: its own mapping, and the current chunk keeps its free tail.
  PackedMemory large, next;
  uint8_t* pl = large.Allocate(PackedMemory::kChunkBytes + 1);
  ASSERT_NE(pl, nullptr);
  EXPECT_EQ(large.size(), PackedMemory::kChunkBytes + PackedMemory::kAlignment);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pl) % PackedMemory::kHugePage, 0u);
  pl[large.size() - 1] = 1;  // all of it is mapped
  EXPECT_TRUE(AllZero(pl, large.size() - 1));
  uint8_t* pn = next.Allocate(1);
  EXPECT_EQ(pn, p1 + held[1].size());
  EXPECT_EQ(PackedMemory::GetStats().chunks, before.chunks + 3);
  large.Release();
  EXPECT_EQ(PackedMemory::GetStats().chunks, before.chunks + 2);
  held[0].Release();  // the full chunk goes with its only allocation
  EXPECT_EQ(PackedMemory::GetStats().chunks, before.chunks + 1);
}

// Whether the page holding `p` is resident (mincore).
bool Resident(const uint8_t* p) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  unsigned char v = 0;
  void* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) / page * page);
  if (mincore(start, page, &v) != 0) return true;  // unknown: count it as resident
  return (v & 1) != 0;
}

TEST(PackedMemoryTest, ChunkLeftBehindGivesBackItsFreeTail) {
  ASSERT_EQ(PackedMemory::GetStats().chunks, 0);
  PackedMemory a, c;
  // a ends one page before a huge page boundary, so touching its last page (with transparent huge
  // pages) makes that huge page resident, the free page after a included.
  const size_t a_bytes = PackedMemory::kChunkBytes - PackedMemory::kHugePage - 4096;
  uint8_t* pa = a.Allocate(a_bytes);
  ASSERT_NE(pa, nullptr);
  pa[a_bytes - 1] = 7;
  uint8_t* tail = pa + a_bytes;
  // c does not fit what is left: a new chunk takes over and the old one's tail is given back.
  uint8_t* pc = c.Allocate(PackedMemory::kHugePage + 2 * 4096);
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(PackedMemory::GetStats().chunks, 2);
  EXPECT_FALSE(Resident(tail));
  EXPECT_EQ(pa[a_bytes - 1], 7);  // a keeps its contents
  EXPECT_EQ(pa[0], 0);
}

TEST(PackedMemoryTest, MoveTransfersOwnershipAndZeroIsRefused) {
  PackedMemory a;
  EXPECT_EQ(a.Allocate(0), nullptr);
  EXPECT_EQ(a.size(), 0u);
  uint8_t* p = a.Allocate(10);
  ASSERT_NE(p, nullptr);
  const uint64_t live = PackedMemory::GetStats().live_bytes;
  PackedMemory b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state
  PackedMemory c;
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(PackedMemory::GetStats().live_bytes, live);
  c.Release();
  EXPECT_EQ(PackedMemory::GetStats().live_bytes, live - 4096);
}

TEST(PackedMemoryTest, ConcurrentAllocationsAreDisjoint) {
  constexpr int kThreads = 4, kEach = 64;
  std::vector<std::vector<PackedMemory>> held(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&held, t] {
      held[t].resize(kEach);
      for (int i = 0; i < kEach; ++i) {
        uint8_t* p = held[t][i].Allocate(4096 * (1 + i % 3));
        if (p != nullptr) std::fill(p, p + held[t][i].size(), static_cast<uint8_t>(t + 1));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  for (int t = 0; t < kThreads; ++t) {
    for (const PackedMemory& m : held[t]) {
      ASSERT_NE(m.data(), nullptr);
      // Nobody else wrote into it.
      for (size_t i = 0; i < m.size(); ++i) ASSERT_EQ(m.data()[i], t + 1);
      const uintptr_t b = reinterpret_cast<uintptr_t>(m.data());
      ranges.emplace_back(b, b + m.size());
    }
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
