#include "examples/tinystories/llama.h"

#include <memory>
#include <string>

#include "examples/tinystories/generate.h"
#include "examples/tinystories/rules.h"
#include "examples/tinystories/testing.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace tinystories {
namespace {

using testing::ReadGolden;
using testing::TestDataPath;

TEST(LlamaTest, LoadsStories260KHeader) {
  absl::StatusOr<LlamaWeights> w = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->config.dim, 64);
  EXPECT_EQ(w->config.hidden_dim, 172);
  EXPECT_EQ(w->config.n_layers, 5);
  EXPECT_EQ(w->config.n_heads, 8);
  EXPECT_EQ(w->config.n_kv_heads, 4);
  EXPECT_EQ(w->config.vocab_size, 512);
  EXPECT_EQ(w->config.seq_len, 512);
  EXPECT_TRUE(w->config.shared_classifier);
  EXPECT_EQ(w->tensors.size(), 2u + 9u * 5u);
  EXPECT_TRUE(w->Validate().ok());
}

// f32 + greedy: the same tokens as llama2.c's run.c, for every golden prompt (256 steps).
class GreedyGoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GreedyGoldenTest, TokensEqualRunC) {
  absl::StatusOr<LlamaWeights> w = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(w.ok()) << w.status();
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(TestDataPath("tests/testdata/tok512.bin"), 512);
  ASSERT_TRUE(tok.ok()) << tok.status();
  absl::StatusOr<testing::GoldenRun> golden = ReadGolden(GetParam());
  ASSERT_TRUE(golden.ok()) << golden.status();
  absl::StatusOr<std::unique_ptr<LlamaModel>> model = LlamaModel::Create(*w);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Sampler> sampler = Sampler::Create(512, {0.0f, 0.9f, 1});
  ASSERT_TRUE(sampler.ok());
  // Recover the prompt text from the golden ids (decoding is tested separately).
  std::string prompt;
  for (size_t i = 1; i < golden->prompt_ids.size(); ++i) {
    prompt += tok->Decode(golden->prompt_ids[i - 1], golden->prompt_ids[i]);
  }
  absl::StatusOr<GenerateResult> r = Generate(**model, *tok, *sampler, prompt, 256);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->prompt_tokens, golden->prompt_ids);
  EXPECT_EQ(r->tokens, golden->tokens);
  EXPECT_EQ(r->text, golden->text);
  EXPECT_GE(r->tokens.size(), 200u);
}

INSTANTIATE_TEST_SUITE_P(Prompts, GreedyGoldenTest,
                         ::testing::Values("once_upon_a_time", "lily_wanted", "the_cat", "empty"));

TEST(LlamaTest, SampledRunsEqualRunC) {
  absl::StatusOr<LlamaWeights> w = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(w.ok());
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(TestDataPath("tests/testdata/tok512.bin"), 512);
  ASSERT_TRUE(tok.ok());
  struct Case {
    const char* stem;
    const char* prompt;
    SamplerOptions options;
  };
  for (const Case& c : {Case{"sampled_t08_p09_s42", "Once upon a time", {0.8f, 0.9f, 42}},
                        Case{"sampled_t1_p0_s7", "The cat", {1.0f, 0.0f, 7}}}) {
    absl::StatusOr<testing::GoldenRun> golden = ReadGolden(c.stem);
    ASSERT_TRUE(golden.ok());
    absl::StatusOr<std::unique_ptr<LlamaModel>> model = LlamaModel::Create(*w, {2});
    ASSERT_TRUE(model.ok());
    absl::StatusOr<Sampler> sampler = Sampler::Create(512, c.options);
    ASSERT_TRUE(sampler.ok());
    absl::StatusOr<GenerateResult> r = Generate(**model, *tok, *sampler, c.prompt, 256);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->tokens, golden->tokens) << c.stem;
    EXPECT_EQ(r->text, golden->text) << c.stem;
  }
}

TEST(LlamaTest, RejectsBadPositionsAndTokens) {
  absl::StatusOr<LlamaWeights> w = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(w.ok());
  absl::StatusOr<std::unique_ptr<LlamaModel>> model = LlamaModel::Create(*w);
  ASSERT_TRUE(model.ok());
  EXPECT_EQ((*model)->Forward(512, 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*model)->Forward(1, 512).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LlamaModel::Create(*w, {0}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(LlamaTest, BinRoundTrip) {
  absl::StatusOr<LlamaWeights> w = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(w.ok());
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/copy.bin";
  ASSERT_TRUE(SaveLlama2cBin(*w, path).ok());
  absl::StatusOr<std::string> a = testing::ReadFile(path);
  absl::StatusOr<std::string> b = testing::ReadFile(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(a.ok() && b.ok());
  // Identical except the legacy RoPE tables, which are written as zeros.
  ASSERT_EQ(a->size(), b->size());
  absl::StatusOr<LlamaWeights> back = LoadLlama2cBin(path);
  ASSERT_TRUE(back.ok());
  for (const auto& [name, t] : w->tensors) {
    EXPECT_EQ(t.bytes().size(), back->tensors.at(name).bytes().size());
    EXPECT_EQ(0, std::memcmp(t.raw_data(), back->tensors.at(name).raw_data(), t.size_bytes()))
        << name;
  }
}

// Quantized weights: logits stay close to f32's at every position of a golden run.
TEST(LlamaTest, QuantizedLogitsTrackF32) {
  absl::StatusOr<LlamaWeights> w = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(w.ok());
  absl::StatusOr<testing::GoldenRun> golden = ReadGolden("once_upon_a_time");
  ASSERT_TRUE(golden.ok());
  absl::StatusOr<std::unique_ptr<LlamaModel>> ref = LlamaModel::Create(*w);
  ASSERT_TRUE(ref.ok());
  for (const char* enc : {"bf16", "q8_0", "q4_0"}) {
    absl::StatusOr<std::vector<Rule>> rules = DefaultRules(enc);
    ASSERT_TRUE(rules.ok());
    absl::StatusOr<LlamaWeights> q = QuantizeWeights(*w, *rules, nullptr);
    ASSERT_TRUE(q.ok()) << q.status();
    absl::StatusOr<std::unique_ptr<LlamaModel>> model = LlamaModel::Create(*q);
    ASSERT_TRUE(model.ok()) << model.status();
    absl::StatusOr<std::unique_ptr<LlamaModel>> f32 = LlamaModel::Create(*w);
    ASSERT_TRUE(f32.ok());
    int same_argmax = 0;
    const int n = 64;
    for (int pos = 0; pos < n; ++pos) {
      absl::StatusOr<absl::Span<float>> a = (*f32)->Forward(golden->tokens[pos], pos);
      absl::StatusOr<absl::Span<float>> b = (*model)->Forward(golden->tokens[pos], pos);
      ASSERT_TRUE(a.ok() && b.ok());
      int am = 0, bm = 0;
      for (int i = 1; i < 512; ++i) {
        if ((*a)[i] > (*a)[am]) am = i;
        if ((*b)[i] > (*b)[bm]) bm = i;
      }
      same_argmax += am == bm;
    }
    EXPECT_GE(same_argmax, std::string(enc) == "q4_0" ? 40 : 55) << enc;
  }
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
