// Which encoding each weight gets: an ordered list of (glob pattern -> encoding) rules.
//
// Rules file syntax, one rule a line, first match wins, '#' starts a comment:
//     layers.*.feed_forward.w2.weight -> q8_0
//     tok_embeddings.weight           -> q8_0
//     *                               -> q4_0
// Encodings: q4_0, q8_0, bf16, f32 (f32 = keep). 1-D weights (norms) always stay f32. A weight
// whose row length K does not fit its encoding's block falls back to the next encoding that fits,
// in the order q4_0 -> q8_0 -> bf16 -> f32, and the decision says so.
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_RULES_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_RULES_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "examples/tinystories/llama.h"

namespace edgeq {
namespace tinystories {

struct Rule {
  std::string pattern;   // fnmatch glob over the weight name
  std::string encoding;  // q4_0 | q8_0 | bf16 | f32
};

// The default: every matrix (linear weights and the token embedding) gets `encoding`.
// `encoding` "none" or "f32" keeps everything f32. InvalidArgument for an unknown encoding.
absl::StatusOr<std::vector<Rule>> DefaultRules(absl::string_view encoding);

// Parses rules text; InvalidArgument naming the line for bad syntax or an unknown encoding.
absl::StatusOr<std::vector<Rule>> ParseRules(absl::string_view text, absl::string_view source);
absl::StatusOr<std::vector<Rule>> LoadRules(const std::string& path);

struct EncodingDecision {
  std::string name;
  std::string requested;  // from the first matching rule ("f32" if none matched)
  std::string chosen;     // after fallback
  std::string note;  // non-empty when chosen != requested, e.g. "K = 172 is not a multiple of 32"
};

EncodingDecision Decide(const std::string& name, const Shape& shape,
                        const std::vector<Rule>& rules);

// Quantizes every weight per the rules (f32 input). `progress(done, total)` is called after each
// weight. Returns the new weights; `decisions` (may be null) gets one entry per weight.
absl::StatusOr<LlamaWeights> QuantizeWeights(const LlamaWeights& f32,
                                             const std::vector<Rule>& rules,
                                             std::vector<EncodingDecision>* decisions,
                                             const std::function<void(int, int)>& progress = {});

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_RULES_H_
