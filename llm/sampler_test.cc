#include "llm/sampler.h"

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "grammar/gbnf.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace llm {
namespace {

SamplerOptions Plain(uint32_t seed = 42) {
  SamplerOptions o;
  o.temperature = 1.0f;
  o.top_k = 0;
  o.top_p = 1.0f;
  o.min_p = 0.0f;
  o.seed = seed;
  return o;
}

TEST(SamplerTest, DefaultsAreLlamaCpps) {
  const SamplerOptions o;
  EXPECT_EQ(o.temperature, 0.8f);
  EXPECT_EQ(o.top_k, 40);
  EXPECT_EQ(o.top_p, 0.95f);
  EXPECT_EQ(o.min_p, 0.05f);
  EXPECT_EQ(o.repeat_penalty, 1.0f);
  EXPECT_EQ(o.penalty_last_n, 64);
  EXPECT_EQ(o.seed, kRandomSeed);
  EXPECT_EQ(o.ToString(),
            "temp 0.80, top_k 40, top_p 0.950, min_p 0.050, repeat 1.000 (last 64), freq 0.000, "
            "presence 0.000, seed 4294967295");
}

// std::mt19937(42) with uniform_real_distribution<double> draws 0.796543, 0.183435, 0.779691,
// 0.596850, 0.445833: over 4 equal logits the cumulative sums 1..4 of 4 x draw pick 3, 0, 3, 2, 1.
TEST(SamplerTest, DistDrawsMt19937LikeLlamaCpp) {
  absl::StatusOr<Sampler> s = Sampler::Create(4, Plain(42));
  ASSERT_TRUE(s.ok()) << s.status();
  const std::vector<float> flat = {0.5f, 0.5f, 0.5f, 0.5f};
  std::vector<int> got;
  for (int i = 0; i < 5; ++i) got.push_back(s->Sample(flat));
  EXPECT_EQ(got, std::vector<int>({3, 0, 3, 2, 1}));
  s->Reset();  // the same sequence again
  EXPECT_EQ(s->Sample(flat), 3);
  EXPECT_EQ(s->Sample(flat), 0);
  EXPECT_EQ(s->seed(), 42u);
}

TEST(SamplerTest, GreedyAndTopK) {
  SamplerOptions o = Plain();
  o.temperature = 0.0f;
  absl::StatusOr<Sampler> s = Sampler::Create(5, o);
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s->Sample({1.0f, 3.0f, 2.9f, -1.0f, 0.0f}), 1);
  o = Plain();
  o.top_k = 1;
  s = Sampler::Create(5, o);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s->Sample({1.0f, 3.0f, 2.9f, -1.0f, 0.0f}), 1);
  // top-k 2 keeps tokens 1 and 2 only.
  o.top_k = 2;
  s = Sampler::Create(5, o);
  int counts[5] = {};
  for (int i = 0; i < 2000; ++i) ++counts[s->Sample({1.0f, 3.0f, 2.9f, -1.0f, 0.0f})];
  EXPECT_EQ(counts[0] + counts[3] + counts[4], 0);
  EXPECT_GT(counts[1], 900);  // e^0.1 / (1 + e^0.1) = 0.525 of them
  EXPECT_GT(counts[2], 800);
}

// p = 0.5, 0.3, 0.2 (logits log p): top-p 0.7 keeps the first two (0.5 + 0.3 >= 0.7), which are
// then drawn 0.625 / 0.375; min-p 0.5 keeps p >= 0.25 (the same two); temperature 0.5 squares
// the ratios (0.5^2 : 0.3^2 : 0.2^2 = 0.658 : 0.237 : 0.105).
TEST(SamplerTest, TopPMinPAndTemperatureFrequencies) {
  const std::vector<float> logits = {std::log(0.5f), std::log(0.3f), std::log(0.2f)};
  auto frequencies = [&](const SamplerOptions& o) {
    absl::StatusOr<Sampler> s = Sampler::Create(3, o);
    EXPECT_TRUE(s.ok()) << s.status();
    std::vector<double> f(3, 0.0);
    const int n = 20000;
    for (int i = 0; i < n; ++i) f[s->Sample(logits)] += 1.0 / n;
    return f;
  };
  SamplerOptions o = Plain(7);
  std::vector<double> f = frequencies(o);
  EXPECT_NEAR(f[0], 0.5, 0.015);
  EXPECT_NEAR(f[1], 0.3, 0.015);
  EXPECT_NEAR(f[2], 0.2, 0.015);
  o.top_p = 0.7f;
  f = frequencies(o);
  EXPECT_NEAR(f[0], 0.625, 0.015);
  EXPECT_EQ(f[2], 0.0);
  o = Plain(7);
  o.min_p = 0.5f;
  f = frequencies(o);
  EXPECT_NEAR(f[0], 0.625, 0.015);
  EXPECT_EQ(f[2], 0.0);
  o = Plain(7);
  o.temperature = 0.5f;
  f = frequencies(o);
  EXPECT_NEAR(f[0], 0.25 / 0.38, 0.015);
  EXPECT_NEAR(f[2], 0.04 / 0.38, 0.015);
}

// llama.cpp's penalties: l <= 0 ? l * r : l / r, then - count * freq - presence, over the last n
// accepted tokens.
TEST(SamplerTest, Penalties) {
  SamplerOptions o = Plain();
  o.temperature = 0.0f;
  o.repeat_penalty = 2.0f;
  absl::StatusOr<Sampler> s = Sampler::Create(3, o);
  ASSERT_TRUE(s.ok());
  const std::vector<float> logits = {2.0f, -1.0f, 1.5f};
  EXPECT_EQ(s->Sample(logits), 0);
  s->Accept(0);  // 2 -> 1 < 1.5
  EXPECT_EQ(s->Sample(logits), 2);
  s->Accept(2);  // 1.5 -> 0.75 < 1
  EXPECT_EQ(s->Sample(logits), 0);
  s->Reset();
  EXPECT_EQ(s->Sample(logits), 0);

  o.repeat_penalty = 1.0f;
  o.presence_penalty = 0.6f;  // 2 - 0.6 = 1.4 < 1.5
  s = Sampler::Create(3, o);
  s->Accept(0);
  EXPECT_EQ(s->Sample(logits), 2);
  o.presence_penalty = 0.0f;
  o.frequency_penalty = 0.3f;  // once: 1.7 >= 1.5; twice: 1.4 < 1.5
  s = Sampler::Create(3, o);
  s->Accept(0);
  EXPECT_EQ(s->Sample(logits), 0);
  s->Accept(0);
  EXPECT_EQ(s->Sample(logits), 2);
  // Only the last 2 tokens count: after 0, 1, 1 token 0 is forgotten.
  o.penalty_last_n = 2;
  s = Sampler::Create(3, o);
  s->Accept(0);
  s->Accept(0);
  EXPECT_EQ(s->Sample(logits), 2);
  s->Accept(1);
  s->Accept(1);
  EXPECT_EQ(s->Sample(logits), 0);
}

TEST(SamplerTest, BadOptionsAreNamed) {
  SamplerOptions o;
  o.top_p = 0.0f;
  absl::Status st = Sampler::Create(10, o).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "sampler option top_p is 0; expected a value in (0, 1]");
  o = SamplerOptions();
  o.min_p = 1.5f;
  EXPECT_NE(Sampler::Create(10, o).status().message().find("min_p is 1.5"), std::string::npos);
  o = SamplerOptions();
  o.repeat_penalty = 0.0f;
  EXPECT_FALSE(Sampler::Create(10, o).ok());
  o = SamplerOptions();
  o.temperature = NAN;
  EXPECT_FALSE(Sampler::Create(10, o).ok());
  EXPECT_FALSE(Sampler::Create(0, SamplerOptions()).ok());
}

// Issue 27 F12: --temp 1e-45 --top-k 0 --top-p 1 --min-p 0 made logits / t overflow to inf, the
// softmax NaN, and the draw fall through to the last candidate. A degenerate temperature is
// greedy: the highest logit, whatever the seed.
TEST(SamplerTest, DegenerateTemperatureIsGreedy) {
  const std::vector<float> logits = {1.0f, 3.0f, 2.9f, -1.0f, 0.5f};
  for (float temp : {1e-45f, 1e-38f, 1e-30f}) {
    for (uint32_t seed = 0; seed < 20; ++seed) {
      SamplerOptions o = Plain(seed);
      o.temperature = temp;
      absl::StatusOr<Sampler> s = Sampler::Create(5, o);
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_EQ(s->Sample(logits), 1) << "temp " << temp << " seed " << seed;
    }
  }
  // Logits near the float range overflow even at an ordinary temperature.
  SamplerOptions o = Plain(3);
  o.temperature = 0.5f;
  absl::StatusOr<Sampler> s = Sampler::Create(3, o);
  ASSERT_TRUE(s.ok());
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s->Sample({-3e38f, 3e38f, 2.5e38f}), 1);
}

// Non-finite logits: NaN is never picked, +inf wins, all -inf or all NaN picks the first
// candidate (the lowest id); the same in every filter combination.
TEST(SamplerTest, NonFiniteLogitsAreDeterministic) {
  const float nan = std::nanf(""), inf = INFINITY;
  for (int variant = 0; variant < 4; ++variant) {
    SamplerOptions o = Plain(7);
    if (variant == 1) {  // the defaults: top-k 40, top-p 0.95, min-p 0.05
      o = SamplerOptions();
      o.seed = 7;
    }
    if (variant == 2) o.top_p = 0.5f;
    if (variant == 3) o.min_p = 0.1f;
    absl::StatusOr<Sampler> s = Sampler::Create(4, o);
    ASSERT_TRUE(s.ok());
    for (int i = 0; i < 20; ++i) {
      const int a = s->Sample({nan, 0.0f, nan, 0.0f});
      EXPECT_TRUE(a == 1 || a == 3) << "variant " << variant << " picked " << a;
      EXPECT_EQ(s->Sample({0.0f, inf, 1.0f, nan}), 1) << "variant " << variant;
      EXPECT_EQ(s->Sample({nan, nan, nan, nan}), 0) << "variant " << variant;
      EXPECT_EQ(s->Sample({-inf, -inf, -inf, -inf}), 0) << "variant " << variant;
      EXPECT_EQ(s->Sample({-inf, -inf, 2.0f, -inf}), 2) << "variant " << variant;
    }
  }
}

// Found by tests/fuzz/cli_args_fuzzer: a repeat penalty below 1 divides a logit near FLT_MAX
// into +inf (FLT_MAX / 0.1), and the softmax computed inf - inf = NaN; the draw fell through to
// the last candidate. Penalized logits stay finite.
TEST(SamplerTest, PenaltyOverflowIsNotNaN) {
  SamplerOptions o = Plain(42);
  o.repeat_penalty = 0.1f;
  o.presence_penalty = 0.5f;
  absl::StatusOr<Sampler> s = Sampler::Create(3, o);
  ASSERT_TRUE(s.ok());
  s->Accept(0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s->Sample({3e38f, 1.0f, 2.0f}), 0);
  o.frequency_penalty = -3e38f;  // subtracting it overflows too
  o.repeat_penalty = 1.0f;
  s = Sampler::Create(3, o);
  ASSERT_TRUE(s.ok());
  s->Accept(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s->Sample({1.0f, 3e38f, 2.0f}), 1);
}

// Constrained sampling. Token 0 is end-of-generation (no bytes); "\xc3" and "\xa9" are the
// two halves of "é".
std::shared_ptr<const GrammarVocab> TinyVocab() {
  return std::make_shared<const GrammarVocab>(
      std::vector<std::string>{"", "a", "b", "ab", "{", "}", "\xc3", "\xa9", "x", ""},
      std::vector<int>{0});
}

std::shared_ptr<const grammar::Grammar> Grammar(const char* text) {
  absl::StatusOr<std::shared_ptr<const grammar::Grammar>> g = grammar::ParseGbnf(text);
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

// Greedy constrained output is the argmax of the masked logits, computed here independently
// from the matcher's CanAccept/IsAccepting on a copy of the grammar state, over random logits.
TEST(SamplerGrammarTest, GreedyIsMaskedArgmax) {
  std::shared_ptr<const GrammarVocab> vocab = TinyVocab();
  auto g = Grammar("root ::= \"{\" ([ab] | \"é\")* \"}\"");
  SamplerOptions o = Plain(3);
  o.temperature = 0.0f;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (int run = 0; run < 50; ++run) {
    absl::StatusOr<Sampler> s = Sampler::Create(10, o);
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->SetGrammar(g, vocab).ok());
    grammar::Matcher check(g);
    std::string text;
    for (int step = 0; step < 40; ++step) {
      std::vector<float> logits(10);
      for (float& l : logits) l = u(rng);
      int want = -1;
      for (int t = 0; t < 10; ++t) {
        const bool ok = t == 0 ? check.IsAccepting() : check.CanAccept(vocab->pieces[t]);
        if (ok && (want < 0 || logits[t] > logits[want])) want = t;
      }
      ASSERT_GE(want, 0);
      const int got = s->Sample(logits);
      ASSERT_TRUE(s->TakeError().ok());
      ASSERT_EQ(got, want) << "run " << run << " step " << step << " after '" << text << "'";
      if (got == 0) break;
      ASSERT_TRUE(check.AcceptBytes(vocab->pieces[got]).ok());
      text += vocab->pieces[got];
    }
    EXPECT_TRUE(check.IsAccepting() || text.size() > 0);
  }
}

// With temperature alone, "sample, then re-sample over the masked logits if refused" draws from
// the masked distribution: allowed tokens keep their relative odds, refused ones never come.
TEST(SamplerGrammarTest, SampledDistributionIsMasked) {
  auto vocab = std::make_shared<const GrammarVocab>(std::vector<std::string>{"", "a", "b", "c"},
                                                    std::vector<int>{0});
  auto g = Grammar("root ::= [ab]*");
  absl::StatusOr<Sampler> s = Sampler::Create(4, Plain(7));
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->SetGrammar(g, vocab).ok());
  const std::vector<float> logits = {-INFINITY, 0.0f, std::log(3.0f), std::log(6.0f)};
  int counts[4] = {0, 0, 0, 0};
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++counts[s->Sample(logits)];
  EXPECT_TRUE(s->TakeError().ok());
  EXPECT_EQ(counts[0], 0);
  EXPECT_EQ(counts[3], 0);  // "c" refused, though the most likely
  // P(a) = 1/4, P(b) = 3/4 over the allowed tokens.
  EXPECT_NEAR(counts[1] / static_cast<double>(n), 0.25, 0.02);
  EXPECT_NEAR(counts[2] / static_cast<double>(n), 0.75, 0.02);
}

// Once the grammar is complete only end-of-generation is allowed; an error when nothing is.
TEST(SamplerGrammarTest, EndsAtEogAndReportsADeadEnd) {
  auto g = Grammar("root ::= \"ab\"");
  SamplerOptions o = Plain(1);
  o.temperature = 0.0f;
  absl::StatusOr<Sampler> s = Sampler::Create(10, o);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->SetGrammar(g, TinyVocab()).ok());
  const std::vector<float> logits = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  EXPECT_EQ(s->Sample(logits), 3);  // "ab": the best allowed ("x", 8, is refused)
  EXPECT_TRUE(s->matcher().IsAccepting());
  EXPECT_EQ(s->Sample(logits), 0);
  EXPECT_TRUE(s->TakeError().ok());

  auto no_eog = std::make_shared<const GrammarVocab>(
      std::vector<std::string>{"", "a", "b", "ab", "{", "}", "\xc3", "\xa9", "x", ""},
      std::vector<int>{});
  ASSERT_TRUE(s->SetGrammar(g, no_eog).ok());
  EXPECT_EQ(s->Sample(logits), 3);
  s->Sample(logits);
  absl::Status err = s->TakeError();
  EXPECT_EQ(err.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(err.message().find("no token of the vocabulary can continue"), std::string::npos);
  EXPECT_TRUE(s->TakeError().ok());  // taken

  EXPECT_EQ(s->SetGrammar(g, std::make_shared<const GrammarVocab>(std::vector<std::string>{"a"},
                                                                  std::vector<int>{}))
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// A UTF-8 character split over two tokens: the first half is allowed only where the character
// is, and the second completes it.
TEST(SamplerGrammarTest, SplitUtf8Character) {
  auto g = Grammar("root ::= \"é\"");
  SamplerOptions o = Plain(1);
  o.temperature = 0.0f;
  absl::StatusOr<Sampler> s = Sampler::Create(10, o);
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->SetGrammar(g, TinyVocab()).ok());
  EXPECT_EQ(s->Sample({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 6);
  EXPECT_EQ(s->Sample({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 7);
  EXPECT_EQ(s->Sample({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 0);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
