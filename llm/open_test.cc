#include "llm/open.h"

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "checkpoint/formats.h"
#include "checkpoint/tensor_dict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llm/chat_template.h"
#include "llm/random_model.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace llm {
namespace {

using ::testing::HasSubstr;

// A 2-layer stories15M-shaped model of 300 tokens; with `vocab`, the synthetic SentencePiece
// vocabulary and a chat template; written as TEST_TMPDIR/NAME.gguf.
std::string WriteModel(const std::string& name, bool vocab, bool chat_template = false) {
  RandomModelSpec s = *RandomModelPreset("stories15m");
  s.dim = 32, s.layers = 2, s.heads = 2, s.kv_heads = 2, s.ffn = 48, s.vocab = 300;
  s.context = 64, s.seed = 5;
  absl::StatusOr<checkpoint::TensorDict> v = SyntheticSpmVocabulary(300);
  EXPECT_TRUE(v.ok()) << v.status();
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s, vocab ? &*v : nullptr);
  EXPECT_TRUE(d.ok()) << d.status();
  if (chat_template) {
    d->SetMetadata("tokenizer.chat_template",
                   checkpoint::MetadataValue::String(
                       "{{ bos_token }}{% for m in messages %}[{{ m.role }}] {{ m.content }}"
                       "{{ eos_token }}{% endfor %}"));
  }
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".gguf";
  EXPECT_TRUE(checkpoint::WriteCheckpoint(*d, path).ok());
  return path;
}

TEST(OpenTest, GivesModelTokenizerAndTemplateOfTheFile) {
  const std::string path = WriteModel("full", /*vocab=*/true, /*chat_template=*/true);
  OpenOptions o;
  o.chat_template = true;
  o.model.context_length = 32;
  absl::StatusOr<OpenedModel> m = Open(path, o);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_NE(m->model, nullptr);
  EXPECT_EQ(m->model->context_length(), 32);
  EXPECT_EQ(m->config.vocab_size, 300);
  EXPECT_EQ(m->model->config().vocab_size, 300);
  ASSERT_NE(m->tokenizer, nullptr);
  ASSERT_NE(m->tokenizer->vocabulary(), nullptr);
  EXPECT_EQ(m->tokenizer->bos(), 1);
  EXPECT_EQ(m->tokenizer->eos(), 2);
  ASSERT_NE(m->chat_template, nullptr);
  absl::StatusOr<std::string> text = m->chat_template->Render({{"user", "hi"}}, false);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "<s>[user] hi</s>");
  // The dict's copies of the vocabulary's arrays are gone (the tokenizer has its own); the
  // tokenizer's other keys stay.
  for (const char* key :
       {"tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"}) {
    EXPECT_FALSE(m->file.dict.HasMetadata(key)) << key;
  }
  EXPECT_TRUE(m->file.dict.HasMetadata("tokenizer.ggml.model"));
  EXPECT_EQ(m->tokenizer->vocabulary()->n_tokens(), 300);

  // The model is the one Model::Load makes of the same file: bit-identical logits.
  absl::StatusOr<std::unique_ptr<Model>> direct = Model::Load(path, o.model);
  ASSERT_TRUE(direct.ok()) << direct.status();
  const std::vector<int> ids = {1, 100, 7};
  absl::StatusOr<absl::Span<const float>> a = m->model->Prefill(ids, 0);
  ASSERT_TRUE(a.ok()) << a.status();
  const std::vector<float> got(a->begin(), a->end());
  absl::StatusOr<absl::Span<const float>> b = (*direct)->Prefill(ids, 0);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(got, std::vector<float>(b->begin(), b->end()));
}

TEST(OpenTest, OpenFileLeavesTheModelToLoadModel) {
  const std::string path = WriteModel("deferred", true);
  absl::StatusOr<OpenedModel> m = OpenFile(path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->model, nullptr);
  EXPECT_EQ(m->chat_template, nullptr);
  ASSERT_NE(m->tokenizer, nullptr);
  ModelOptions mo;
  mo.context_length = 16;
  ASSERT_TRUE(m->LoadModel(mo).ok());
  ASSERT_NE(m->model, nullptr);
  EXPECT_EQ(m->model->context_length(), 16);
}

TEST(OpenTest, AnAlreadyOpenedCheckpoint) {
  const std::string path = WriteModel("preopened", true);
  absl::StatusOr<checkpoint::OpenedCheckpoint> file = checkpoint::OpenCheckpoint(path);
  ASSERT_TRUE(file.ok()) << file.status();
  OpenOptions o;
  o.model.context_length = 8;
  absl::StatusOr<OpenedModel> m = Open(path, *std::move(file), o);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->path, path);
  ASSERT_NE(m->model, nullptr);
  EXPECT_EQ(m->model->context_length(), 8);
  EXPECT_EQ(m->config.vocab_size, 300);
  ASSERT_NE(m->tokenizer, nullptr);
  EXPECT_EQ(m->tokenizer->bos(), 1);
}

TEST(OpenTest, TokenizerUseWithoutAVocabulary) {
  const std::string path = WriteModel("novocab", /*vocab=*/false);
  OpenOptions o;
  absl::Status s = Open(path, o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("novocab.gguf' carries no vocabulary"));

  o.tokenizer = TokenizerUse::kModelsOwn;
  s = Open(path, o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("novocab.gguf' carries no vocabulary (tokenizer.ggml.*); chat needs the "
                        "model's own"));

  for (TokenizerUse use : {TokenizerUse::kIfPresent, TokenizerUse::kNone}) {
    o.tokenizer = use;
    absl::StatusOr<OpenedModel> m = Open(path, o);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->tokenizer, nullptr);
    EXPECT_NE(m->model, nullptr);
  }
}

TEST(OpenTest, ChatTemplateAskedOfAFileWithoutOne) {
  const std::string path = WriteModel("notmpl", true);
  OpenOptions o;
  o.chat_template = true;
  absl::Status s = OpenFile(path, o).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("notmpl.gguf' carries no tokenizer.chat_template"));
}

TEST(OpenTest, ErrorsNameTheFile) {
  absl::Status s = Open("/nonexistent/m.gguf").status();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("/nonexistent/m.gguf"));

  // A configuration error is prefixed with the path.
  checkpoint::TensorDict d;
  d.SetMetadata("general.architecture", checkpoint::MetadataValue::String("nosucharch"));
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/badarch.gguf";
  ASSERT_TRUE(checkpoint::WriteCheckpoint(d, path).ok());
  s = Open(path).status();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr(path + ": "));
  EXPECT_THAT(std::string(s.message()), HasSubstr("nosucharch"));
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
