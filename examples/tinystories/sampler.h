// Next-token sampling as llama2.c's run.c does it: greedy (temperature 0), plain multinomial
// sampling, or top-p (nucleus) sampling, driven by a seeded xorshift generator, so a given seed
// picks the same tokens as run.c given the same logits.
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_SAMPLER_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_SAMPLER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace edgeq {
namespace tinystories {

struct SamplerOptions {
  float temperature = 1.0f;  // 0 = greedy (argmax); must be >= 0.
  float topp = 0.9f;         // in [0, 1]; <= 0 or >= 1 samples from the whole distribution.
  uint64_t seed = 1;         // must be > 0 (run.c uses time(NULL) when 0).
};

class Sampler {
 public:
  // InvalidArgument for a negative temperature, top-p outside [0, 1], seed 0 or vocab_size <= 0.
  static absl::StatusOr<Sampler> Create(int vocab_size, const SamplerOptions& options);

  // Picks a token from `logits` (vocab_size values). Modifies `logits` in place (scaled by the
  // temperature and turned into probabilities) unless greedy.
  int Sample(absl::Span<float> logits);

  // run.c's generator: xorshift64* -> 32 bits, and a float in [0, 1).
  uint32_t NextU32();
  float NextF32();

 private:
  Sampler(int vocab_size, const SamplerOptions& options)
      : options_(options), state_(options.seed), candidates_(vocab_size) {}

  struct Candidate {
    float prob;
    int index;
  };
  int SampleTopP(absl::Span<const float> probs, float coin);

  SamplerOptions options_;
  uint64_t state_;
  std::vector<Candidate> candidates_;
};

// In-place softmax in run.c's order (max, exp(x - max), divide by the sum).
void Softmax(absl::Span<float> x);

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_SAMPLER_H_
