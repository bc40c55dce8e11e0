// The generation loop over a Model: prompt prefill, sampling, a token callback, stop tokens, the
// context limit, and reset.
//
//   edgeq::llm::Session session(*model, sampler);
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::llm::GenerateResult r,
//       session.Generate(prompt_ids, {.max_tokens = 128, .stop_tokens = {eos}},
//                        [](int token) { print(token); return true; }));
//
// Generate appends to what the session holds: a second call continues the same sequence (its
// prompt is prefilled after the tokens already there). Prompt tokens are given to the sampler's
// Accept (penalties see them, as llama.cpp's main does), then each generated token is. A stop
// token ends the call without being passed to the callback or to the model; it is recorded in
// GenerateResult::tokens and the stop reason.
#ifndef EDGEQ_LLM_SESSION_H_
#define EDGEQ_LLM_SESSION_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "llm/model.h"
#include "llm/sampler.h"

namespace edgeq {
namespace llm {

struct GenerateOptions {
  int max_tokens = -1;  // tokens to generate; < 0: until a stop token or the context ends
  std::vector<int> stop_tokens = {};  // e.g. the vocabulary's EOS/EOT
};

enum class StopReason { kMaxTokens, kStopToken, kContextFull, kCallback };
const char* StopReasonName(StopReason reason);  // "max tokens", "stop token", ...

struct GenerateResult {
  std::vector<int> tokens;  // generated tokens (a final stop token included)
  StopReason reason = StopReason::kMaxTokens;
  int prompt_tokens = 0;
  double prefill_seconds = 0;  // prompt through the model, first logits included
  double decode_seconds = 0;   // the rest
};

// Called with each generated token (not a stop token) as soon as it is sampled; return false to
// stop (reason kCallback).
using TokenCallback = std::function<bool(int token)>;

class Session {
 public:
  // Both must outlive the session.
  Session(Model& model, TokenSampler& sampler) : model_(model), sampler_(sampler) {}

  // Prefills `prompt` (may be empty if the session already holds tokens) and samples until
  // max_tokens, a stop token, the callback or the end of the context. InvalidArgument if the
  // prompt does not fit what is left of the context (naming both lengths) or if there is nothing
  // to continue from; the model's errors (e.g. a token outside the vocabulary) as they are.
  absl::StatusOr<GenerateResult> Generate(absl::Span<const int> prompt,
                                          const GenerateOptions& options = {},
                                          const TokenCallback& on_token = {});
  // Forgets the sequence (the KV cache is overwritten from position 0) and resets the sampler.
  void Reset();
  // Keeps the first `n` tokens and forgets the rest (the KV cache is overwritten from position
  // n); the next Generate needs a prompt. The sampler keeps what it accepted (penalties may
  // still count dropped tokens). InvalidArgument if n is not in [0, n_past()];
  // FailedPrecondition if 0 < n < n_past() on a model with recurrent layers (lfm2).
  absl::Status Rewind(int n);

  // Tokens in the context so far (prompts and generated tokens that were fed to the model).
  const std::vector<int>& tokens() const { return tokens_; }
  int n_past() const { return static_cast<int>(tokens_.size()); }

 private:
  Model& model_;
  TokenSampler& sampler_;
  std::vector<int> tokens_;
  // The logits after the last token in tokens_, when it was not yet sampled from; else empty.
  std::vector<float> pending_;
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_SESSION_H_
