// `edgeq convert IN.gguf OUT.max --repack=NAME`: a .max whose matmul weights are stored in the
// kernels' repacked layouts for ISA NAME (docs/stored_repack.md), loaded as a mapping.
#ifndef EDGEQ_TOOLS_CMD_CONVERT_REPACK_H_
#define EDGEQ_TOOLS_CMD_CONVERT_REPACK_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace tools {

// `in` with every quantized 2-D matmul weight (blk.*.weight, output.weight) whose kernels for
// `isa_name` (an ISA name of runtime/kernels/isa.h, or "native": this CPU's best) read a repacked
// layout stored in that layout (checkpoint/stored_layouts.h tags); a tied token embedding keeps
// its GGML rows (Gather) and gains an output.weight in the layout (the classifier). Everything
// else as it is; `copy_tied` false leaves the tied classifier on the embedding's rows (repacked
// at load, as from the GGUF). Errors: one line naming the ISA or tensor.
absl::StatusOr<checkpoint::TensorDict> RepackCheckpoint(const checkpoint::TensorDict& in,
                                                        absl::string_view isa_name,
                                                        bool copy_tied = true);

// Reads `in` (any format convert reads but a Hugging Face directory), writes `out` (.max only)
// with RepackCheckpoint; returns the summary line.
absl::StatusOr<std::string> ConvertRepacked(const std::string& in, const std::string& out,
                                            absl::string_view isa_name, bool copy_tied = true);

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_CMD_CONVERT_REPACK_H_
