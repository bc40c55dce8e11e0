#include "checkpoint/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "gtest/gtest.h"

namespace edgeq {
namespace checkpoint {
namespace {

// An anonymous private mapping of `pages` pages filled with a byte pattern (MADV_DONTNEED turns
// a dropped page of it into zeros, which shows which pages were dropped).
struct Mapping {
  explicit Mapping(size_t pages) : page(sysconf(_SC_PAGESIZE)), size(pages * page) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
    if (data != nullptr) std::memset(data, 7, size);
  }
  ~Mapping() {
    if (data != nullptr) munmap(data, size);
  }
  absl::Span<const uint8_t> span() const { return absl::MakeConstSpan(data, size); }
  const size_t page, size;
  uint8_t* data = nullptr;
};

TEST(MappedFileTest, ReleasesOnlyWholePagesInsideTheMapping) {
  Mapping m(6);
  ASSERT_NE(m.data, nullptr);
  // [page/2, 3.5 pages): whole pages 1 and 2 only.
  EXPECT_EQ(ReleaseMappedPages(m.span(), m.data + m.page / 2, 3 * m.page), 2 * m.page);
  EXPECT_EQ(m.data[0], 7);
  EXPECT_EQ(m.data[m.page], 0);
  EXPECT_EQ(m.data[2 * m.page + 5], 0);
  EXPECT_EQ(m.data[3 * m.page], 7);
  // No whole page; outside the mapping; an empty mapping.
  EXPECT_EQ(ReleaseMappedPages(m.span(), m.data + 4 * m.page + 1, m.page), 0u);
  EXPECT_EQ(ReleaseMappedPages(m.span(), m.data + 5 * m.page, 2 * m.page), 0u);
  EXPECT_EQ(ReleaseMappedPages({}, m.data, m.page), 0u);
  EXPECT_EQ(m.data[4 * m.page], 7);
}

TEST(MappedFileTest, ProgressiveReleaseFollowsTheBytesRead) {
  Mapping m(8);
  ASSERT_NE(m.data, nullptr);
  ProgressivePageRelease release(m.span());
  const uint8_t* weight = m.data + 10;  // its first page is partial: kept
  release.BytesRead(weight, m.page);
  EXPECT_EQ(release.released_bytes(), 0u);
  release.BytesRead(weight, 3 * m.page);  // whole pages 1 and 2 are read
  EXPECT_EQ(release.released_bytes(), 2 * m.page);
  EXPECT_EQ(m.data[m.page], 0);
  EXPECT_EQ(m.data[3 * m.page], 7);
  release.BytesRead(weight, 3 * m.page);  // nothing new
  EXPECT_EQ(release.released_bytes(), 2 * m.page);
  release.BytesRead(m.data + 5 * m.page, m.page);  // another constant: its own pages
  EXPECT_EQ(release.released_bytes(), 3 * m.page);
  EXPECT_EQ(m.data[5 * m.page], 0);
  EXPECT_EQ(m.data[0], 7);
  EXPECT_EQ(m.data[3 * m.page], 7);
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
