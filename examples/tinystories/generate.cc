#include "examples/tinystories/generate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tinystories {
namespace {
double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

absl::StatusOr<GenerateResult> Generate(llm::Model& model,
                                        const tokenizer::Llama2cTokenizer& tokenizer,
                                        Sampler& sampler, absl::string_view prompt, int steps,
                                        const std::function<void(const std::string&)>& on_piece) {
  const llm::ModelConfig& c = model.config();
  const int seq_len = model.context_length();
  if (tokenizer.vocab_size() != c.vocab_size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tokenizer has %d pieces but the model's vocabulary is %d (mismatched tokenizer)",
        tokenizer.vocab_size(), c.vocab_size));
  }
  if (steps <= 0 || steps > seq_len) steps = seq_len;
  GenerateResult r;
  r.prompt_tokens = tokenizer.Encode(prompt, /*bos=*/true, /*eos=*/false);
  const int n_prompt = static_cast<int>(r.prompt_tokens.size());
  if (n_prompt > seq_len) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the prompt is %d tokens long, but the model's context holds %d", n_prompt, seq_len));
  }
  // run.c runs position pos on token[pos] and then takes the next prompt token or samples; the
  // logits of the prompt's positions but the last are never used, so the prompt (up to `steps`
  // positions) goes through Prefill at once.
  const int n_prefill = std::min(n_prompt, steps);
  const double start = Now();
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits,
                         model.Prefill(absl::MakeConstSpan(r.prompt_tokens).first(n_prefill), 0));
  const double prefill_end = Now();
  r.prompt_steps = n_prefill;
  std::vector<float> probs(static_cast<size_t>(c.vocab_size));
  int token = r.prompt_tokens[0];
  r.tokens.push_back(token);
  for (int pos = 0; pos < steps; ++pos) {
    int next;
    if (pos < n_prompt - 1) {
      next = r.prompt_tokens[pos + 1];
    } else {
      if (pos >= n_prefill) {
        EDGEQ_ASSIGN_OR_RETURN(logits, model.Forward(token, pos));
      }
      std::copy(logits.begin(), logits.end(), probs.begin());
      next = sampler.Sample(absl::MakeSpan(probs));
      ++r.generated_steps;
    }
    r.tokens.push_back(next);
    if (next == tokenizer::kLlama2cBosId) break;
    const std::string piece = tokenizer.DecodeForPrint(token, next);
    r.text += piece;
    if (on_piece && !piece.empty()) on_piece(piece);
    token = next;
  }
  r.text += "\n";
  r.prefill_seconds = prefill_end - start;
  r.decode_seconds = Now() - prefill_end;
  return r;
}

absl::StatusOr<double> Perplexity(llm::Model& model, const tokenizer::Llama2cTokenizer& tokenizer,
                                  absl::string_view text) {
  const std::vector<int> tokens = tokenizer.Encode(text, /*bos=*/true, /*eos=*/false);
  const int n = static_cast<int>(tokens.size());
  if (n < 2 || n > model.context_length()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("perplexity text is %d tokens; need 2..%d", n, model.context_length()));
  }
  double nll = 0.0;
  for (int pos = 0; pos + 1 < n; ++pos) {
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model.Forward(tokens[pos], pos));
    double max_logit = logits[0];
    for (float v : logits) max_logit = std::max(max_logit, static_cast<double>(v));
    double sum = 0.0;
    for (float v : logits) sum += std::exp(static_cast<double>(v) - max_logit);
    nll += -(logits[tokens[pos + 1]] - max_logit - std::log(sum));
  }
  return std::exp(nll / (n - 1));
}

}  // namespace tinystories
}  // namespace edgeq
