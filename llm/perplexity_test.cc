#include "llm/perplexity.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::unique_ptr<Model> SmallModel() {
  RandomModelSpec s = *RandomModelPreset("stories15m");
  s.dim = 32, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 48, s.vocab = 50;
  s.context = 32, s.seed = 5;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(*d);
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

// The small model with every value of `tensor` ("" = of every tensor) set to `value`.
std::unique_ptr<Model> ModelWith(const std::string& tensor, float value) {
  RandomModelSpec s = *RandomModelPreset("stories15m");
  s.dim = 32, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 48, s.vocab = 50;
  s.context = 32, s.seed = 5;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
  EXPECT_TRUE(d.ok()) << d.status();
  for (const std::string& name : d->Keys()) {
    if (!tensor.empty() && name != tensor) continue;
    absl::StatusOr<Tensor> t = Tensor::Full((**d->Get(name)).shape(), value);
    EXPECT_TRUE(t.ok() && d->Set(name, *std::move(t)).ok()) << name;
  }
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(*d);
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

std::vector<int> Tokens(int n) {
  std::vector<int> t(n);
  for (int i = 0; i < n; ++i) t[i] = (i * 7 + 3) % 50;
  return t;
}

// The same perplexity from the decode path, one token at a time: chunk c of n_ctx tokens with
// BOS first, tokens n_ctx/2+1 .. n_ctx-1 scored from the logits before them.
double DecodePathPerplexity(Model& model, const std::vector<int>& tokens, int n_ctx, int chunks,
                            int bos) {
  double nll = 0;
  int count = 0;
  for (int c = 0; c < chunks; ++c) {
    std::vector<int> chunk(tokens.begin() + c * n_ctx, tokens.begin() + (c + 1) * n_ctx);
    chunk[0] = bos;
    for (int j = 0; j + 1 < n_ctx; ++j) {
      absl::StatusOr<absl::Span<const float>> logits = model.Prefill({chunk[j]}, j);
      EXPECT_TRUE(logits.ok()) << logits.status();
      if (j < n_ctx / 2) continue;
      const float mx = *std::max_element(logits->begin(), logits->end());
      double sum = 0;
      for (float v : *logits) sum += std::exp(v - mx);
      nll += -(static_cast<double>((*logits)[chunk[j + 1]]) - mx - std::log(sum));
      ++count;
    }
  }
  return std::exp(nll / count);
}

TEST(PerplexityTest, ChunksAsLlamaPerplexity) {
  std::unique_ptr<Model> model = SmallModel();
  const std::vector<int> tokens = Tokens(16 * 3 + 5);  // three whole chunks and a rest
  PerplexityOptions o;
  o.n_ctx = 16;
  o.bos = 1;
  std::vector<int> seen;
  o.on_chunk = [&](int c, double) { seen.push_back(c); };
  absl::StatusOr<PerplexityResult> r = Perplexity(*model, tokens, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(r->running.size(), 3u);
  EXPECT_EQ(r->scored_tokens, 3 * 7);  // positions 8..14 predict 9..15
  EXPECT_DOUBLE_EQ(r->running.back(), r->ppl);
  EXPECT_GT(r->error, 0.0);
  const double expected = DecodePathPerplexity(*model, tokens, 16, 3, 1);
  EXPECT_NEAR(r->ppl, expected, 1e-4 * expected);
  // A random model over 50 tokens is close to uniform.
  EXPECT_GT(r->ppl, 20.0);
  EXPECT_LT(r->ppl, 120.0);
}

TEST(PerplexityTest, MaxChunksAndErrors) {
  std::unique_ptr<Model> model = SmallModel();
  const std::vector<int> tokens = Tokens(64);
  PerplexityOptions o;
  o.n_ctx = 16;
  o.max_chunks = 2;
  absl::StatusOr<PerplexityResult> r = Perplexity(*model, tokens, o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->running.size(), 2u);

  o.n_ctx = 3;
  EXPECT_EQ(Perplexity(*model, tokens, o).status().code(), absl::StatusCode::kInvalidArgument);
  o.n_ctx = 64;  // the model's cache holds 32
  absl::Status s = Perplexity(*model, tokens, o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("(32)"), std::string::npos) << s;
  o.n_ctx = 16;
  s = Perplexity(*model, Tokens(10), o).status();
  EXPECT_NE(s.message().find("10 tokens do not hold one chunk of 16"), std::string::npos) << s;
}

// Issue 27: all-NaN weights gave a finite perplexity and Inf weights "PPL = -nan"; both are
// refused, naming the first non-finite logit and its chunk.
TEST(PerplexityTest, NonFiniteLogitsAreRefused) {
  PerplexityOptions o;
  o.n_ctx = 8;
  const std::vector<int> tokens = Tokens(16);
  for (const auto& [tensor, value] :
       std::vector<std::pair<std::string, float>>{{"", std::nanf("")},
                                                  {"output_norm.weight", INFINITY},
                                                  {"token_embd.weight", -INFINITY}}) {
    std::unique_ptr<Model> model = ModelWith(tensor, value);
    ASSERT_NE(model, nullptr);
    absl::StatusOr<PerplexityResult> r = Perplexity(*model, tokens, o);
    ASSERT_FALSE(r.ok()) << tensor << ": ppl " << r->ppl;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StrContains(r.status().message(),
                                  "perplexity: logit 0 (of 50) at position 4 of chunk 0 is "))
        << r.status();
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
