// The Quantize-TinyStories pipeline end to end, against llama2.c's run.c: stories260K imported
// from its llama2.c .bin, from its GGUF (with the GGUF's own vocabulary) and from a .max the
// pipeline saved and loaded back, generates run.c's exact tokens and text (greedy and sampled);
// quantized models survive a .max round trip unchanged; bad input gets clear errors.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/formats.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/max_format.h"
#include "checkpoint/quantize_rules.h"
#include "examples/tinystories/generate.h"
#include "examples/tinystories/sampler.h"
#include "examples/tinystories/testing.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "tests/util/reference_data.h"
#include "tokenizer/llama2c.h"

namespace edgeq {
namespace tinystories {
namespace {

using testing::ReadGolden;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

checkpoint::TensorDict Open(const std::string& name) {
  absl::StatusOr<checkpoint::OpenedCheckpoint> c =
      checkpoint::OpenCheckpoint(testing::ModelPath(name));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(c->dict) : checkpoint::TensorDict();
}

tokenizer::Llama2cTokenizer Tok512() {
  absl::StatusOr<tokenizer::Llama2cTokenizer> tok =
      tokenizer::Llama2cTokenizer::Load(testing::ModelPath("tok512.bin"), 512);
  EXPECT_TRUE(tok.ok()) << tok.status();
  return *std::move(tok);
}

// The golden run's prompt text, recovered from its ids (decoding is tested separately).
std::string PromptOf(const testing::GoldenRun& golden, const tokenizer::Llama2cTokenizer& tok) {
  std::string prompt;
  for (size_t i = 1; i < golden.prompt_ids.size(); ++i) {
    prompt += tok.Decode(golden.prompt_ids[i - 1], golden.prompt_ids[i]);
  }
  return prompt;
}

// Generates with `options` from `dict` and expects run.c's tokens and text for `stem`.
void ExpectGolden(const checkpoint::TensorDict& dict, const tokenizer::Llama2cTokenizer& tok,
                  const std::string& stem, const SamplerOptions& options, int threads = 1) {
  absl::StatusOr<testing::GoldenRun> golden = ReadGolden(stem);
  ASSERT_TRUE(golden.ok()) << golden.status();
  absl::StatusOr<std::unique_ptr<llm::Model>> model =
      llm::Model::Load(dict, {.num_threads = threads, .kv_cache_type = llm::KvCacheType::kF32});
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Sampler> sampler = Sampler::Create(512, options);
  ASSERT_TRUE(sampler.ok());
  absl::StatusOr<GenerateResult> r = Generate(**model, tok, *sampler, PromptOf(*golden, tok), 256);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->prompt_tokens, golden->prompt_ids) << stem;
  EXPECT_EQ(r->tokens, golden->tokens) << stem;
  EXPECT_EQ(r->text, golden->text) << stem;
  EXPECT_GE(r->tokens.size(), 200u) << stem;
  EXPECT_EQ(r->prompt_steps, static_cast<int>(golden->prompt_ids.size()));
}

const char* const kGreedy[] = {"once_upon_a_time", "lily_wanted", "the_cat", "empty"};
constexpr SamplerOptions kGreedyOptions = {0.0f, 0.9f, 1};

TEST(PipelineTest, Llama2cBinGreedyEqualsRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Open("stories260K.bin");
  const tokenizer::Llama2cTokenizer tok = Tok512();
  for (const char* stem : kGreedy) ExpectGolden(dict, tok, stem, kGreedyOptions);
}

TEST(PipelineTest, GgufWithItsOwnVocabularyEqualsRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Open("stories260K.gguf");
  absl::StatusOr<tokenizer::Llama2cTokenizer> tok = tokenizer::Llama2cTokenizer::FromMetadata(dict);
  ASSERT_TRUE(tok.ok()) << tok.status();
  for (const char* stem : kGreedy) ExpectGolden(dict, *tok, stem, kGreedyOptions);
}

TEST(PipelineTest, SampledRunsEqualRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Open("stories260K.bin");
  const tokenizer::Llama2cTokenizer tok = Tok512();
  ExpectGolden(dict, tok, "sampled_t08_p09_s42", {0.8f, 0.9f, 42});
  ExpectGolden(dict, tok, "sampled_t1_p0_s7", {1.0f, 0.0f, 7}, /*threads=*/2);
}

// f32 saved as .max with the tokenizer, loaded back (mmap): still run.c's tokens, and the
// vocabulary comes from the file.
TEST(PipelineTest, ReloadedMaxEqualsRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  checkpoint::TensorDict dict = Open("stories260K.bin");
  Tok512().ToMetadata(dict);
  const std::string path = TempPath("stories260K_f32.max");
  ASSERT_TRUE(checkpoint::Save(dict, path).ok());
  absl::StatusOr<checkpoint::TensorDict> loaded = checkpoint::Load(path, {.verify_data = true});
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<tokenizer::Llama2cTokenizer> tok =
      tokenizer::Llama2cTokenizer::FromMetadata(*loaded);
  ASSERT_TRUE(tok.ok()) << tok.status();
  for (const char* stem : kGreedy) ExpectGolden(*loaded, *tok, stem, kGreedyOptions);
}

// Default rules (every matrix q4_0 where k fits, else q8_0/bf16): the quantized model generates
// the same tokens before and after a .max round trip, and stays close to f32.
TEST(PipelineTest, QuantizedMaxRoundTripGeneratesTheSameTokens) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict f32 = Open("stories260K.bin");
  std::vector<checkpoint::QuantizeDecision> decisions;
  absl::StatusOr<checkpoint::TensorDict> q =
      checkpoint::QuantizeDict(f32, *checkpoint::DefaultQuantizeRules("q4_0"), &decisions);
  ASSERT_TRUE(q.ok()) << q.status();
  int fallbacks = 0;
  for (const checkpoint::QuantizeDecision& d : decisions) {
    if (absl::StrContains(d.name, "ffn_down")) {
      // hidden = 172: neither q4_0 nor q8_0 blocks fit.
      EXPECT_EQ(d.chosen, "bf16") << d.name;
      EXPECT_EQ(d.note, "k = 172 is not a multiple of 32") << d.name;
      ++fallbacks;
    }
  }
  EXPECT_EQ(fallbacks, 5);
  EXPECT_EQ((**q->Get("blk.0.attn_q.weight")).encoding(), "q4_0");
  EXPECT_EQ((**q->Get("token_embd.weight")).encoding(), "q4_0");
  EXPECT_LT(q->TotalBytes(), f32.TotalBytes() / 4);

  const std::string path = TempPath("stories260K_q4_0.max");
  ASSERT_TRUE(checkpoint::Save(*q, path).ok());
  absl::StatusOr<checkpoint::TensorDict> loaded = checkpoint::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const tokenizer::Llama2cTokenizer tok = Tok512();
  auto greedy = [&](const checkpoint::TensorDict& dict) {
    absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(dict);
    EXPECT_TRUE(model.ok()) << model.status();
    Sampler sampler = *Sampler::Create(512, kGreedyOptions);
    absl::StatusOr<GenerateResult> r = Generate(**model, tok, sampler, "Once upon a time", 128);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->tokens : std::vector<int>();
  };
  const std::vector<int> before = greedy(*q);
  EXPECT_EQ(greedy(*loaded), before);
  ASSERT_GE(before.size(), 100u);
  // Q4_0 changes the story, but not from the first tokens on.
  absl::StatusOr<testing::GoldenRun> golden = ReadGolden("once_upon_a_time");
  ASSERT_TRUE(golden.ok());
  size_t same_prefix = 0;
  while (same_prefix < before.size() && before[same_prefix] == golden->tokens[same_prefix]) {
    ++same_prefix;
  }
  EXPECT_GE(same_prefix, 10u);
}

TEST(PipelineTest, BadInputIsAClearError) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/stories260K.bin");
  const checkpoint::TensorDict dict = Open("stories260K.bin");
  const tokenizer::Llama2cTokenizer tok = Tok512();
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(dict);
  ASSERT_TRUE(model.ok());
  Sampler sampler = *Sampler::Create(512, kGreedyOptions);

  // A prompt longer than the context (512).
  std::string long_prompt;
  for (int i = 0; i < 600; ++i) long_prompt += "Once ";
  absl::Status s = Generate(**model, tok, sampler, long_prompt, 256).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "context holds 512")) << s;

  // A tokenizer of another vocabulary size.
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>", "a"};
  absl::StatusOr<tokenizer::Llama2cTokenizer> small =
      tokenizer::Llama2cTokenizer::FromPieces(pieces, {0, 0, 0, 0});
  ASSERT_TRUE(small.ok());
  s = Generate(**model, *small, sampler, "a", 16).status();
  EXPECT_TRUE(absl::StrContains(s.message(), "mismatched tokenizer")) << s;
  EXPECT_EQ(
      tokenizer::Llama2cTokenizer::Load(testing::ModelPath("tok512.bin"), 32000).status().code(),
      absl::StatusCode::kInvalidArgument);

  // A model whose tensors do not match its header.
  checkpoint::TensorDict bad = dict;
  ASSERT_TRUE(bad.Set("blk.2.attn_k.weight", *Tensor::Full({64, 64}, 0.0f)).ok());
  s = llm::Model::Load(bad).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "blk.2.attn_k.weight")) << s;
  EXPECT_TRUE(absl::StrContains(s.message(), "expected [32, 64]")) << s;
  checkpoint::TensorDict missing = dict;
  ASSERT_TRUE(missing.Remove("blk.4.ffn_up.weight"));
  s = llm::Model::Load(missing).status();
  EXPECT_TRUE(absl::StrContains(s.message(), "blk.4.ffn_up.weight")) << s;

  // Not a Llama: metadata missing.
  checkpoint::TensorDict no_meta;
  ASSERT_TRUE(no_meta.Set("x", *Tensor::Full({2, 2}, 0.0f)).ok());
  EXPECT_FALSE(llm::Model::Load(no_meta).ok());
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
