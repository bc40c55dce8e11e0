#include "llm/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_format.h"

namespace edgeq {
namespace llm {

// --define=edgeq_grammar=off (llm/BUILD: EDGEQ_NO_GRAMMAR): SetGrammar refuses a grammar and
// Sample never reaches the matcher, so the library links none of grammar/matcher.cc.
#ifdef EDGEQ_NO_GRAMMAR
constexpr bool kGrammarInBuild = false;
#else
constexpr bool kGrammarInBuild = true;
#endif

std::string SamplerOptions::ToString() const {
  return absl::StrFormat(
      "temp %.2f, top_k %d, top_p %.3f, min_p %.3f, repeat %.3f (last %d), freq %.3f, presence "
      "%.3f, seed %u",
      temperature, top_k, top_p, min_p, repeat_penalty, penalty_last_n, frequency_penalty,
      presence_penalty, seed);
}

absl::StatusOr<Sampler> Sampler::Create(int vocab_size, const SamplerOptions& o) {
  auto bad = [](const char* name, double v, const char* want) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sampler option %s is %g; expected %s", name, v, want));
  };
  if (vocab_size <= 0) return bad("vocab_size", vocab_size, "> 0");
  if (!std::isfinite(o.temperature)) return bad("temperature", o.temperature, "a finite number");
  if (!(o.top_p > 0.0f && o.top_p <= 1.0f)) return bad("top_p", o.top_p, "a value in (0, 1]");
  if (!(o.min_p >= 0.0f && o.min_p <= 1.0f)) return bad("min_p", o.min_p, "a value in [0, 1]");
  if (!(o.repeat_penalty > 0.0f) || !std::isfinite(o.repeat_penalty)) {
    return bad("repeat_penalty", o.repeat_penalty, "a finite value > 0");
  }
  if (!std::isfinite(o.frequency_penalty)) {
    return bad("frequency_penalty", o.frequency_penalty, "a finite number");
  }
  if (!std::isfinite(o.presence_penalty)) {
    return bad("presence_penalty", o.presence_penalty, "a finite number");
  }
  if (o.penalty_last_n < -1) return bad("penalty_last_n", o.penalty_last_n, ">= -1");
  if (o.min_keep < 0) return bad("min_keep", o.min_keep, ">= 0");
  return Sampler(vocab_size, o);
}

Sampler::Sampler(int vocab_size, const SamplerOptions& options)
    : options_(options),
      seed_(options.seed == kRandomSeed ? std::random_device()() : options.seed),
      rng_(seed_),
      cur_(vocab_size) {}

void Sampler::RestartGrammar() {
  if constexpr (kGrammarInBuild) {
    if (matcher_) matcher_->Reset();
  }
}

void Sampler::Reset() {
  RestartGrammar();
  error_ = absl::OkStatus();
  prev_.clear();
  counts_.clear();
  rng_.seed(seed_);
}

void Sampler::Accept(int token) {
  const int last_n = options_.penalty_last_n;
  if (last_n == 0) return;
  ++counts_[token];
  if (last_n > 0 && prev_.size() >= static_cast<size_t>(last_n)) {
    const int old = prev_.front();
    prev_.pop_front();
    if (--counts_[old] == 0) counts_.erase(old);
  }
  prev_.push_back(token);
}

namespace {
constexpr char kStateTag[] = "edgeq-sampler-state 1";
}  // namespace

std::string Sampler::SaveState() const {
  std::ostringstream os;
  os << kStateTag << "\n" << rng_ << "\n" << prev_.size();
  for (int t : prev_) os << ' ' << t;
  os << "\n";
  return os.str();
}

absl::Status Sampler::LoadState(absl::string_view state) {
  std::istringstream is{std::string(state)};
  std::string tag;
  std::getline(is, tag);
  if (tag != kStateTag) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sampler state does not start with \"%s\"", kStateTag));
  }
  std::mt19937 rng;
  int64_t n = -1;
  is >> rng >> n;
  if (!is || n < 0 || n > static_cast<int64_t>(state.size())) {
    return absl::InvalidArgumentError(
        "sampler state: the random generator's state or the window's length is malformed");
  }
  std::vector<int> window(static_cast<size_t>(n));
  for (int& t : window) {
    is >> t;
    if (!is || t < 0 || t >= static_cast<int>(cur_.size())) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "sampler state: a penalties-window token is not an id in [0, %d)", cur_.size()));
    }
  }
  rng_ = rng;
  prev_.clear();
  counts_.clear();
  for (int t : window) Accept(t);
  RestartGrammar();
  error_ = absl::OkStatus();
  return absl::OkStatus();
}

absl::Status Sampler::SetGrammar(std::shared_ptr<const grammar::Grammar> grammar,
                                 std::shared_ptr<const GrammarVocab> vocab) {
  if (grammar == nullptr) {
    matcher_.reset();
    vocab_.reset();
    return absl::OkStatus();
  }
  if constexpr (!kGrammarInBuild) {
    return absl::FailedPreconditionError(
        "Sampler::SetGrammar: grammars are not in this build (--define=edgeq_grammar=off)");
  }
  if (vocab == nullptr || vocab->pieces.size() != cur_.size()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("grammar vocabulary has %d tokens; expected the sampler's %d",
                        vocab == nullptr ? 0 : vocab->pieces.size(), cur_.size()));
  }
  matcher_ = std::make_unique<grammar::Matcher>(std::move(grammar));
  vocab_ = std::move(vocab);
  return absl::OkStatus();
}

absl::Status Sampler::TakeError() {
  absl::Status s = std::move(error_);
  error_ = absl::OkStatus();
  return s;
}

bool Sampler::Allowed(int token) const {
  if constexpr (!kGrammarInBuild) return true;  // never reached: no matcher in this build
  if (token < 0 || static_cast<size_t>(token) >= vocab_->pieces.size()) return false;
  if (std::find(vocab_->eog_ids.begin(), vocab_->eog_ids.end(), token) != vocab_->eog_ids.end()) {
    return matcher_->IsAccepting();
  }
  return matcher_->CanAccept(vocab_->pieces[token]);
}

int Sampler::Sample(absl::Span<const float> logits) {
  if (!kGrammarInBuild || !matcher_) return SampleChain(logits);
  int token = SampleChain(logits);
  if (!Allowed(token)) {
    // Mask what the grammar refuses and sample again (the next draw of the same RNG).
    if (absl::Status s = matcher_->FilterTokens(vocab_->trie, &allowed_); !s.ok()) {
      error_ = s;
      return token;
    }
    const bool accepting = matcher_->IsAccepting();
    for (int id : vocab_->eog_ids) {
      if (id >= 0 && static_cast<size_t>(id) < allowed_.size()) allowed_[id] = accepting;
    }
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    const size_t n = std::min(logits.size(), allowed_.size());
    masked_.assign(n, kNegInf);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      if (allowed_[i]) {
        // NaN is never picked; an allowed token stays above the refused ones.
        masked_[i] = std::isnan(logits[i]) ? std::numeric_limits<float>::lowest() : logits[i];
        any = true;
      }
    }
    if (!any) {
      error_ = absl::FailedPreconditionError(
          "grammar: no token of the vocabulary can continue the output (and the grammar is not "
          "complete, or the vocabulary has no end-of-generation token)");
      return token;
    }
    token = SampleChain(masked_);
    if (!Allowed(token)) {
      // Only when every candidate left by the chain had zero probability: the best allowed one.
      token = static_cast<int>(std::max_element(masked_.begin(), masked_.end()) - masked_.begin());
    }
  }
  if (std::find(vocab_->eog_ids.begin(), vocab_->eog_ids.end(), token) == vocab_->eog_ids.end()) {
    if (absl::Status s = matcher_->AcceptBytes(vocab_->pieces[token]); !s.ok()) error_ = s;
  }
  return token;
}

namespace {

constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Candidates by descending logit.
constexpr auto ByLogit = [](const auto& a, const auto& b) { return a.logit > b.logit; };

// +inf becomes the largest finite float, NaN -inf: the softmax never computes inf - inf.
float Finite(float l) {
  if (std::isnan(l)) return kNegInf;
  return l > kMax ? kMax : l;
}

}  // namespace

int Sampler::SampleChain(absl::Span<const float> logits) {
  const size_t n = std::min(logits.size(), cur_.size());
  // Non-finite logits, deterministically: NaN is never picked (-inf), +inf is the largest
  // finite float (the highest wins; several tie as equal logits do).
  for (size_t i = 0; i < n; ++i) cur_[i] = {static_cast<int>(i), Finite(logits[i]), 0.0f};
  size_t size = n;
  bool sorted = false;
  ApplyPenalties(size);
  ApplyTopK(&size, &sorted);
  ApplyTopP(&size, &sorted);
  ApplyMinP(&size, &sorted);
  if (std::optional<int> token = ApplyTemperature(size)) return *token;
  return Draw(size, sorted);
}

// 1. Penalties.
void Sampler::ApplyPenalties(size_t size) {
  const SamplerOptions& o = options_;
  const bool penalties =
      o.penalty_last_n != 0 &&
      (o.repeat_penalty != 1.0f || o.frequency_penalty != 0.0f || o.presence_penalty != 0.0f);
  if (!penalties || counts_.empty()) return;
  for (size_t i = 0; i < size; ++i) {
    auto it = counts_.find(cur_[i].id);
    if (it == counts_.end()) continue;
    const int count = it->second;
    float& l = cur_[i].logit;
    l = l <= 0 ? l * o.repeat_penalty : l / o.repeat_penalty;
    l -= static_cast<float>(count) * o.frequency_penalty +
         static_cast<float>(count > 0) * o.presence_penalty;
    // A penalty may overflow (FLT_MAX / 0.1): +inf stays the largest finite float, so that
    // the softmax below never computes inf - inf.
    l = Finite(l);
  }
}

// 2. Top-k.
void Sampler::ApplyTopK(size_t* size, bool* sorted) {
  if (options_.top_k <= 0) return;
  const size_t k = std::min(static_cast<size_t>(options_.top_k), *size);
  std::partial_sort(cur_.begin(), cur_.begin() + k, cur_.begin() + *size, ByLogit);
  *size = k;
  *sorted = true;
}

// 3. Top-p (skipped when every candidate is -inf: there is no distribution to cut).
void Sampler::ApplyTopP(size_t* size_io, bool* sorted) {
  const size_t size = *size_io;
  const size_t min_keep = static_cast<size_t>(options_.min_keep);
  float top_p_max = size > 0 ? cur_[0].logit : kNegInf;
  if (!*sorted) {
    for (size_t i = 1; i < size; ++i) top_p_max = std::max(top_p_max, cur_[i].logit);
  }
  if (!(options_.top_p < 1.0f && size > 0 && top_p_max > kNegInf)) return;
  const float max_l = top_p_max;
  float sum = 0.0f;
  for (size_t i = 0; i < size; ++i) {
    cur_[i].p = std::exp(cur_[i].logit - max_l);
    sum += cur_[i].p;
  }
  for (size_t i = 0; i < size; ++i) cur_[i].p /= sum;
  if (!*sorted) std::sort(cur_.begin(), cur_.begin() + size, ByLogit);
  float cum = 0.0f;
  size_t last = size;
  for (size_t i = 0; i < size; ++i) {
    cum += cur_[i].p;
    if (cum >= options_.top_p && i + 1 >= min_keep) {
      last = i + 1;
      break;
    }
  }
  *size_io = last;
  *sorted = true;
}

// 4. Min-p.
void Sampler::ApplyMinP(size_t* size_io, bool* sorted) {
  size_t size = *size_io;
  const size_t min_keep = static_cast<size_t>(options_.min_keep);
  if (!(options_.min_p > 0.0f && size > 0)) return;
  bool applied = false;
  if (!*sorted) {
    float max_l = -std::numeric_limits<float>::max();
    for (size_t i = 0; i < size; ++i) max_l = std::max(max_l, cur_[i].logit);
    const float min_logit = max_l + std::log(options_.min_p);
    size_t kept = 0;
    for (size_t i = 0; i < size; ++i) {
      if (cur_[i].logit >= min_logit) ++kept;
    }
    if (kept > 0 && kept >= min_keep) {
      size_t w = 0;
      for (size_t i = 0; i < size; ++i) {
        if (cur_[i].logit >= min_logit) cur_[w++] = cur_[i];
      }
      size = w;
      applied = true;
    }
  }
  if (!applied) {
    if (!*sorted) {
      std::sort(cur_.begin(), cur_.begin() + size, ByLogit);
      *sorted = true;
    }
    const float min_logit = cur_[0].logit + std::log(options_.min_p);
    size_t i = 1;
    for (; i < size; ++i) {
      if (cur_[i].logit < min_logit && i >= min_keep) break;
    }
    size = i;
  }
  *size_io = size;
}

// 5. Temperature (<= 0: only the highest logit stays finite). A degenerate temperature is
// greedy too: one so small (1e-45) that a logit / t overflows, which would make the softmax
// inf - inf = NaN; so is a candidate list that is all -inf. Returns the token when that decides
// it (all -inf).
std::optional<int> Sampler::ApplyTemperature(size_t size) {
  const float temperature = options_.temperature;
  if (size == 0) return std::nullopt;
  bool greedy = temperature <= 0.0f;
  if (!greedy) {
    float max_l = kNegInf;
    for (size_t i = 0; i < size; ++i) {
      max_l = std::max(max_l, cur_[i].logit);
      if (std::isinf(cur_[i].logit / temperature) && !std::isinf(cur_[i].logit)) greedy = true;
    }
    greedy = greedy || !std::isfinite(max_l);
  }
  if (!greedy) {
    for (size_t i = 0; i < size; ++i) cur_[i].logit /= temperature;
    return std::nullopt;
  }
  size_t max_i = 0;
  float max_l = cur_[0].logit;
  for (size_t i = 1; i < size; ++i) {
    if (cur_[i].logit > max_l) {
      cur_[max_i].logit = kNegInf;
      max_i = i;
      max_l = cur_[i].logit;
    } else {
      cur_[i].logit = kNegInf;
    }
  }
  if (max_l != kNegInf) return std::nullopt;
  // All -inf: the lowest id (whatever order the filters left), with the draw a sampled step
  // takes.
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  (void)dist(rng_);
  int lowest = cur_[0].id;
  for (size_t i = 1; i < size; ++i) lowest = std::min(lowest, cur_[i].id);
  return lowest;
}

// 6. Dist.
int Sampler::Draw(size_t size, bool sorted) {
  if (size == 0) return 0;
  if (size == 1) return cur_[0].id;
  float max_l = cur_[0].logit;
  if (!sorted) {
    for (size_t i = 1; i < size; ++i) max_l = std::max(max_l, cur_[i].logit);
  }
  double sum_cum = 0.0;
  for (size_t i = 0; i < size; ++i) {
    cur_[i].p = std::exp(cur_[i].logit - max_l);
    sum_cum += cur_[i].p;
  }
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  const double target = sum_cum * dist(rng_);
  double run = 0.0;
  for (size_t i = 0; i < size; ++i) {
    run += cur_[i].p;
    if (run >= target && cur_[i].p > 0.0) return cur_[i].id;  // never a -inf candidate
  }
  return cur_[size - 1].id;
}

}  // namespace llm
}  // namespace edgeq
