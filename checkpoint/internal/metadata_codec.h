// GGUF's typed key/value encoding, used by both the GGUF and the .max formats (internal).
//
// A value is: u32 type, then for a scalar its little-endian bytes (bool: one byte 0/1;
// string: u64 length + bytes), for an array (type 9): u32 element type, u64 count, elements.
#ifndef EDGEQ_CHECKPOINT_INTERNAL_METADATA_CODEC_H_
#define EDGEQ_CHECKPOINT_INTERNAL_METADATA_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {
namespace internal {

inline constexpr uint32_t kArrayType = 9;

// Appends the type and value.
void EncodeValue(const MetadataValue& value, std::string* out);
// Appends a u64-length-prefixed string.
void EncodeString(absl::string_view s, std::string* out);

// Reads one value for `key` (named in errors). Every count and length is checked against the
// bytes left before anything is allocated; arrays of arrays are refused (Unimplemented).
absl::StatusOr<MetadataValue> DecodeValue(ByteReader* reader, absl::string_view key);
// Reads a u64-length-prefixed string.
absl::StatusOr<std::string> DecodeString(ByteReader* reader, absl::string_view what);

}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_INTERNAL_METADATA_CODEC_H_
