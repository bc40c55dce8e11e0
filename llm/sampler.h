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
//
// Constrained output (SetGrammar): as llama.cpp's common_sampler_sample (grammar_first false),
// a step first samples without the grammar; if the grammar can take the token's bytes it is the
// pick. Otherwise the logits of every token the grammar refuses are set to -inf (an
// end-of-generation token is allowed only when the grammar is complete, a token with no bytes
// never) and the chain above runs again over them, with the next draw of the same RNG. Greedy,
// this is exactly the argmax of the masked logits. With temperature alone (no top-k/top-p/min-p)
// the pick is distributed exactly as a draw from the masked distribution (P(t) = p(t) + (1 - A)
// p(t) / A = p(t) / A, A the allowed mass); with truncation it is llama.cpp's behaviour. The
// picked token's bytes then advance the grammar.
#ifndef EDGEQ_LLM_SAMPLER_H_
#define EDGEQ_LLM_SAMPLER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "grammar/gbnf.h"
#include "grammar/matcher.h"

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
  // An error met by the last Sample (e.g. a grammar that no token can continue), cleared by the
  // call; the token Sample returned with it is not to be used.
  virtual absl::Status TakeError() { return absl::OkStatus(); }
  // The state that decides the next samples, as bytes (llm/state_file.h); "" if it has none.
  virtual std::string SaveState() const { return std::string(); }
  // Restores what SaveState gave; InvalidArgument naming what is wrong if `state` is not one.
  virtual absl::Status LoadState(absl::string_view state) {
    return state.empty() ? absl::OkStatus()
                         : absl::InvalidArgumentError("sampler state given to a stateless sampler");
  }
};

// A vocabulary as a grammar sees it, built once per vocabulary and shared by samplers: each
// token's bytes (tokenizer::Tokenizer::TokenBytes; empty for control tokens, which the grammar
// never allows) and the end-of-generation ids, allowed only when the grammar is complete.
struct GrammarVocab {
  GrammarVocab(std::vector<std::string> token_pieces, std::vector<int> eog)
      : pieces(std::move(token_pieces)), trie(pieces), eog_ids(std::move(eog)) {}
  std::vector<std::string> pieces;
  grammar::TokenTrie trie;
  std::vector<int> eog_ids;
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

  // Constrains the following samples to `grammar` (from its start) over `vocab` (see the file
  // comment); a null grammar removes the constraint. InvalidArgument if the vocabulary's size is
  // not the sampler's. Reset restarts the grammar too.
  absl::Status SetGrammar(std::shared_ptr<const grammar::Grammar> grammar,
                          std::shared_ptr<const GrammarVocab> vocab);
  bool has_grammar() const { return matcher_ != nullptr; }
  // Back to the start of the grammar (e.g. for the next chat reply); penalties and the random
  // sequence go on.
  void RestartGrammar();
  // The grammar's state (for tests: IsAccepting after generation); requires has_grammar().
  const grammar::Matcher& matcher() const { return *matcher_; }
  absl::Status TakeError() override;
  // The random generator's state and the penalties window (the accepted tokens it remembers);
  // not the grammar's position (LoadState restarts the grammar) nor the options.
  std::string SaveState() const override;
  absl::Status LoadState(absl::string_view state) override;

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
  int SampleChain(absl::Span<const float> logits);
  // The chain's steps on cur_[0, size): llama.cpp's order.
  void ApplyPenalties(size_t size);
  void ApplyTopK(size_t* size, bool* sorted);
  void ApplyTopP(size_t* size, bool* sorted);
  void ApplyMinP(size_t* size, bool* sorted);
  std::optional<int> ApplyTemperature(size_t size);
  int Draw(size_t size, bool sorted);
  bool Allowed(int token) const;

  // Behind a pointer, not in an optional, so that a build without grammars
  // (--define=edgeq_grammar=off) links no matcher code for moving or copying samplers.
  std::unique_ptr<grammar::Matcher> matcher_;
  std::shared_ptr<const GrammarVocab> vocab_;
  std::vector<bool> allowed_;
  std::vector<float> masked_;
  absl::Status error_;

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
