// The C API's saved sessions, cancellation and load progress (edgeq_llm_state_*,
// edgeq_llm_cancel, edgeq_llm_set_abort_callback, edgeq_llm_load_with_progress) on tiny random
// models written as GGUF.
#include <atomic>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "checkpoint/gguf.h"
#include "edgeq/edgeq.h"
#include "gtest/gtest.h"
#include "llm/random_model.h"

namespace {

std::string WriteModel(const std::string& name, int context, uint64_t seed = 4) {
  edgeq::llm::RandomModelSpec s = *edgeq::llm::RandomModelPreset("smollm2-135m");
  s.dim = 32, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 48, s.vocab = 64;
  s.context = context, s.seed = seed;
  const std::string path = ::testing::TempDir() + "/" + name;
  EXPECT_TRUE(edgeq::checkpoint::WriteGguf(*edgeq::llm::RandomModel(s), path).ok());
  return path;
}

edgeq_llm* Load(const std::string& path, int ubatch = 8) {
  edgeq_llm_options o = {1, 0, ubatch};
  edgeq_llm* llm = nullptr;
  EXPECT_EQ(edgeq_llm_load(path.c_str(), &o, &llm), EDGEQ_OK) << edgeq_last_error();
  return llm;
}

std::vector<int32_t> Generate(edgeq_llm* llm, const std::vector<int32_t>& prompt, int n,
                              edgeq_status want = EDGEQ_OK) {
  edgeq_sampling_params sp = edgeq_sampling_default();
  sp.seed = 99;
  sp.top_k = 0;
  std::vector<int32_t> out(n);
  size_t got = 0;
  EXPECT_EQ(edgeq_llm_generate(llm, prompt.data(), prompt.size(), n, &sp, nullptr, nullptr,
                               out.data(), out.size(), &got),
            want)
      << edgeq_last_error();
  out.resize(got);
  return out;
}

const std::vector<int32_t> kPrompt = {1, 9, 33, 4, 60, 2, 18};

// Save into a buffer (asking its size first), load into another handle: it goes on as the
// first would have; bad bytes are refused with distinct codes and leave the handle as it was.
TEST(CApiState, BufferRoundTripAndRefusals) {
  const std::string path = WriteModel("s.gguf", 128);
  edgeq_llm* a = Load(path);
  std::vector<int32_t> want = Generate(a, kPrompt, 25);
  edgeq_llm_reset(a);
  std::vector<int32_t> got = Generate(a, kPrompt, 10);
  size_t size = 0;
  ASSERT_EQ(edgeq_llm_state_save(a, nullptr, 0, &size), EDGEQ_ERROR_BUFFER_TOO_SMALL);
  std::vector<uint8_t> state(size);
  ASSERT_EQ(edgeq_llm_state_save(a, state.data(), state.size(), &size), EDGEQ_OK);
  EXPECT_EQ(size, state.size());

  edgeq_llm* b = Load(path);
  std::vector<uint8_t> bad = state;
  bad[bad.size() / 2] ^= 0x10;
  EXPECT_EQ(edgeq_llm_state_load(b, bad.data(), bad.size()), EDGEQ_ERROR_IO);
  EXPECT_NE(std::string(edgeq_last_error()).find("checksum does not match"), std::string::npos);
  EXPECT_EQ(edgeq_llm_state_load(b, state.data(), 40), EDGEQ_ERROR_IO);
  EXPECT_EQ(edgeq_llm_n_past(b), 0);
  edgeq_llm* other = Load(WriteModel("o.gguf", 128, 5));
  EXPECT_EQ(edgeq_llm_state_load(other, state.data(), state.size()), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("the weights differ"), std::string::npos);
  edgeq_llm_free(other);

  ASSERT_EQ(edgeq_llm_state_load(b, state.data(), state.size()), EDGEQ_OK);
  EXPECT_EQ(edgeq_llm_n_past(b), static_cast<int32_t>(kPrompt.size()) + 10);
  // Saved again before generating: the same bytes (the restored sampler state is kept).
  std::vector<uint8_t> again(size);
  ASSERT_EQ(edgeq_llm_state_save(b, again.data(), again.size(), &size), EDGEQ_OK);
  EXPECT_EQ(again, state);
  std::vector<int32_t> rest = Generate(b, {}, 15);
  got.insert(got.end(), rest.begin(), rest.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(edgeq_llm_state_load_file(b, (::testing::TempDir() + "/none.state").c_str()),
            EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(edgeq_last_error()).find("edgeq_llm_state_load_file: "), std::string::npos);
  edgeq_llm_free(a);
  edgeq_llm_free(b);
}

// edgeq_llm_cancel from a second thread during a 2,000-token prefill: EDGEQ_CANCELLED, the
// blocks run stay, and the handle then generates what a fresh one does.
TEST(CApiCancel, CancelFromAnotherThreadDuringPrefill) {
  const std::string path = WriteModel("c.gguf", 2048);
  std::vector<int32_t> prompt(2000);
  for (int i = 0; i < 2000; ++i) prompt[i] = (i * 13 + 5) % 64;
  edgeq_llm* fresh = Load(path, 64);
  const std::vector<int32_t> want = Generate(fresh, prompt, 10);
  edgeq_llm_free(fresh);

  edgeq_llm* llm = Load(path, 64);
  struct Handoff {
    int calls = 0;
    std::promise<void> reached, cancelled;
    std::shared_future<void> cancelled_future = cancelled.get_future().share();
  } h;
  std::thread canceller([&] {
    h.reached.get_future().wait();
    edgeq_llm_cancel(llm);
    h.cancelled.set_value();
  });
  edgeq_llm_set_abort_callback(
      llm,
      [](void* p) {
        auto* h = static_cast<Handoff*>(p);
        // Before the 4th block (3 x 64 tokens ran) the cancel comes from the other thread; this
        // check has read the flag already, so the 4th block runs and the next check stops.
        if (++h->calls == 4) {
          h->reached.set_value();
          h->cancelled_future.wait();
        }
        return 0;
      },
      &h);
  Generate(llm, prompt, 10, EDGEQ_CANCELLED);
  canceller.join();
  EXPECT_NE(std::string(edgeq_last_error()).find("cancelled after 256 of 2000 prompt tokens"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_llm_n_past(llm), 256);
  edgeq_llm_set_abort_callback(llm, nullptr, nullptr);
  // The rest of the prompt: the tokens of the fresh run (the cancel was forgotten).
  const std::vector<int32_t> rest(prompt.begin() + 256, prompt.end());
  EXPECT_EQ(Generate(llm, rest, 10), want);
  edgeq_llm_free(llm);
}

// The abort callback alone stops decoding: the tokens so far are returned with EDGEQ_CANCELLED.
TEST(CApiCancel, AbortCallbackStopsDecoding) {
  edgeq_llm* llm = Load(WriteModel("d.gguf", 128));
  int calls = 0;
  edgeq_llm_set_abort_callback(
      llm, [](void* p) { return ++*static_cast<int*>(p) > 4 ? 1 : 0; }, &calls);
  // 7 prompt tokens with ubatch 8: one prefill check, then decode checks 2, 3, 4 pass, 5 stops.
  const std::vector<int32_t> got = Generate(llm, kPrompt, 20, EDGEQ_CANCELLED);
  EXPECT_EQ(got.size(), 3u);
  EXPECT_STREQ(edgeq_last_error(), "edgeq_llm_generate: cancelled after 3 generated tokens");
  EXPECT_STREQ(edgeq_status_name(EDGEQ_CANCELLED), "CANCELLED");
  edgeq_llm_free(llm);
}

// Load progress: 0 first, 1 last, never falling; a callback returning 0 cancels the load.
TEST(CApiProgress, ReportsAndCancels) {
  const std::string path = WriteModel("p.gguf", 128);
  std::vector<float> seen;
  edgeq_llm* llm = nullptr;
  ASSERT_EQ(edgeq_llm_load_with_progress(
                path.c_str(), nullptr,
                [](float f, void* p) {
                  static_cast<std::vector<float>*>(p)->push_back(f);
                  return 1;
                },
                &seen, &llm),
            EDGEQ_OK);
  ASSERT_GE(seen.size(), 3u);
  EXPECT_EQ(seen.front(), 0.0f);
  EXPECT_EQ(seen.back(), 1.0f);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]);
  EXPECT_GT(seen[seen.size() - 2], 0.0f);
  const size_t reports = seen.size();
  Generate(llm, kPrompt, 3);  // prefill graphs built later report nothing
  EXPECT_EQ(seen.size(), reports);
  edgeq_llm_free(llm);

  int calls = 0;
  llm = reinterpret_cast<edgeq_llm*>(&calls);
  EXPECT_EQ(edgeq_llm_load_with_progress(
                path.c_str(), nullptr,
                [](float, void* p) { return ++*static_cast<int*>(p) < 2 ? 1 : 0; }, &calls, &llm),
            EDGEQ_CANCELLED);
  EXPECT_EQ(llm, nullptr);
  EXPECT_NE(std::string(edgeq_last_error()).find("model load cancelled by the progress callback"),
            std::string::npos)
      << edgeq_last_error();
}

}  // namespace

namespace {

// edgeq_llm_embed: sizes, pooling rows and refusals (llama-embedding parity: //llm:embed_test).
TEST(CApiEmbed, PoolingsAndErrors) {
  edgeq_llm* llm = Load(WriteModel("e.gguf", 128));
  const int32_t ids[] = {1, 9, 33, 4};
  size_t n = 0;
  EXPECT_EQ(edgeq_llm_embed(llm, ids, 4, "none", -1, nullptr, 0, &n), EDGEQ_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(n, 4u * 32);
  std::vector<float> rows(n), last(32);
  ASSERT_EQ(edgeq_llm_embed(llm, ids, 4, "none", -1, rows.data(), rows.size(), &n), EDGEQ_OK);
  ASSERT_EQ(edgeq_llm_embed(llm, ids, 4, "last", -1, last.data(), last.size(), &n), EDGEQ_OK);
  EXPECT_EQ(n, 32u);
  for (int k = 0; k < 32; ++k) EXPECT_EQ(last[k], rows[3 * 32 + k]);
  ASSERT_EQ(edgeq_llm_embed(llm, ids, 4, "last", 2, last.data(), last.size(), &n), EDGEQ_OK);
  double n2 = 0;
  for (float x : last) n2 += x * x;
  EXPECT_NEAR(n2, 1.0, 1e-6);
  EXPECT_EQ(edgeq_llm_embed(llm, ids, 4, "max", 2, last.data(), last.size(), &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_llm_embed: pooling 'max'; expected one of none, mean, cls, last");
  const int32_t bad[] = {1, 64};
  EXPECT_EQ(edgeq_llm_embed(llm, bad, 2, "mean", 2, last.data(), last.size(), &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(edgeq_llm_n_past(llm), 0);
  edgeq_llm_free(llm);
}

}  // namespace
