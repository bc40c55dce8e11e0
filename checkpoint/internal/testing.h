// Helpers for the checkpoint tests (testonly).
#ifndef EDGEQ_CHECKPOINT_INTERNAL_TESTING_H_
#define EDGEQ_CHECKPOINT_INTERNAL_TESTING_H_

#include <memory>
#include <string>

#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {
namespace testing {

std::string TempDir();
std::string ReadFileOrDie(const std::string& path);  // test fails (empty result) if unreadable
void WriteFileOrDie(const std::string& path, const std::string& bytes);

// A heap copy of `bytes` (64-byte aligned) and the span over it; the span stays valid while
// the returned owner lives.
struct OwnedBuffer {
  std::shared_ptr<const void> owner;
  absl::Span<const uint8_t> span;
};
OwnedBuffer CopyToBuffer(const std::string& bytes);

// gtest expectations: same keys, dtypes, shapes, encodings and bytes; same metadata.
void ExpectSameTensors(const TensorDict& a, const TensorDict& b);
void ExpectSameMetadata(const TensorDict& a, const TensorDict& b);

}  // namespace testing
}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_INTERNAL_TESTING_H_
