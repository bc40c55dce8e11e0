// Perplexity of a token sequence as llama.cpp's llama-perplexity computes it: the tokens are cut
// into chunks of n_ctx (the last partial chunk is dropped), the first token of each chunk is
// replaced by BOS when the vocabulary adds one, and each chunk's second half is scored: the token
// at position j + 1 from the logits at j, for j from n_ctx / 2 to n_ctx - 2, with llama.cpp's
// log-softmax (float max, double sum of exp).
#ifndef EDGEQ_LLM_PERPLEXITY_H_
#define EDGEQ_LLM_PERPLEXITY_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "llm/model.h"

namespace edgeq {
namespace llm {

struct PerplexityOptions {
  int n_ctx = 512;      // chunk length in tokens, at least 4 and at most the model's context
  int max_chunks = -1;  // score at most this many chunks (-1: every whole chunk)
  int bos = -1;         // >= 0: put this token first in each chunk
  // Called after each chunk with its index and the running perplexity (may be empty).
  std::function<void(int chunk, double running_ppl)> on_chunk;
};

struct PerplexityResult {
  double ppl = 0.0;
  double error = 0.0;           // llama.cpp's "+/-": standard error of the mean NLL, times ppl
  std::vector<double> running;  // the running perplexity after each chunk
  int64_t scored_tokens = 0;
};

// InvalidArgument naming the numbers if n_ctx is below 4 or above the model's context, or the
// tokens do not hold one chunk, or a scored logit is NaN or infinite (naming the logit, the
// position and the chunk: NaN/Inf weights never give a perplexity); errors of the model as they
// are.
absl::StatusOr<PerplexityResult> Perplexity(Model& model, absl::Span<const int> tokens,
                                            const PerplexityOptions& options);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_PERPLEXITY_H_
