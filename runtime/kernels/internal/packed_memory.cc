#include "runtime/kernels/internal/packed_memory.h"

#include <sys/mman.h>

#include <cstdint>
#include <mutex>  // NOLINT(build/c++11): std::mutex is the project's lock for this small state
#include <utility>

namespace edgeq {
namespace kernels {
namespace {

struct Chunk {
  uint8_t* base = nullptr;  // kHugePage-aligned
  size_t capacity = 0;      // multiple of kHugePage
  size_t used = 0;          // bump pointer, multiple of kAlignment
  int64_t live = 0;         // allocations not yet released
  Chunk* next = nullptr;    // all mapped chunks
};

struct Arena {
  std::mutex mu;
  Chunk* chunks = nullptr;   // every mapped chunk
  Chunk* current = nullptr;  // the one new allocations are carved from, if any
  int64_t chunk_count = 0;
  uint64_t live_bytes = 0;
};

Arena& TheArena() {
  static Arena* arena = new Arena;  // never destroyed: weights may outlive static destructors
  return *arena;
}

size_t RoundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }

// An anonymous mapping of `capacity` bytes (a multiple of kHugePage) aligned to kHugePage, huge
// pages asked for; null if the mapping fails.
uint8_t* MapAligned(size_t capacity) {
  const size_t span = capacity + PackedMemory::kHugePage;
  void* p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const uintptr_t raw = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = RoundUp(raw, PackedMemory::kHugePage);
  // Give back the unaligned head and the tail beyond `capacity`.
  if (aligned > raw) munmap(p, aligned - raw);
  const uintptr_t end = aligned + capacity, raw_end = raw + span;
  if (raw_end > end) munmap(reinterpret_cast<void*>(end), raw_end - end);
  uint8_t* base = reinterpret_cast<uint8_t*>(aligned);
#ifdef MADV_HUGEPAGE
  madvise(base, capacity, MADV_HUGEPAGE);
#endif
  return base;
}

// Gives back the pages of a chunk's free tail: the last allocation's end may share a huge page
// with it (the first touch of a huge page makes all 2 MiB resident), so without this each chunk
// left behind would keep up to 2 MiB that nothing uses (the 1B shape: +29 MiB of RSS). The huge
// page is split; the allocations in it keep their contents.
void TrimTail(Chunk& c) {
  if (c.used < c.capacity) madvise(c.base + c.used, c.capacity - c.used, MADV_DONTNEED);
  c.used = c.capacity;
}

void Unlink(Arena& a, Chunk* c) {
  for (Chunk** p = &a.chunks; *p != nullptr; p = &(*p)->next) {
    if (*p == c) {
      *p = c->next;
      break;
    }
  }
  if (a.current == c) a.current = nullptr;
  munmap(c->base, c->capacity);
  --a.chunk_count;
  delete c;
}

}  // namespace

PackedMemory::PackedMemory(PackedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      chunk_(std::exchange(other.chunk_, nullptr)) {}

PackedMemory& PackedMemory::operator=(PackedMemory&& other) noexcept {
  if (this != &other) {
    Release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    chunk_ = std::exchange(other.chunk_, nullptr);
  }
  return *this;
}

uint8_t* PackedMemory::Allocate(size_t bytes) {
  Release();
  if (bytes == 0 || bytes > SIZE_MAX - kChunkBytes) return nullptr;
  const size_t size = RoundUp(bytes, kAlignment);
  Arena& a = TheArena();
  std::lock_guard<std::mutex> lock(a.mu);
  Chunk* c = a.current;
  if (c == nullptr || c->capacity - c->used < size) {
    // A request of a chunk or more gets a chunk of its own and leaves the current one's free
    // tail to the next requests; a smaller one starts a new current chunk (the previous one
    // stays mapped until its last allocation is released).
    const bool own = size >= kChunkBytes;
    const size_t capacity = RoundUp(own ? size : kChunkBytes, kHugePage);
    uint8_t* base = MapAligned(capacity);
    if (base == nullptr) return nullptr;
    c = new Chunk;
    c->base = base;
    c->capacity = capacity;
    c->next = a.chunks;
    a.chunks = c;
    ++a.chunk_count;
    if (!own) {
      if (a.current != nullptr) TrimTail(*a.current);
      a.current = c;
    }
  }
  data_ = c->base + c->used;
  size_ = size;
  chunk_ = c;
  c->used += size;
  ++c->live;
  a.live_bytes += size;
  return data_;
}

void PackedMemory::Release() {
  if (data_ == nullptr) return;
  Arena& a = TheArena();
  std::lock_guard<std::mutex> lock(a.mu);
  Chunk* c = static_cast<Chunk*>(chunk_);
  a.live_bytes -= size_;
  // A chunk is unmapped with its last allocation, the current one too: its pages were touched,
  // and a model unloaded gives all of them back.
  if (--c->live == 0) Unlink(a, c);
  data_ = nullptr;
  size_ = 0;
  chunk_ = nullptr;
}

PackedMemory::Stats PackedMemory::GetStats() {
  Arena& a = TheArena();
  std::lock_guard<std::mutex> lock(a.mu);
  return Stats{a.chunk_count, a.live_bytes};
}

}  // namespace kernels
}  // namespace edgeq
