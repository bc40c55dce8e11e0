// Shared helpers of the checkpoint fuzz targets: touch every byte of every tensor (so ASan
// sees any out-of-range view) and compare dicts after a write/read round trip.
#ifndef EDGEQ_TESTS_FUZZ_FUZZ_UTIL_H_
#define EDGEQ_TESTS_FUZZ_FUZZ_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "xxhash.h"

namespace edgeq {
namespace fuzz {

// Reads every tensor byte and every metadata value.
inline uint64_t TouchAll(const checkpoint::TensorDict& d) {
  uint64_t h = 0;
  for (const std::string& k : d.Keys()) {
    const Tensor& t = **d.Get(k);
    h ^= XXH3_64bits(t.raw_data(), t.size_bytes());
    h += static_cast<uint64_t>(t.logical_shape().num_elements());
  }
  for (const std::string& k : d.MetadataKeys()) h += (*d.GetMetadata(k))->DebugString().size();
  return h;
}

// Aborts (a finding for libFuzzer) unless a and b hold the same tensors.
inline void CheckSameTensors(const checkpoint::TensorDict& a, const checkpoint::TensorDict& b,
                             const char* what) {
  bool same = a.Keys() == b.Keys();
  for (size_t i = 0; same && i < a.Keys().size(); ++i) {
    const Tensor& x = **a.Get(a.Keys()[i]);
    const Tensor& y = **b.Get(a.Keys()[i]);
    same = x.dtype() == y.dtype() && x.shape() == y.shape() && x.encoding() == y.encoding() &&
           x.logical_shape() == y.logical_shape() && x.size_bytes() == y.size_bytes() &&
           (x.size_bytes() == 0 || std::memcmp(x.raw_data(), y.raw_data(), x.size_bytes()) == 0);
  }
  if (!same) {
    std::fprintf(stderr, "%s: round trip changed the tensors\n", what);
    std::abort();
  }
}

// A 64-byte aligned copy of the input (the mmap'd files the readers normally see are
// page-aligned).
struct AlignedCopy {
  AlignedCopy(const uint8_t* data, size_t size) {
    const size_t n = (size + 63) / 64 * 64 + 64;
    uint8_t* p = static_cast<uint8_t*>(std::aligned_alloc(64, n));
    if (size > 0) std::memcpy(p, data, size);
    owner.reset(p, [](const void* q) { std::free(const_cast<void*>(q)); });
    span = absl::MakeConstSpan(p, size);
  }
  std::shared_ptr<const void> owner;
  absl::Span<const uint8_t> span;
};

}  // namespace fuzz
}  // namespace edgeq

#endif  // EDGEQ_TESTS_FUZZ_FUZZ_UTIL_H_
