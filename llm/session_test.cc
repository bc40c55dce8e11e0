#include "llm/session.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/sampler.h"

namespace edgeq {
namespace llm {
namespace {

std::unique_ptr<Model> SmallModel(int context = 32) {
  RandomModelSpec s = *RandomModelPreset("smollm2-135m");
  s.dim = 32, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 48, s.vocab = 50;
  s.context = context, s.seed = 11;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::unique_ptr<Model>> m = Model::Load(*d, {.prefill_block = 4});
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

SamplerOptions Greedy() {
  SamplerOptions o;
  o.temperature = 0.0f;
  o.seed = 1;
  return o;
}

int Argmax(absl::Span<const float> v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

// Greedy generation equals feeding the argmax back by hand; the callback sees each token.
TEST(SessionTest, GreedyEqualsArgmaxLoop) {
  std::unique_ptr<Model> m = SmallModel();
  const std::vector<int> prompt = {1, 7, 3, 22, 9};
  std::vector<int> want;
  absl::StatusOr<absl::Span<const float>> logits = m->Prefill(prompt, 0);
  ASSERT_TRUE(logits.ok());
  for (int i = 0; i < 10; ++i) {
    want.push_back(Argmax(*logits));
    logits = m->Forward(want.back(), static_cast<int>(prompt.size()) + i);
    ASSERT_TRUE(logits.ok());
  }
  absl::StatusOr<Sampler> sampler = Sampler::Create(50, Greedy());
  ASSERT_TRUE(sampler.ok());
  Session session(*m, *sampler);
  std::vector<int> seen;
  absl::StatusOr<GenerateResult> r = session.Generate(prompt, {.max_tokens = 10}, [&](int t) {
    seen.push_back(t);
    return true;
  });
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tokens, want);
  EXPECT_EQ(seen, want);
  EXPECT_EQ(r->reason, StopReason::kMaxTokens);
  EXPECT_EQ(r->prompt_tokens, 5);
  EXPECT_EQ(session.n_past(), 15);

  // Reset and again: the same tokens. Continuing without a prompt goes on from the same point.
  session.Reset();
  EXPECT_EQ(session.n_past(), 0);
  r = session.Generate(prompt, {.max_tokens = 4});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tokens, std::vector<int>(want.begin(), want.begin() + 4));
  r = session.Generate({}, {.max_tokens = 6});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tokens, std::vector<int>(want.begin() + 4, want.end()));
}

// Rewinding to n tokens and prefilling the rest again gives the same continuation as before.
TEST(SessionTest, RewindRecomputesFromThere) {
  std::unique_ptr<Model> m = SmallModel();
  absl::StatusOr<Sampler> sampler = Sampler::Create(50, Greedy());
  ASSERT_TRUE(sampler.ok());
  Session session(*m, *sampler);
  const std::vector<int> prompt = {1, 7, 3, 22, 9};
  absl::StatusOr<GenerateResult> first = session.Generate(prompt, {.max_tokens = 6});
  ASSERT_TRUE(first.ok()) << first.status();
  const std::vector<int> held = session.tokens();  // prompt + 6 generated
  ASSERT_EQ(held.size(), 11u);
  // Overwrite positions 3.. with other tokens, then rewind and restore them.
  ASSERT_TRUE(session.Rewind(3).ok());
  EXPECT_EQ(session.n_past(), 3);
  EXPECT_EQ(session.Generate({}).status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(session.Generate({40, 41, 42}, {.max_tokens = 2}).ok());
  ASSERT_TRUE(session.Rewind(3).ok());
  absl::StatusOr<GenerateResult> again =
      session.Generate(std::vector<int>(held.begin() + 3, held.end()), {.max_tokens = 4});
  ASSERT_TRUE(again.ok()) << again.status();
  // The continuation equals a fresh session's over the same 11 tokens.
  absl::StatusOr<Sampler> sampler2 = Sampler::Create(50, Greedy());
  ASSERT_TRUE(sampler2.ok());
  Session fresh(*m, *sampler2);
  absl::StatusOr<GenerateResult> want = fresh.Generate(held, {.max_tokens = 4});
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(again->tokens, want->tokens);
  EXPECT_EQ(session.Rewind(100).message(), "cannot rewind to 100 tokens: the session holds 15");
  EXPECT_EQ(session.Rewind(-1).code(), absl::StatusCode::kInvalidArgument);
}

TEST(SessionTest, StopTokenCallbackAndContext) {
  std::unique_ptr<Model> m = SmallModel(/*context=*/12);
  absl::StatusOr<Sampler> sampler = Sampler::Create(50, Greedy());
  ASSERT_TRUE(sampler.ok());
  Session session(*m, *sampler);
  const std::vector<int> prompt = {1, 7, 3, 22, 9};
  absl::StatusOr<GenerateResult> all = session.Generate(prompt);
  ASSERT_TRUE(all.ok()) << all.status();
  // 7 positions left after the prompt: 7 tokens fed back plus the last one sampled.
  EXPECT_EQ(all->reason, StopReason::kContextFull);
  EXPECT_EQ(all->tokens.size(), 8u);
  EXPECT_EQ(session.n_past(), 12);
  absl::Status full = session.Generate({4}).status();
  EXPECT_EQ(full.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(full.message(),
            "the prompt is 1 tokens long, but the context holds 12 (12 already used)");

  // The third generated token as a stop token: two are passed to the callback.
  session.Reset();
  int calls = 0;
  absl::StatusOr<GenerateResult> r =
      session.Generate(prompt, {.stop_tokens = {all->tokens[2]}}, [&](int) {
        ++calls;
        return true;
      });
  ASSERT_TRUE(r.ok());
  // (If an earlier token equals the stop token, it stops there.)
  const size_t first =
      std::find(all->tokens.begin(), all->tokens.end(), all->tokens[2]) - all->tokens.begin();
  EXPECT_EQ(r->reason, StopReason::kStopToken);
  EXPECT_EQ(r->tokens.size(), first + 1);
  EXPECT_EQ(calls, static_cast<int>(first));

  session.Reset();
  r = session.Generate(prompt, {}, [](int) { return false; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->reason, StopReason::kCallback);
  EXPECT_EQ(r->tokens.size(), 1u);
  EXPECT_STREQ(StopReasonName(r->reason), "stopped by callback");

  session.Reset();
  const std::vector<int> too_long(13, 1);
  EXPECT_EQ(session.Generate(too_long).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session.Generate({}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(session.Generate({50}).status().code(), absl::StatusCode::kOutOfRange);
}

// Issue 27 F11: the prompt length was narrowed to int before the context check, so a span of
// 2^32 + 5 tokens passed as 5 and was read. It is refused before any token is read (the span's
// memory is not there: one read would crash).
TEST(SessionTest, PromptLengthIsNotNarrowed) {
  std::unique_ptr<Model> m = SmallModel(/*context=*/12);
  absl::StatusOr<Sampler> sampler = Sampler::Create(50, Greedy());
  ASSERT_TRUE(sampler.ok());
  Session session(*m, *sampler);
  const int one = 1;
  const absl::Span<const int> huge(&one, (size_t{1} << 32) + 5);
  absl::Status s = session.Generate(huge).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "the prompt is 4294967301 tokens long, but the context holds 12 (0 already used)");
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
