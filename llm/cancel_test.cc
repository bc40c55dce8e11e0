// Session::SetAbortCheck: a second thread cancels a 2,000-token prefill and a decode; the session
// stays usable and then generates what a fresh run does. No timing: the threads hand over
// through promises at a chosen check.
#include <atomic>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/sampler.h"
#include "llm/session.h"

namespace edgeq {
namespace llm {
namespace {

constexpr int kPromptTokens = 2000;
constexpr int kUbatch = 64;

std::unique_ptr<Model> Load() {
  RandomModelSpec s = *RandomModelPreset("smollm2-135m");
  s.dim = 32, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 48, s.vocab = 64;
  s.context = 2048, s.seed = 3;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(*d, {.prefill_block = kUbatch, .context_length = 2048});
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

std::vector<int> Prompt() {
  std::vector<int> p(kPromptTokens);
  for (int i = 0; i < kPromptTokens; ++i) p[i] = (i * 37 + 11) % 64;
  return p;
}

SamplerOptions Seeded() {
  SamplerOptions o;
  o.temperature = 0.9f;
  o.seed = 77;
  return o;
}

// The reference: an uninterrupted run of the whole prompt and 12 tokens.
std::vector<int> Fresh(int max_tokens) {
  std::unique_ptr<Model> m = Load();
  Sampler s = *Sampler::Create(64, Seeded());
  Session session(*m, s);
  absl::StatusOr<GenerateResult> r = session.Generate(Prompt(), {.max_tokens = max_tokens});
  EXPECT_TRUE(r.ok()) << r.status();
  return r->tokens;
}

// The abort check blocks at its `at`-th call until another thread has set the flag; the cancel
// then takes effect at that check.
struct CancelFromThread {
  explicit CancelFromThread(int at) : at(at) {
    canceller = std::thread([this] {
      reached.get_future().wait();
      cancel.store(true);
      done.set_value();
    });
  }
  ~CancelFromThread() {
    if (canceller.joinable()) canceller.join();
  }
  bool Check() {
    if (++calls == at) {
      reached.set_value();
      done_future.wait();
    }
    return cancel.load();
  }
  const int at;
  int calls = 0;
  std::atomic<bool> cancel{false};
  std::promise<void> reached, done;
  std::shared_future<void> done_future = done.get_future().share();
  std::thread canceller;
};

TEST(CancelTest, CancelDuringPrefillThenSessionGeneratesAsFreshRun) {
  const std::vector<int> want = Fresh(12);
  std::unique_ptr<Model> m = Load();
  Sampler s = *Sampler::Create(64, Seeded());
  Session session(*m, s);
  const std::vector<int> prompt = Prompt();
  {
    CancelFromThread c(6);  // before the 6th block: 5 blocks of 64 tokens ran
    session.SetAbortCheck([&c] { return c.Check(); });
    absl::StatusOr<GenerateResult> r = session.Generate(prompt, {.max_tokens = 12});
    EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled);
    EXPECT_EQ(r.status().message(), "cancelled after 320 of 2000 prompt tokens");
    EXPECT_EQ(session.n_past(), 5 * kUbatch);
    session.SetAbortCheck({});
  }
  // The rest of the prompt after what the session kept: the same tokens as a fresh run.
  absl::StatusOr<GenerateResult> r =
      session.Generate(absl::MakeConstSpan(prompt).subspan(session.n_past()), {.max_tokens = 12});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tokens, want);
  // And after a reset, the whole prompt again.
  session.Reset();
  r = session.Generate(prompt, {.max_tokens = 12});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->tokens, want);
}

TEST(CancelTest, CancelDuringDecodeKeepsTokensAndContinues) {
  const std::vector<int> want = Fresh(20);
  std::unique_ptr<Model> m = Load();
  Sampler s = *Sampler::Create(64, Seeded());
  Session session(*m, s);
  const int blocks = (kPromptTokens + kUbatch - 1) / kUbatch;  // 32 prefill checks
  std::vector<int> got;
  {
    CancelFromThread c(blocks + 8);  // the 8th decode check: 7 tokens sampled
    session.SetAbortCheck([&c] { return c.Check(); });
    absl::StatusOr<GenerateResult> r = session.Generate(Prompt(), {.max_tokens = 20});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->reason, StopReason::kCancelled);
    EXPECT_STREQ(StopReasonName(r->reason), "cancelled");
    EXPECT_EQ(r->tokens.size(), 7u);
    got = r->tokens;
    session.SetAbortCheck({});
  }
  absl::StatusOr<GenerateResult> r = session.Generate({}, {.max_tokens = 13});
  ASSERT_TRUE(r.ok()) << r.status();
  got.insert(got.end(), r->tokens.begin(), r->tokens.end());
  EXPECT_EQ(got, want);
}

// A prompt token outside the vocabulary is refused before any block runs.
TEST(CancelTest, BadTokenRefusedBeforeAnyBlock) {
  std::unique_ptr<Model> m = Load();
  Sampler s = *Sampler::Create(64, Seeded());
  Session session(*m, s);
  std::vector<int> prompt = Prompt();
  prompt[1500] = 64;
  absl::StatusOr<GenerateResult> r = session.Generate(prompt, {.max_tokens = 1});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(r.status().message(), "token 64 is outside the vocabulary [0, 64)");
  EXPECT_EQ(session.n_past(), 0);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
