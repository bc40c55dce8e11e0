#include "llm/session.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace llm {
namespace {
double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kMaxTokens:
      return "max tokens";
    case StopReason::kStopToken:
      return "stop token";
    case StopReason::kContextFull:
      return "context full";
    case StopReason::kCallback:
      return "stopped by callback";
  }
  return "?";
}

void Session::Reset() {
  tokens_.clear();
  pending_.clear();
  sampler_.Reset();
}

absl::Status Session::Rewind(int n) {
  if (n < 0 || n > n_past()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot rewind to %d tokens: the session holds %d", n, n_past()));
  }
  if (n == n_past()) return absl::OkStatus();
  if (n > 0 && !model_.recurrent_states().empty()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "cannot rewind to %d tokens: %s has recurrent layers, whose state holds no history "
        "(rewind to 0 and prefill again)",
        n, model_.config().architecture));
  }
  tokens_.resize(n);
  pending_.clear();
  return absl::OkStatus();
}

absl::StatusOr<GenerateResult> Session::Generate(absl::Span<const int> prompt,
                                                 const GenerateOptions& options,
                                                 const TokenCallback& on_token) {
  const int ctx = model_.context_length();
  const int left = ctx - n_past();
  if (static_cast<int64_t>(prompt.size()) > left) {  // no int narrowing of the size
    return absl::InvalidArgumentError(
        absl::StrFormat("the prompt is %d tokens long, but the context holds %d (%d already used)",
                        prompt.size(), ctx, n_past()));
  }
  if (prompt.empty() && pending_.empty()) {
    return absl::InvalidArgumentError(
        "nothing to generate from: give a prompt (the session holds no unsampled logits)");
  }
  GenerateResult r;
  r.prompt_tokens = static_cast<int>(prompt.size());
  const double start = Now();
  if (!prompt.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model_.Prefill(prompt, n_past()));
    pending_.assign(logits.begin(), logits.end());
    for (int t : prompt) {
      tokens_.push_back(t);
      sampler_.Accept(t);
    }
  }
  double decode_start = Now();
  r.prefill_seconds = decode_start - start;
  while (true) {
    if (options.max_tokens >= 0 && static_cast<int>(r.tokens.size()) >= options.max_tokens) {
      r.reason = StopReason::kMaxTokens;
      break;
    }
    const int token = sampler_.Sample(pending_);
    EDGEQ_RETURN_IF_ERROR(sampler_.TakeError());
    r.tokens.push_back(token);
    if (std::find(options.stop_tokens.begin(), options.stop_tokens.end(), token) !=
        options.stop_tokens.end()) {
      pending_.clear();
      r.reason = StopReason::kStopToken;
      break;
    }
    sampler_.Accept(token);
    if (on_token && !on_token(token)) {
      // The token is part of the sequence but not yet in the model: feed it now so that a later
      // Generate continues after it.
      if (n_past() < ctx) {
        EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model_.Forward(token, n_past()));
        pending_.assign(logits.begin(), logits.end());
        tokens_.push_back(token);
      } else {
        pending_.clear();
      }
      r.reason = StopReason::kCallback;
      break;
    }
    if (n_past() >= ctx) {
      pending_.clear();
      r.reason = StopReason::kContextFull;
      break;
    }
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model_.Forward(token, n_past()));
    pending_.assign(logits.begin(), logits.end());
    tokens_.push_back(token);
  }
  r.decode_seconds = Now() - decode_start;
  return r;
}

}  // namespace llm
}  // namespace edgeq
