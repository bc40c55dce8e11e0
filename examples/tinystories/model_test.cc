// llm::Model (the graph-built Llama) against llama2.c's run.c: teacher-forced on run.c's greedy
// token sequences for stories260K, the model's argmax must pick run.c's next token at every
// position.
#include "llm/model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/llama2c.h"
#include "examples/tinystories/sampler.h"
#include "examples/tinystories/testing.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace tinystories {
namespace {

// A golden run.c run: the prompt's token ids (BOS first) and the whole sequence it processed.
struct Golden {
  std::vector<int> prompt;
  std::vector<int> tokens;
};
Golden ReadGolden(const std::string& stem) {
  absl::StatusOr<testing::GoldenRun> g = testing::ReadGolden(stem);
  EXPECT_TRUE(g.ok()) << g.status();
  if (!g.ok()) return {};
  EXPECT_GE(g->tokens.size(), 200u) << stem;
  return {g->prompt_ids, g->tokens};
}

int Argmax(absl::Span<const float> v) {
  return static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
}

checkpoint::TensorDict Stories260K() {
  absl::StatusOr<checkpoint::TensorDict> dict =
      checkpoint::ReadLlama2c(testing::ModelPath("stories260K.bin"));
  EXPECT_TRUE(dict.ok()) << dict.status();
  return *std::move(dict);
}

class LlamaModelGoldenTest : public ::testing::TestWithParam<const char*> {};

// Feeds a golden run's tokens one by one (teacher forcing) and counts the positions after the
// prompt where `pick(logits)` differs from run.c's next token; -1 if Forward fails.
int TeacherForcedMismatches(llm::Model& model, const Golden& golden,
                            const std::function<int(absl::Span<const float>)>& pick) {
  int mismatches = 0;
  for (size_t pos = 0; pos + 1 < golden.tokens.size(); ++pos) {
    absl::StatusOr<absl::Span<const float>> logits =
        model.Forward(golden.tokens[pos], static_cast<int>(pos));
    EXPECT_TRUE(logits.ok()) << logits.status();
    if (!logits.ok()) return -1;
    EXPECT_EQ(logits->size(), 512u);
    if (pos + 1 >= golden.prompt.size() && pick(*logits) != golden.tokens[pos + 1]) ++mismatches;
  }
  return mismatches;
}

// run.c keeps its KV cache in f32: the tests that follow its outputs ask for an f32 cache (edgeq's
// default is f16).
const llm::ModelOptions kRunCOptions = {.kv_cache_type = llm::KvCacheType::kF32};

TEST_P(LlamaModelGoldenTest, F32ArgmaxFollowsRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Stories260K();
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(dict, kRunCOptions);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(TeacherForcedMismatches(**model, ReadGolden(GetParam()), Argmax), 0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Prompts, LlamaModelGoldenTest,
                         ::testing::Values("once_upon_a_time", "lily_wanted", "the_cat", "empty"));

// The prefill graph (blocks of 16, then single tokens) continues exactly where run.c does: after
// a 37-token prefix of a golden run, the argmax still follows run.c at every later position.
TEST(LlamaModelTest, BlockPrefillThenDecodeFollowsRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Stories260K();
  for (int block : {4, 16}) {
    absl::StatusOr<std::unique_ptr<llm::Model>> model =
        llm::Model::Load(dict, {.prefill_block = block, .kv_cache_type = llm::KvCacheType::kF32});
    ASSERT_TRUE(model.ok()) << model.status();
    const std::vector<int> tokens = ReadGolden("once_upon_a_time").tokens;
    const size_t prefix = 37;
    absl::StatusOr<absl::Span<const float>> logits =
        (*model)->Prefill(absl::MakeConstSpan(tokens).first(prefix), 0);
    ASSERT_TRUE(logits.ok()) << logits.status();
    EXPECT_TRUE(absl::StrContains((*model)->DebugString(), absl::StrCat("llama_t", block)));
    int mismatches = Argmax(*logits) != tokens[prefix];
    for (size_t pos = prefix; pos + 1 < tokens.size(); ++pos) {
      logits = (*model)->Forward(tokens[pos], static_cast<int>(pos));
      ASSERT_TRUE(logits.ok()) << logits.status();
      if (Argmax(*logits) != tokens[pos + 1]) ++mismatches;
    }
    EXPECT_EQ(mismatches, 0) << "block " << block;
  }
}

// Prefill's logits equal those of feeding the same tokens one by one (up to float rounding:
// matrix-matrix kernels may sum in another order).
TEST(LlamaModelTest, PrefillMatchesTokenByToken) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Stories260K();
  const std::vector<int> tokens = ReadGolden("lily_wanted").tokens;
  absl::StatusOr<std::unique_ptr<llm::Model>> blocked =
      llm::Model::Load(dict, {.prefill_block = 8});
  absl::StatusOr<std::unique_ptr<llm::Model>> single = llm::Model::Load(dict, {.prefill_block = 0});
  ASSERT_TRUE(blocked.ok() && single.ok());
  EXPECT_FALSE(absl::StrContains((*single)->DebugString(), "llama_t8"));
  absl::StatusOr<absl::Span<const float>> a =
      (*blocked)->Prefill(absl::MakeConstSpan(tokens).first(21), 0);
  ASSERT_TRUE(a.ok()) << a.status();
  const std::vector<float> want(a->begin(), a->end());
  absl::StatusOr<absl::Span<const float>> b;
  for (int pos = 0; pos < 21; ++pos) b = (*single)->Forward(tokens[pos], pos);
  ASSERT_TRUE(b.ok());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(want[i], (*b)[i], 1e-4f * (1.0f + std::fabs(want[i]))) << i;
  }
  EXPECT_EQ((*blocked)->Prefill({}, 0).status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<int> too_long(600, 1);  // the context is 512
  absl::Status s = (*blocked)->Prefill(too_long, 0).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(absl::StrContains(s.message(), "0..599")) << s;
  EXPECT_EQ(llm::Model::Load(dict, {.prefill_block = -1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// run.c's sampled runs (temperature, top-p, seed), teacher-forced: llama2.c's sampler fed the
// graph's logits draws the token run.c drew at every position.
TEST(LlamaModelTest, SampledTokensFollowRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Stories260K();
  struct Case {
    const char* stem;
    SamplerOptions options;
  };
  for (const Case& c :
       {Case{"sampled_t08_p09_s42", {0.8f, 0.9f, 42}}, Case{"sampled_t1_p0_s7", {1.0f, 0.0f, 7}}}) {
    absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(dict, kRunCOptions);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<Sampler> sampler = Sampler::Create(512, c.options);
    ASSERT_TRUE(sampler.ok());
    const int mismatches =
        TeacherForcedMismatches(**model, ReadGolden(c.stem), [&](absl::Span<const float> l) {
          std::vector<float> probs(l.begin(), l.end());
          return sampler->Sample(absl::MakeSpan(probs));
        });
    EXPECT_EQ(mismatches, 0) << c.stem;
  }
}

// Quantized weights (the matrices and the embedding in q8_0 where k allows) stay close to f32: the
// same greedy argmax at most positions and logits within a small fraction of their range.
TEST(LlamaModelTest, Q8_0TracksF32) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Stories260K();
  checkpoint::TensorDict q8 = dict;
  for (const std::string& key : dict.Keys()) {
    const Tensor& t = **dict.Get(key);
    // ffn_down's k (hidden = 172) is not a multiple of 32: it stays f32 (mixed precision).
    if (t.shape().rank() != 2 || t.shape().dim(1) % 32 != 0) continue;
    absl::StatusOr<Tensor> q = Q8_0Encoding().Quantize(t);
    ASSERT_TRUE(q.ok()) << key << ": " << q.status();
    ASSERT_TRUE(q8.Set(key, *std::move(q)).ok());
  }
  absl::StatusOr<std::unique_ptr<llm::Model>> f32 = llm::Model::Load(dict);
  absl::StatusOr<std::unique_ptr<llm::Model>> quant = llm::Model::Load(q8);
  ASSERT_TRUE(f32.ok()) << f32.status();
  ASSERT_TRUE(quant.ok()) << quant.status();
  EXPECT_TRUE(absl::StrContains((*quant)->DebugString(), "qmatmul")) << (*quant)->DebugString();
  const std::vector<int> tokens = ReadGolden("once_upon_a_time").tokens;
  int same = 0, n = 0;
  for (size_t pos = 0; pos + 1 < tokens.size(); ++pos, ++n) {
    absl::StatusOr<absl::Span<const float>> a = (*f32)->Forward(tokens[pos], pos);
    ASSERT_TRUE(a.ok());
    const std::vector<float> want(a->begin(), a->end());
    absl::StatusOr<absl::Span<const float>> b = (*quant)->Forward(tokens[pos], pos);
    ASSERT_TRUE(b.ok());
    const float range =
        *std::max_element(want.begin(), want.end()) - *std::min_element(want.begin(), want.end());
    float max_diff = 0;
    for (size_t i = 0; i < want.size(); ++i)
      max_diff = std::max(max_diff, std::fabs(want[i] - (*b)[i]));
    EXPECT_LT(max_diff, 0.05f * range) << "position " << pos;
    same += Argmax(want) == Argmax(*b);
  }
  EXPECT_GE(same, n * 95 / 100) << same << " of " << n;
}

TEST(LlamaModelTest, BadTokenPositionAndWeights) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  checkpoint::TensorDict dict = Stories260K();
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(dict);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ((*model)->Forward(512, 0).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ((*model)->Forward(-1, 0).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ((*model)->Forward(1, 512).status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(absl::StrContains((*model)->Forward(1, 512).status().message(), "512"));

  // A matrix with the wrong shape is named.
  checkpoint::TensorDict bad = dict;
  ASSERT_TRUE(bad.Set("blk.1.ffn_up.weight", *Tensor::Full({3, 64}, 0.0f)).ok());
  absl::StatusOr<std::unique_ptr<llm::Model>> r = llm::Model::Load(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(r.status().message(), "blk.1.ffn_up.weight")) << r.status();
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
