// GGUF (llama.cpp / GGML) reader and writer.
//
// Reads GGUF v2 and v3 (v1, with 32-bit counts, is refused with a message saying so). Tensor
// types F32, F16 and I8/I32/I64 become plain tensors; BF16, Q4_0, Q8_0, Q4_K, Q5_K and Q6_K
// become uint8 tensors tagged with the edgeq encoding of the same name ("bf16", "q4_0", ...)
// and their logical shape; any other type is Unimplemented, naming the type and the tensor.
// Shapes are edgeq order (outermost first): GGUF's dims are reversed (GGUF dims[0] is the
// contiguous row length). Every metadata key/value is kept, with its GGUF type as the value's
// width, so that WriteGguf(ReadGguf(x)) reproduces the key/values and tensors bit for bit.
//
// Tensors are read-only views into the memory-mapped file (or the caller's buffer).
#ifndef EDGEQ_CHECKPOINT_GGUF_H_
#define EDGEQ_CHECKPOINT_GGUF_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {

// Metadata key holding the data alignment (u32, default 32).
inline constexpr char kGgufAlignmentKey[] = "general.alignment";

absl::StatusOr<TensorDict> ReadGguf(const std::string& path);
// Parses an in-memory GGUF image; tensors view `data` and keep `owner` (may be null) alive.
absl::StatusOr<TensorDict> ReadGgufFromBuffer(absl::Span<const uint8_t> data,
                                              std::shared_ptr<const void> owner);

// Writes GGUF v3 (atomically, like checkpoint::Save). Metadata is written in order with each
// value's width as its GGUF type; "general.alignment" (if present, a power of two) sets the
// data alignment. Tensors of dtype u8 without a GGUF-representable encoding tag are
// Unimplemented, naming the tensor.
absl::Status WriteGguf(const TensorDict& dict, const std::string& path);
absl::StatusOr<std::string> WriteGgufToString(const TensorDict& dict);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_GGUF_H_
