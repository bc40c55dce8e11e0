// Memory for repacked weights (the copies QMatmulKernel makes in a kernel's layout).
//
// Every repacked matrix used to be its own anonymous mapping, page-aligned but not aligned to a
// huge page, and transparent huge pages were asked for only for matrices of 2 MiB or more. A small
// model's matrices (the 166M shape's are 0.6-1.6 MiB) then never got huge pages, and a large
// matrix got them only for the 2 MiB-aligned middle of its mapping: decode streams every weight
// once per token through 4 KiB translations.
//
// PackedMemory carves the copies out of shared chunks instead: each chunk is one anonymous
// mapping of at least kChunkBytes, aligned to 2 MiB, with huge pages asked for (madvise
// MADV_HUGEPAGE; a no-op where the kernel has none, e.g. most Android kernels), so consecutive
// matrices of a model sit in the same huge pages. Allocations are bump-allocated and never reused
// inside a chunk: each is fresh (zero-filled) memory, and a chunk is unmapped when its last
// allocation is released. A request of a chunk or more gets a chunk of its own. A chunk left
// behind (a request did not fit what was left) gives back the pages of its free tail, which the
// last allocation's huge page may have made resident.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_PACKED_MEMORY_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_PACKED_MEMORY_H_

#include <cstddef>
#include <cstdint>

namespace edgeq {
namespace kernels {

class PackedMemory {
 public:
  // Granule of every allocation (its start and its size): a page, as the per-matrix mappings
  // were.
  static constexpr size_t kAlignment = 4096;
  // Huge page size the chunks are aligned to (x86-64 and AArch64 with 4 KiB base pages).
  static constexpr size_t kHugePage = size_t{2} << 20;
  // Size of a shared chunk (address space; only the touched pages become resident).
  static constexpr size_t kChunkBytes = size_t{32} << 20;

  PackedMemory() = default;
  PackedMemory(const PackedMemory&) = delete;
  PackedMemory& operator=(const PackedMemory&) = delete;
  PackedMemory(PackedMemory&& other) noexcept;
  PackedMemory& operator=(PackedMemory&& other) noexcept;
  ~PackedMemory() { Release(); }

  // `bytes` (rounded up to kAlignment) of zero-filled memory aligned to kAlignment; null if the
  // mapping fails or `bytes` is 0. Releases what this object held before.
  uint8_t* Allocate(size_t bytes);
  // Gives the memory back (its chunk is unmapped with its last allocation).
  void Release();

  uint8_t* data() const { return data_; }
  // Bytes allocated (rounded up to kAlignment); 0 if none.
  size_t size() const { return data_ != nullptr ? size_ : 0; }

  // For tests: the chunks mapped now and the bytes of their live allocations.
  struct Stats {
    int64_t chunks = 0;
    uint64_t live_bytes = 0;
  };
  static Stats GetStats();

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* chunk_ = nullptr;  // the chunk's bookkeeping (packed_memory.cc)
};

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_PACKED_MEMORY_H_
