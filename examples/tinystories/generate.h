// The generation loop of llama2.c's run.c: feed the prompt's tokens (in blocks, through the
// model's prefill graph), then sample until `steps` positions (prompt included) or until the
// model produces BOS. Tokens and printed text are run.c's, position for position.
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_GENERATE_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_GENERATE_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "examples/tinystories/sampler.h"
#include "llm/model.h"
#include "tokenizer/llama2c.h"

namespace edgeq {
namespace tinystories {

struct GenerateResult {
  std::vector<int> prompt_tokens;
  // The first prompt token, then the token produced by every step (forced prompt tokens, then
  // sampled ones; a final BOS if the model produced one), as the golden .ids files record them.
  std::vector<int> tokens;
  std::string text;         // what run.c prints: decoded pieces, filtered, plus a final newline
  int prompt_steps = 0;     // prompt tokens run through the model before sampling (prefill)
  int generated_steps = 0;  // steps that sampled
  double prefill_seconds = 0;
  double decode_seconds = 0;
};

// `steps` <= 0 or > the context (model.context_length()) means the context (as run.c's seq_len).
// InvalidArgument if the encoded prompt does not fit the context. `on_piece` (may be empty)
// receives each printable piece as it is produced.
absl::StatusOr<GenerateResult> Generate(
    llm::Model& model, const tokenizer::Llama2cTokenizer& tokenizer, Sampler& sampler,
    absl::string_view prompt, int steps,
    const std::function<void(const std::string&)>& on_piece = {});

// Teacher-forced perplexity of `text` (encoded with BOS): exp of the mean negative log-likelihood
// of each token given the ones before it. The text must fit the context.
absl::StatusOr<double> Perplexity(llm::Model& model, const tokenizer::Llama2cTokenizer& tokenizer,
                                  absl::string_view text);

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_GENERATE_H_
