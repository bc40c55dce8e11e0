// One entry point for every checkpoint format edgeq reads and writes.
//
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::OpenedCheckpoint c,
//                          edgeq::checkpoint::OpenCheckpoint("stories260K.gguf"));
//   // c.dict: tensors (views into c.file) and metadata; c.format: kGguf.
//   EDGEQ_RETURN_IF_ERROR(edgeq::checkpoint::WriteCheckpoint(c.dict, "out.max"));
#ifndef EDGEQ_CHECKPOINT_FORMATS_H_
#define EDGEQ_CHECKPOINT_FORMATS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/max_format.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {

enum class Format { kMax, kGguf, kLlama2c, kSafetensors };

// "max", "gguf", "llama2c", "safetensors".
absl::string_view FormatName(Format format);

// By content first ("EDGEQMAX", "GGUF" magic), then by extension (.max, .gguf, .safetensors,
// .bin = llama2.c model). InvalidArgument naming the path and the known formats otherwise.
absl::StatusOr<Format> DetectFormat(absl::string_view path, absl::Span<const uint8_t> head);
// By extension only (for output paths).
absl::StatusOr<Format> FormatFromExtension(absl::string_view path);

struct OpenedCheckpoint {
  Format format;
  TensorDict dict;
  // The whole file, memory-mapped; tensors are views into it (file_bytes()[offset]).
  std::shared_ptr<const void> file;
  absl::Span<const uint8_t> file_bytes;
};

// Memory-maps `path`, detects its format and reads it. `options` applies to .max files
// (verify_data); for the other formats there is no checksum to verify.
absl::StatusOr<OpenedCheckpoint> OpenCheckpoint(const std::string& path,
                                                const LoadOptions& options = {});

// Writes `dict` in the format named by `path`'s extension (.max, .gguf, .safetensors, .bin),
// atomically. Errors name a tensor the format cannot hold.
absl::Status WriteCheckpoint(const TensorDict& dict, const std::string& path);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_FORMATS_H_
