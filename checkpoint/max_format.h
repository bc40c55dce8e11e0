// edgeq's own checkpoint format (".max"): see checkpoint/FORMAT.md for the byte layout.
//
//   EDGEQ_RETURN_IF_ERROR(edgeq::checkpoint::Save(dict, "model.max"));
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::TensorDict loaded,
//                          edgeq::checkpoint::Load("model.max"));
//
// Load memory-maps the file: every tensor is a read-only view into the mapping (no copy), and
// the mapping lives as long as any of those tensors. The header, tensor table and metadata are
// covered by a checksum that is always verified; each tensor's data has its own checksum,
// verified when LoadOptions::verify_data is set or by Verify().
#ifndef EDGEQ_CHECKPOINT_MAX_FORMAT_H_
#define EDGEQ_CHECKPOINT_MAX_FORMAT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {

// The format version this build writes, and the newest it reads.
inline constexpr uint32_t kMaxFormatVersion = 1;
// The first 8 bytes of every .max file.
inline constexpr char kMaxMagic[8] = {'E', 'D', 'G', 'E', 'Q', 'M', 'A', 'X'};
// File offset alignment of every tensor's data.
inline constexpr uint64_t kMaxDataAlignment = 64;

struct LoadOptions {
  // Recompute every tensor's XXH3-64 checksum (reads all data; DataLoss naming the tensor on a
  // mismatch). The header/table/metadata checksum is always verified.
  bool verify_data = false;
};

// Writes `dict` atomically: a temporary file in the same directory, fsync, rename. If the
// process dies before the rename, the old file at `path` is untouched.
absl::Status Save(const TensorDict& dict, const std::string& path);

// The bytes Save would write (for tests and in-memory use).
absl::StatusOr<std::string> SaveToString(const TensorDict& dict);

// Save and SaveToString refuse (InvalidArgument, like the readers) a quantized tensor whose bytes
// do not match its encoding and logical shape (CheckQuantizedTensor): no reader would load it.

namespace internal {
// For tests and fuzz seeds only: SaveToString without the quantized-tensor check, to craft the
// files the readers must refuse.
absl::StatusOr<std::string> SaveToStringUnchecked(const TensorDict& dict);
}  // namespace internal

// Memory-maps and parses `path`. Errors: InvalidArgument (not a .max file, corrupt table,
// truncated), DataLoss (a checksum mismatch), FailedPrecondition (a newer format version).
absl::StatusOr<TensorDict> Load(const std::string& path, const LoadOptions& options = {});

// Parses an in-memory .max image. Tensors view `data`; `owner` (may be null) is kept alive by
// them. `data` should be 64-byte aligned for the tensors to be.
absl::StatusOr<TensorDict> LoadFromBuffer(absl::Span<const uint8_t> data,
                                          std::shared_ptr<const void> owner,
                                          const LoadOptions& options = {});

// Loads `path` with verify_data = true and discards the result.
absl::Status Verify(const std::string& path);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_MAX_FORMAT_H_
