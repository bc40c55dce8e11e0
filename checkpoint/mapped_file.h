// Dropping resident pages of a memory-mapped checkpoint (OpenedCheckpoint::file_bytes) whose
// bytes a kernel has copied (repacked or packed weights): the pages stay valid and come back from
// the file on access, so resident memory stays near the file size instead of file + copies.
//
//   checkpoint::ReleaseMappedPages(opened.file_bytes, weight.raw_data(), weight.size_bytes());
#ifndef EDGEQ_CHECKPOINT_MAPPED_FILE_H_
#define EDGEQ_CHECKPOINT_MAPPED_FILE_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"

namespace edgeq {
namespace checkpoint {

// Drops (madvise MADV_DONTNEED) the whole pages of `mapping` inside [data, data + bytes): a
// partial first or last page is kept. Returns the bytes dropped; 0 if the range is not inside the
// mapping (or `mapping` is empty), holds no whole page, or madvise fails.
uint64_t ReleaseMappedPages(absl::Span<const uint8_t> mapping, const void* data, size_t bytes);

// The same while a kernel reads one constant after another: BytesRead(data, n) says the first n
// bytes of the constant at `data` were read, and drops the whole pages below data + n not dropped
// yet, so that a copy and its mapped original are never both resident.
class ProgressivePageRelease {
 public:
  explicit ProgressivePageRelease(absl::Span<const uint8_t> mapping) : mapping_(mapping) {}
  void BytesRead(const void* data, size_t bytes_read);
  uint64_t released_bytes() const { return released_; }

 private:
  absl::Span<const uint8_t> mapping_;
  const void* data_ = nullptr;  // the constant being read
  uintptr_t done_ = 0;          // its pages below this address are dropped
  uint64_t released_ = 0;
};

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_MAPPED_FILE_H_
