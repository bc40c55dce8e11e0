// The logic behind `edgeq quantize` (kept out of the command file so tests can call it): read any
// checkpoint, quantize its weights per a rule set (checkpoint/quantize_rules.h, the same rules as
// the TinyStories pipeline) and write the result atomically, never over the input.
#ifndef EDGEQ_TOOLS_QUANTIZE_MODEL_H_
#define EDGEQ_TOOLS_QUANTIZE_MODEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checkpoint/quantize_rules.h"

namespace edgeq {
namespace tools {

struct QuantizeModelOptions {
  // The default rule's encoding ("*" -> encoding); "none" or "f32" keeps f32. Ignored when
  // rules_path is set.
  std::string encoding = "q4_0";
  std::string rules_path;  // a rules file (PATTERN -> ENCODING per line), or empty
  // Called after each tensor: (done, total, name). May be empty.
  std::function<void(int, int, const std::string&)> progress;
};

struct QuantizeModelResult {
  std::vector<checkpoint::QuantizeDecision> decisions;  // one per tensor, in file order
  uint64_t input_bytes = 0;                             // tensor data of the input
  uint64_t output_bytes = 0;                            // tensor data of the output
  uint64_t output_file_bytes = 0;
};

// Reads `in` (.max, .gguf, llama2.c .bin, .safetensors), quantizes it and writes `out` in the
// format of its extension (atomically: a temporary file renamed over `out`). InvalidArgument
// if `out` is `in` (same file, whatever the path), if the encoding or a rule is unknown, or if
// the output format cannot hold a chosen encoding (naming the tensor); NotFound for a missing
// input or rules file.
absl::StatusOr<QuantizeModelResult> QuantizeModel(const std::string& in, const std::string& out,
                                                  const QuantizeModelOptions& options);

// A table of the decisions (name, requested, chosen, note) and the sizes, for printing.
std::string QuantizeModelReport(const QuantizeModelResult& result);

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_QUANTIZE_MODEL_H_
