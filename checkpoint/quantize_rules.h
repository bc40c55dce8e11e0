// Mixed precision for a whole checkpoint: which encoding each weight gets, by an ordered list of
// (glob pattern -> encoding) rules, and the quantization of a TensorDict with them.
//
//   EDGEQ_ASSIGN_OR_RETURN(std::vector<edgeq::checkpoint::QuantizeRule> rules,
//                          edgeq::checkpoint::ParseQuantizeRules(text, "rules.txt"));
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::TensorDict q,
//                          edgeq::checkpoint::QuantizeDict(f32_dict, rules));
//
// Rules text, one rule a line, first match wins, '#' starts a comment:
//     blk.*.ffn_down.weight -> q8_0
//     token_embd.weight     -> q6_k
//     *                     -> q4_0
// Encodings: any registered encoding (q4_0, q8_0, q4_k, q5_k, q6_k, bf16, or a user's), and f32
// (or none) to keep a weight as it is. Only matrices (rank >= 2) are quantized: norms and other
// vectors stay f32. A matrix whose row length k does not fit its encoding's block falls back to
// the next encoding that fits, q8_0 then bf16 then f32, and the decision says why. Weights that
// are already quantized (e.g. from a GGUF) are kept as they are.
#ifndef EDGEQ_CHECKPOINT_QUANTIZE_RULES_H_
#define EDGEQ_CHECKPOINT_QUANTIZE_RULES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"
#include "core/shape.h"

namespace edgeq {
namespace checkpoint {

struct QuantizeRule {
  std::string pattern;   // fnmatch(3) glob over the tensor name
  std::string encoding;  // a registered encoding's name, or "f32"
};

// One rule "*" -> `encoding` ("none" and "f32" keep f32). InvalidArgument naming the flag value
// and the registered encodings if it is unknown.
absl::StatusOr<std::vector<QuantizeRule>> DefaultQuantizeRules(absl::string_view encoding);

// InvalidArgument naming `source` and the line for bad syntax or an unknown encoding.
absl::StatusOr<std::vector<QuantizeRule>> ParseQuantizeRules(absl::string_view text,
                                                             absl::string_view source);
// NotFound naming the path if it cannot be read.
absl::StatusOr<std::vector<QuantizeRule>> LoadQuantizeRules(const std::string& path);

struct QuantizeDecision {
  std::string name;
  std::string requested;  // the first matching rule's encoding ("f32" if none matched)
  std::string chosen;     // after fallback; "kept" for a weight that was already quantized
  std::string note;       // why chosen != requested, e.g. "k = 172 is not a multiple of 32"
};

// The decision for one tensor of (logical) `shape` and dtype `dtype`.
QuantizeDecision DecideEncoding(const std::string& name, const Shape& shape, DType dtype,
                                bool already_quantized, const std::vector<QuantizeRule>& rules);

// Applies the rules to every tensor of `dict` (metadata copied as is). `decisions` (may be null)
// gets one entry per tensor in order; `progress(done, total, name)` (may be empty) is called
// after each tensor. Errors of the codecs (e.g. a NaN in a weight) name the tensor.
absl::StatusOr<TensorDict> QuantizeDict(
    const TensorDict& dict, const std::vector<QuantizeRule>& rules,
    std::vector<QuantizeDecision>* decisions = nullptr,
    const std::function<void(int, int, const std::string&)>& progress = {});

// The progress line of the command-line tools for QuantizeDict's `progress`: "\rquantizing
// [#####     ] done/total name" (a 30-column bar, the name cut or padded to 40 columns), ending
// with a newline once done == total.
std::string QuantizeProgressLine(int done, int total, const std::string& name);

// Writes QuantizeProgressLine to stderr (usable as QuantizeDict's `progress`) when stderr is a
// terminal; a log file or pipe gets nothing (the tools print their summary lines anyway).
void PrintQuantizeProgress(int done, int total, const std::string& name);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_QUANTIZE_RULES_H_
