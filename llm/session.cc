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
    case StopReason::kCancelled:
      return "cancelled";
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

absl::Status Session::PrefillPrompt(absl::Span<const int> prompt) {
  const int vocab = model_.config().vocab_size;
  for (int t : prompt) {  // all checked before the first block runs
    if (t < 0 || t >= vocab) {
      return absl::OutOfRangeError(
          absl::StrFormat("token %d is outside the vocabulary [0, %d)", t, vocab));
    }
  }
  // One model block at a time (the model plans a longer span as the same full blocks first), so
  // that the abort check runs between blocks.
  const size_t step = static_cast<size_t>(std::max(1, model_.ubatch_size()));
  for (size_t i = 0; i < prompt.size(); i += step) {
    if (should_abort_ && should_abort_()) {
      return absl::CancelledError(
          absl::StrFormat("cancelled after %d of %d prompt tokens", i, prompt.size()));
    }
    const absl::Span<const int> block = prompt.subspan(i, step);
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model_.Prefill(block, n_past()));
    pending_.assign(logits.begin(), logits.end());
    for (int t : block) {
      tokens_.push_back(t);
      sampler_.Accept(t);
    }
  }
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
  EDGEQ_RETURN_IF_ERROR(PrefillPrompt(prompt));
  double decode_start = Now();
  r.prefill_seconds = decode_start - start;
  while (true) {
    if (should_abort_ && should_abort_()) {
      r.reason = StopReason::kCancelled;
      break;
    }
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
