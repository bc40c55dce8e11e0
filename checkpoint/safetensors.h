// safetensors reader and writer (huggingface.co/docs/safetensors).
//
// Layout: u64 header length N, N bytes of JSON {"name": {"dtype", "shape", "data_offsets":
// [begin, end]}, "__metadata__": {string: string}}, then the data. Read: F32, F16, I8, U8, I32,
// I64 as plain tensors; BF16 as a uint8 tensor tagged "bf16" (like GGUF's BF16); other dtypes
// are Unimplemented, naming the tensor. __metadata__ entries become string metadata. Tensors
// whose data is not aligned to their element size are copied; all others are views.
// Write: plain tensors and "bf16"-tagged ones; string metadata only (other metadata kinds are
// written as their DebugString()); other encodings are Unimplemented.
#ifndef EDGEQ_CHECKPOINT_SAFETENSORS_H_
#define EDGEQ_CHECKPOINT_SAFETENSORS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {

absl::StatusOr<TensorDict> ReadSafetensors(const std::string& path);
absl::StatusOr<TensorDict> ReadSafetensorsFromBuffer(absl::Span<const uint8_t> data,
                                                     std::shared_ptr<const void> owner);

absl::Status WriteSafetensors(const TensorDict& dict, const std::string& path);
absl::StatusOr<std::string> WriteSafetensorsToString(const TensorDict& dict);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_SAFETENSORS_H_
