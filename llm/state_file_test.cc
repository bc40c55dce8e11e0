#include "llm/state_file.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/sampler.h"
#include "llm/session.h"

namespace edgeq {
namespace llm {
namespace {

RandomModelSpec TinySpec(const std::string& arch, uint64_t seed = 5) {
  if (arch == "lfm2") {  // hybrid: short-convolution states beside the attention layers' cache
    RandomModelSpec s = *RandomModelPreset("lfm2-tiny");
    s.vocab = 64, s.context = 128, s.seed = seed;
    return s;
  }
  RandomModelSpec s = *RandomModelPreset(arch == "qwen3" ? "qwen3-0.6b" : "smollm2-135m");
  s.dim = 32, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 48, s.vocab = 64;
  s.head_dim = arch == "qwen3" ? 32 : 0;
  s.context = 128, s.seed = seed;
  return s;
}

std::unique_ptr<Model> Load(const RandomModelSpec& spec, KvCacheType kv = KvCacheType::kF32) {
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(spec);
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(*d, {.prefill_block = 8, .kv_cache_type = kv});
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

SamplerOptions Options(bool greedy) {
  SamplerOptions o;
  o.temperature = greedy ? 0.0f : 1.0f;
  o.repeat_penalty = 1.3f;
  o.penalty_last_n = 8;
  o.seed = 1234;
  return o;
}

const std::vector<int> kPrompt = {1, 17, 3, 40, 9, 22, 5, 31, 12, 60, 2, 7, 7};

struct Case {
  std::string arch;
  bool greedy;
  KvCacheType kv;
};

class ContinueTest : public ::testing::TestWithParam<Case> {};

// N tokens, save, a fresh model and sampler load the state, M more tokens: the same tokens as
// one uninterrupted run of N + M (penalties and the random sequence carry over).
TEST_P(ContinueTest, SavedStateContinuesBitIdentically) {
  const Case c = GetParam();
  const int n = 9, more = 14;
  std::vector<int> want;
  {
    std::unique_ptr<Model> m = Load(TinySpec(c.arch), c.kv);
    Sampler s = *Sampler::Create(64, Options(c.greedy));
    Session session(*m, s);
    absl::StatusOr<GenerateResult> r = session.Generate(kPrompt, {.max_tokens = n + more});
    ASSERT_TRUE(r.ok()) << r.status();
    want = r->tokens;
  }
  std::string state;
  std::vector<int> got;
  {
    std::unique_ptr<Model> m = Load(TinySpec(c.arch), c.kv);
    Sampler s = *Sampler::Create(64, Options(c.greedy));
    Session session(*m, s);
    absl::StatusOr<GenerateResult> r = session.Generate(kPrompt, {.max_tokens = n});
    ASSERT_TRUE(r.ok()) << r.status();
    got = r->tokens;
    absl::StatusOr<std::string> saved = SaveSessionState(*m, session, &s);
    ASSERT_TRUE(saved.ok()) << saved.status();
    state = *saved;
  }
  std::unique_ptr<Model> m = Load(TinySpec(c.arch), c.kv);
  Sampler s = *Sampler::Create(64, Options(c.greedy));
  Session session(*m, s);
  ASSERT_TRUE(LoadSessionState(state, *m, session, &s).ok());
  EXPECT_EQ(session.n_past(), static_cast<int>(kPrompt.size()) + n);
  absl::StatusOr<GenerateResult> r = session.Generate({}, {.max_tokens = more});
  ASSERT_TRUE(r.ok()) << r.status();
  got.insert(got.end(), r->tokens.begin(), r->tokens.end());
  EXPECT_EQ(got, want);
}

INSTANTIATE_TEST_SUITE_P(Archs, ContinueTest,
                         ::testing::Values(Case{"llama", true, KvCacheType::kF32},
                                           Case{"llama", false, KvCacheType::kF32},
                                           Case{"qwen3", true, KvCacheType::kF32},
                                           Case{"qwen3", false, KvCacheType::kF32},
                                           Case{"qwen3", false, KvCacheType::kQ8_0},
                                           Case{"qwen3", true, KvCacheType::kF16},
                                           Case{"lfm2", true, KvCacheType::kF32},
                                           Case{"lfm2", false, KvCacheType::kF32}));

// Without the saved sampler state, seeded sampling would not continue the same way: the test
// above can fail.
TEST(StateFileTest, FreshSamplerDiverges) {
  std::unique_ptr<Model> m = Load(TinySpec("llama"));
  Sampler a = *Sampler::Create(64, Options(false));
  Session sa(*m, a);
  absl::StatusOr<GenerateResult> full = sa.Generate(kPrompt, {.max_tokens = 30});
  ASSERT_TRUE(full.ok());
  Sampler b = *Sampler::Create(64, Options(false));
  Session sb(*m, b);
  absl::StatusOr<GenerateResult> head = sb.Generate(kPrompt, {.max_tokens = 10});
  ASSERT_TRUE(head.ok());
  b.Reset();  // the random sequence restarts
  absl::StatusOr<GenerateResult> tail = sb.Generate({}, {.max_tokens = 20});
  ASSERT_TRUE(tail.ok());
  std::vector<int> got = head->tokens;
  got.insert(got.end(), tail->tokens.begin(), tail->tokens.end());
  EXPECT_NE(got, full->tokens);
}

struct Saved {
  std::unique_ptr<Model> model;
  std::unique_ptr<Sampler> sampler;
  std::unique_ptr<Session> session;
  std::string bytes;
};

Saved SaveOne() {
  Saved s;
  s.model = Load(TinySpec("llama"));
  s.sampler = std::make_unique<Sampler>(*Sampler::Create(64, Options(false)));
  s.session = std::make_unique<Session>(*s.model, *s.sampler);
  EXPECT_TRUE(s.session->Generate(kPrompt, {.max_tokens = 4}).ok());
  s.bytes = *SaveSessionState(*s.model, *s.session, s.sampler.get());
  return s;
}

// Only the positions used are saved: the file grows with the tokens, not the context.
TEST(StateFileTest, SavesOnlyUsedPositions) {
  Saved s = SaveOne();
  const size_t n = s.session->n_past();  // the prompt's 13 and the 4 generated (all fed)
  const size_t kv = 2 /*layers*/ * 2 /*K,V*/ * 2 /*kv heads*/ * 8 /*head dim*/ * 4;
  EXPECT_EQ(n, 17u);
  // The whole cache (128 positions) is 32 KiB; the sampler's text state about 7 KB.
  EXPECT_LT(s.bytes.size(), n * kv + 64 * 4 + 10000);
  EXPECT_GT(s.bytes.size(), n * kv + 64 * 4);
}

// Truncated, padded, corrupted, foreign, wrong-version and non-state bytes are refused with
// their own message, and the session is left as it was.
TEST(StateFileTest, RefusesBadBytesAndChangesNothing) {
  Saved s = SaveOne();
  std::unique_ptr<Model> m = Load(TinySpec("llama"));
  Sampler sampler = *Sampler::Create(64, Options(false));
  Session session(*m, sampler);
  ASSERT_TRUE(session.Generate({4, 5, 6}, {.max_tokens = 1}).ok());
  const std::vector<int> before = session.tokens();
  auto expect = [&](const std::string& bytes, absl::StatusCode code, const std::string& msg) {
    absl::Status st = LoadSessionState(bytes, *m, session, &sampler, "s.state");
    EXPECT_EQ(st.code(), code) << st;
    EXPECT_NE(std::string(st.message()).find(msg), std::string::npos) << st;
    EXPECT_EQ(session.tokens(), before);
  };
  expect(s.bytes.substr(0, s.bytes.size() - 1), absl::StatusCode::kDataLoss,
         "s.state is truncated or padded: its header says");
  expect(s.bytes.substr(0, 20), absl::StatusCode::kDataLoss, "s.state is truncated: 20 bytes");
  expect(s.bytes + "x", absl::StatusCode::kDataLoss, "truncated or padded");
  std::string flipped = s.bytes;
  flipped[flipped.size() - 3] ^= 1;
  expect(flipped, absl::StatusCode::kDataLoss, "s.state is corrupted: its XXH64 checksum");
  std::string version = s.bytes;
  version[8] = 2;
  expect(version, absl::StatusCode::kInvalidArgument, "s.state has format version 2; expected 1");
  expect("GGUF" + s.bytes.substr(4), absl::StatusCode::kInvalidArgument,
         "s.state is not an edgeq session state");

  // Another model: other widths, or the same widths with other weights.
  RandomModelSpec wider = TinySpec("llama");
  wider.ffn = 64;
  std::unique_ptr<Model> other = Load(wider);
  absl::Status st = LoadSessionState(s.bytes, *other, session, nullptr, "s.state");
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(st.message())
                .find("s.state is for another model: 'llama dim 32 layers 2 heads 4/2 head_dim 8 "
                      "ffn 48 vocab 64 kv f32'; expected llama dim 32 layers 2 heads 4/2 "
                      "head_dim 8 ffn 64"),
            std::string::npos)
      << st;
  std::unique_ptr<Model> reseeded = Load(TinySpec("llama", 6));
  st = LoadSessionState(s.bytes, *reseeded, session, nullptr, "s.state");
  EXPECT_NE(std::string(st.message())
                .find("same shape (llama dim 32 layers 2 heads 4/2 head_dim "
                      "8 ffn 48 vocab 64 kv f32) but the weights differ"),
            std::string::npos)
      << st;
  EXPECT_EQ(session.tokens(), before);
}

// Files: written whole under their name (no temporary left), read back; a missing one is an
// error naming it.
TEST(StateFileTest, FileRoundTrip) {
  Saved s = SaveOne();
  const std::string dir = ::testing::TempDir();
  const std::string path = dir + "/a.state";
  ASSERT_TRUE(SaveSessionStateFile(path, *s.model, *s.session, s.sampler.get()).ok());
  std::ifstream f(path, std::ios::binary);
  const std::string disk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(disk, s.bytes);
  EXPECT_NE(access((path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), 0);
  std::unique_ptr<Model> m = Load(TinySpec("llama"));
  Sampler sampler = *Sampler::Create(64, Options(false));
  Session session(*m, sampler);
  ASSERT_TRUE(LoadSessionStateFile(path, *m, session, &sampler).ok());
  EXPECT_EQ(session.tokens(), s.session->tokens());
  EXPECT_EQ(session.pending_logits(), s.session->pending_logits());
  absl::StatusOr<std::vector<int>> tokens = SessionStateTokens(disk, *m);
  ASSERT_TRUE(tokens.ok());
  EXPECT_EQ(*tokens, s.session->tokens());
  absl::Status st = LoadSessionStateFile(dir + "/missing.state", *m, session, &sampler);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("missing.state"), std::string::npos) << st;
  st = SaveSessionStateFile(dir + "/no/such/dir/x.state", *m, session, &sampler);
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable) << st;
}

// The sampler's own state: its tag is checked, tokens must be in the vocabulary.
TEST(StateFileTest, SamplerStateRefusesForeignBytes) {
  Sampler s = *Sampler::Create(64, Options(false));
  EXPECT_EQ(s.LoadState("nonsense").code(), absl::StatusCode::kInvalidArgument);
  std::string st = s.SaveState();
  Sampler t = *Sampler::Create(8, Options(false));
  s.Accept(40);
  EXPECT_NE(t.LoadState(s.SaveState()).message().find("not an id in [0, 8)"), std::string::npos);
  EXPECT_TRUE(t.LoadState(st).ok());
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
