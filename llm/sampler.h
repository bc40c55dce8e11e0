// Next-token sampling as llama.cpp's common sampler chain does it (common/sampling.cpp, default
// order), so that the same logits, options and seed pick the same token:
//
//   1. penalties   over the last `penalty_last_n` accepted tokens (prompt tokens included):
//                  a logit l of a token seen c > 0 times becomes (l <= 0 ? l * repeat : l / repeat)
//                  - c * frequency - presence
//   2. top-k       keep the k highest logits (sorted)               (k <= 0: off)
//   3. top-p       keep the smallest prefix of the sorted candidates whose probability sum
//                  reaches p                                         (p >= 1: off)
//   4. min-p       keep the tokens with probability >= min_p * the highest  (min_p <= 0: off)
//   5. temperature logits / t; t <= 0 keeps only the highest (greedy), and so does a t so small
//                  that a logit / t overflows (1e-45): the sampler never produces NaN
//   6. dist        softmax, then one draw of std::mt19937(seed) with uniform_real_distribution
//                  <double>(0, 1) over the cumulative probabilities
//
// Non-finite logits are handled deterministically: NaN is never picked, +inf counts as the
// largest float, and a list left all -inf picks its lowest id.
//
// Defaults (llama.cpp's): temperature 0.8, top-k 40, top-p 0.95, min-p 0.05, repeat penalty 1
// (off), frequency and presence penalties 0 (off), last 64 tokens, seed kRandomSeed (from the
// clock). `edgeq run --temp 0` is greedy: the highest logit after penalties.
#ifndef EDGEQ_LLM_SAMPLER_H_
#define EDGEQ_LLM_SAMPLER_H_

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace edgeq {
namespace llm {

// What the generation loop (Session) needs from a sampler; llm::Sampler is one, a caller may
// supply another (e.g. llama2.c's run.c sampler in examples/tinystories).
class TokenSampler {
 public:
  virtual ~TokenSampler() = default;
  // Picks a token from the logits [vocab] of the last position.
  virtual int Sample(absl::Span<const float> logits) = 0;
  // Records a token of the sequence (prompt or generated), for penalties.
  virtual void Accept(int token) { (void)token; }
  // Forgets the accepted tokens and restarts the random sequence from the seed.
  virtual void Reset() {}
};

inline constexpr uint32_t kRandomSeed = 0xFFFFFFFFu;  // LLAMA_DEFAULT_SEED: seed from the clock

struct SamplerOptions {
  float temperature = 0.8f;        // <= 0: greedy
  int top_k = 40;                  // <= 0: off
  float top_p = 0.95f;             // in (0, 1]; 1: off
  float min_p = 0.05f;             // in [0, 1]; 0: off
  float repeat_penalty = 1.0f;     // > 0; 1: off
  float frequency_penalty = 0.0f;  // 0: off
  float presence_penalty = 0.0f;   // 0: off
  int penalty_last_n = 64;         // tokens remembered for penalties; 0: off, -1: all
  uint32_t seed = kRandomSeed;
  int min_keep = 0;  // top-p and min-p keep at least this many (0: 1)

  // "temp 0.80, top_k 40, top_p 0.950, min_p 0.050, repeat 1.000 (last 64), freq 0.000, presence
  // 0.000, seed 42"
  std::string ToString() const;
};

class Sampler : public TokenSampler {
 public:
  // InvalidArgument naming the option for a vocabulary <= 0, top-p outside (0, 1], min-p outside
  // [0, 1], a repeat penalty <= 0, a non-finite value or penalty_last_n < -1.
  static absl::StatusOr<Sampler> Create(int vocab_size, const SamplerOptions& options);

  int Sample(absl::Span<const float> logits) override;
  void Accept(int token) override;
  void Reset() override;

  const SamplerOptions& options() const { return options_; }
  // The seed in use (the clock's if options.seed was kRandomSeed).
  uint32_t seed() const { return seed_; }

 private:
  struct Candidate {
    int id;
    float logit;
    float p;
  };
  Sampler(int vocab_size, const SamplerOptions& options);

  SamplerOptions options_;
  uint32_t seed_;
  std::mt19937 rng_;
  std::vector<Candidate> cur_;
  std::deque<int> prev_;
  absl::flat_hash_map<int, int> counts_;
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_SAMPLER_H_
