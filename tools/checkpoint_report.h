// The logic behind `edgeq inspect` and `edgeq convert` (kept out of the command files so
// tests can call it).
#ifndef EDGEQ_TOOLS_CHECKPOINT_REPORT_H_
#define EDGEQ_TOOLS_CHECKPOINT_REPORT_H_

#include <string>

#include "absl/status/statusor.h"

namespace edgeq {
namespace tools {

// A table of every tensor (name, dtype/encoding, logical shape, bytes, file offset), totals
// and the metadata of the checkpoint at `path` (.max, .gguf, .bin, .safetensors). With
// `verify`, .max data checksums are recomputed (DataLoss on a mismatch). With `check_values`,
// every tensor is decoded (quantized ones row by row) and NaN or Inf values are an
// InvalidArgument naming the tensors (the first three), their NaN and Inf counts and the first
// index; else the report ends with "values: OK (...)".
absl::StatusOr<std::string> InspectCheckpoint(const std::string& path, bool verify,
                                              bool check_values = false);

// Reads `in` and writes it in the format of `out`'s extension. Refuses to overwrite `in`.
// `in` may be a Hugging Face checkpoint directory (config.json + safetensors + tokenizer.json;
// convert/hf_import.h). With `rules_path` (a quantize rules file, as `edgeq quantize --rules`), the
// tensors are quantized by those rules on the way (through a temporary f32 GGUF beside `out`).
// Returns a one-line summary.
absl::StatusOr<std::string> ConvertCheckpoint(const std::string& in, const std::string& out,
                                              const std::string& rules_path = "");

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_CHECKPOINT_REPORT_H_
