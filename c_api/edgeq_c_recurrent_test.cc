// The C API's session on a model with recurrent layers (lfm2: conv states beside the KV cache,
// llm/arch/recurrent_state.h): edgeq_llm_reset clears the states, so that the same prompt gives
// the same greedy tokens after a reset as on a fresh load, and generation continues after a
// first call (the states carried); edgeq_llm_eval restarts at position 0.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "edgeq/edgeq.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace {

std::string WriteTinyLfm2() {
  absl::StatusOr<edgeq::llm::RandomModelSpec> spec = edgeq::llm::RandomModelPreset("lfm2-tiny");
  EXPECT_TRUE(spec.ok()) << spec.status();
  absl::StatusOr<edgeq::checkpoint::TensorDict> vocab =
      edgeq::llm::SyntheticSpmVocabulary(spec->vocab);
  EXPECT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<edgeq::checkpoint::TensorDict> d = edgeq::llm::RandomModel(*spec, &*vocab);
  EXPECT_TRUE(d.ok()) << d.status();
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/tiny_lfm2.gguf";
  EXPECT_TRUE(edgeq::checkpoint::WriteGguf(*d, path).ok());
  return path;
}

std::vector<int32_t> Generate(edgeq_llm* llm, const std::vector<int32_t>& prompt, int n) {
  std::vector<int32_t> out(static_cast<size_t>(n));
  size_t got = 0;
  edgeq_sampling_params greedy = edgeq_sampling_default();
  greedy.temperature = 0;
  EXPECT_EQ(edgeq_llm_generate(llm, prompt.data(), prompt.size(), n, &greedy, nullptr, nullptr,
                               out.data(), out.size(), &got),
            EDGEQ_OK)
      << edgeq_last_error();
  out.resize(got);
  return out;
}

TEST(CApiRecurrent, ResetClearsTheState) {
  const std::string path = WriteTinyLfm2();
  edgeq_llm* llm = nullptr;
  ASSERT_EQ(edgeq_llm_load(path.c_str(), nullptr, &llm), EDGEQ_OK) << edgeq_last_error();
  const std::vector<int32_t> prompt = {1, 300, 17, 450, 99, 5, 260, 42, 77, 311};
  const std::vector<int32_t> first = Generate(llm, prompt, 12);
  ASSERT_EQ(first.size(), 12u);
  // Continuing: the states after the first call are used (what a fresh run of the whole
  // sequence gives).
  const std::vector<int32_t> more = {33, 400};
  const std::vector<int32_t> cont = Generate(llm, more, 4);
  edgeq_llm_reset(llm);
  EXPECT_EQ(edgeq_llm_n_past(llm), 0);
  EXPECT_EQ(Generate(llm, prompt, 12), first);
  // The whole sequence at once from a reset gives the continuation's tokens.
  edgeq_llm_reset(llm);
  std::vector<int32_t> all = prompt;
  all.insert(all.end(), first.begin(), first.end());
  all.insert(all.end(), more.begin(), more.end());
  EXPECT_EQ(Generate(llm, all, 4), cont);

  // edgeq_llm_eval restarts at 0: equal to Model::Prefill on a fresh model.
  std::vector<float> logits(512);
  ASSERT_EQ(edgeq_llm_eval(llm, prompt.data(), prompt.size(), logits.data(), logits.size()),
            EDGEQ_OK);
  absl::StatusOr<std::unique_ptr<edgeq::llm::Model>> model = edgeq::llm::Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status();
  const std::vector<int> p(prompt.begin(), prompt.end());
  absl::StatusOr<absl::Span<const float>> ref = (*model)->Prefill(p, 0);
  ASSERT_TRUE(ref.ok()) << ref.status();
  for (int i = 0; i < 512; ++i) ASSERT_EQ(logits[i], (*ref)[i]) << i;
  edgeq_llm_free(llm);
}

}  // namespace
