#include "checkpoint/mapped_file.h"

#include <sys/mman.h>
#include <unistd.h>

namespace edgeq {
namespace checkpoint {
namespace {

uintptr_t PageSize() { return static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)); }

bool Inside(absl::Span<const uint8_t> mapping, uintptr_t begin, uintptr_t end) {
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mapping.data()), hi = lo + mapping.size();
  return !mapping.empty() && begin >= lo && end <= hi;
}

}  // namespace

uint64_t ReleaseMappedPages(absl::Span<const uint8_t> mapping, const void* data, size_t bytes) {
  const uintptr_t page = PageSize();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  if (!Inside(mapping, begin, end)) return 0;
  const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (last <= first) return 0;
  if (madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) != 0) return 0;
  return last - first;
}

void ProgressivePageRelease::BytesRead(const void* data, size_t bytes_read) {
  const uintptr_t page = PageSize();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes_read;
  if (!Inside(mapping_, begin, end)) return;
  if (data_ != data) {
    data_ = data;
    done_ = (begin + page - 1) / page * page;
  }
  // The last page may hold bytes still to be read: only whole pages below `end`.
  const uintptr_t last = end / page * page;
  if (last <= done_) return;
  if (madvise(reinterpret_cast<void*>(done_), last - done_, MADV_DONTNEED) == 0) {
    released_ += last - done_;
  }
  done_ = last;
}

}  // namespace checkpoint
}  // namespace edgeq
