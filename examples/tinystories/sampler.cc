#include "examples/tinystories/sampler.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace edgeq {
namespace tinystories {

void Softmax(absl::Span<float> x) {
  if (x.empty()) return;
  float max_val = x[0];
  for (size_t i = 1; i < x.size(); ++i) max_val = std::max(max_val, x[i]);
  float sum = 0.0f;
  for (float& v : x) {
    v = std::exp(v - max_val);
    sum += v;
  }
  for (float& v : x) v /= sum;
}

absl::StatusOr<Sampler> Sampler::Create(int vocab_size, const SamplerOptions& options) {
  if (vocab_size <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sampler: vocab_size must be positive, got %d", vocab_size));
  }
  if (!(options.temperature >= 0.0f) || std::isinf(options.temperature)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "sampler: temperature must be a finite value >= 0, got %g", options.temperature));
  }
  if (!(options.topp >= 0.0f && options.topp <= 1.0f)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("sampler: top-p must be in [0, 1], got %g", options.topp));
  }
  if (options.seed == 0) {
    return absl::InvalidArgumentError("sampler: seed must be > 0");
  }
  return Sampler(vocab_size, options);
}

uint32_t Sampler::NextU32() {
  state_ ^= state_ >> 12;
  state_ ^= state_ << 25;
  state_ ^= state_ >> 27;
  return static_cast<uint32_t>((state_ * 0x2545F4914F6CDD1Dull) >> 32);
}

float Sampler::NextF32() { return (NextU32() >> 8) / 16777216.0f; }

int Sampler::Sample(absl::Span<float> logits) {
  const int n = static_cast<int>(logits.size());
  if (options_.temperature == 0.0f) {
    int best = 0;
    for (int i = 1; i < n; ++i) {
      if (logits[i] > logits[best]) best = i;
    }
    return best;
  }
  for (float& v : logits) v /= options_.temperature;
  Softmax(logits);
  const float coin = NextF32();
  if (options_.topp <= 0.0f || options_.topp >= 1.0f) {
    float cdf = 0.0f;
    for (int i = 0; i < n; ++i) {
      cdf += logits[i];
      if (coin < cdf) return i;
    }
    return n - 1;
  }
  return SampleTopP(logits, coin);
}

int Sampler::SampleTopP(absl::Span<const float> probs, float coin) {
  const int n = static_cast<int>(probs.size());
  if (n == 1) return 0;
  // Values below the cutoff cannot be part of the nucleus; drop them before sorting.
  const float cutoff = (1.0f - options_.topp) / (n - 1);
  if (static_cast<int>(candidates_.size()) < n) candidates_.resize(n);
  int n0 = 0;
  for (int i = 0; i < n; ++i) {
    if (probs[i] >= cutoff) candidates_[n0++] = {probs[i], i};
  }
  if (n0 == 0) {  // Only possible for tiny top-p on a flat distribution: take the most likely.
    int best = 0;
    for (int i = 1; i < n; ++i) {
      if (probs[i] > probs[best]) best = i;
    }
    return best;
  }
  // Descending by probability; ties keep index order (glibc's qsort is a stable merge sort here).
  std::stable_sort(candidates_.begin(), candidates_.begin() + n0,
                   [](const Candidate& a, const Candidate& b) { return a.prob > b.prob; });
  float cumulative = 0.0f;
  int last = n0 - 1;
  for (int i = 0; i < n0; ++i) {
    cumulative += candidates_[i].prob;
    if (cumulative > options_.topp) {
      last = i;
      break;
    }
  }
  const float r = coin * cumulative;
  float cdf = 0.0f;
  for (int i = 0; i <= last; ++i) {
    cdf += candidates_[i].prob;
    if (r < cdf) return candidates_[i].index;
  }
  return candidates_[last].index;
}

}  // namespace tinystories
}  // namespace edgeq
