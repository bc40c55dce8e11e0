#include "llm/perplexity.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace llm {

absl::StatusOr<PerplexityResult> Perplexity(Model& model, absl::Span<const int> tokens,
                                            const PerplexityOptions& options) {
  const int n_ctx = options.n_ctx;
  if (n_ctx < 4 || n_ctx > model.context_length()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("perplexity chunk of %d tokens: expected 4 to the model's context (%d)",
                        n_ctx, model.context_length()));
  }
  int64_t n_chunks = static_cast<int64_t>(tokens.size()) / n_ctx;
  if (options.max_chunks >= 0) n_chunks = std::min<int64_t>(n_chunks, options.max_chunks);
  if (n_chunks < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%d tokens do not hold one chunk of %d to score", tokens.size(), n_ctx));
  }
  const int first = n_ctx / 2;
  PerplexityResult r;
  double nll = 0.0, nll2 = 0.0;
  std::vector<int> chunk(n_ctx);
  for (int64_t c = 0; c < n_chunks; ++c) {
    const int* start = tokens.data() + c * n_ctx;
    std::copy(start, start + n_ctx, chunk.begin());
    if (options.bos >= 0) chunk[0] = options.bos;
    EDGEQ_RETURN_IF_ERROR(model.PrefillAll(
        chunk, 0,
        [&](int j, absl::Span<const float> logits) -> absl::Status {
          if (j + 1 >= n_ctx) return absl::OkStatus();
          // NaN or Inf weights (or an overflow inside the model) must not turn into a number.
          for (size_t i = 0; i < logits.size(); ++i) {
            if (!std::isfinite(logits[i])) {
              return absl::InvalidArgumentError(absl::StrFormat(
                  "perplexity: logit %d (of %d) at position %d of chunk %d is %g; the model "
                  "computes non-finite values (check its weights: edgeq inspect --verify --values)",
                  i, logits.size(), j, c, logits[i]));
            }
          }
          float max_logit = logits[0];
          for (float v : logits) max_logit = std::max(max_logit, v);
          double sum = 0.0;
          for (float v : logits) sum += std::exp(v - max_logit);
          const double v = -(logits[start[j + 1]] - max_logit - std::log(sum));
          nll += v;
          nll2 += v * v;
          ++r.scored_tokens;
          return absl::OkStatus();
        },
        first));
    r.running.push_back(std::exp(nll / r.scored_tokens));
    if (options.on_chunk) options.on_chunk(static_cast<int>(c), r.running.back());
  }
  const double mean = nll / r.scored_tokens;
  const double var = nll2 / r.scored_tokens - mean * mean;
  r.ppl = std::exp(mean);
  if (!std::isfinite(r.ppl)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "perplexity: the mean negative log-likelihood %g over %d tokens gives no finite perplexity",
        mean, r.scored_tokens));
  }
  r.error = var > 0 && r.scored_tokens > 1 ? std::sqrt(var / (r.scored_tokens - 1)) * r.ppl : 0.0;
  return r;
}

}  // namespace llm
}  // namespace edgeq
