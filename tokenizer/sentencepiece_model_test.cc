// The tokenizer.model reader: a SentencePiece ModelProto written here (sentencepiece_testing.h)
// from the vocabulary of llama.cpp's ggml-vocab-llama-spm.gguf (its converter's output for
// Llama 2's tokenizer.model) must load into the same vocabulary and tokenize llama.cpp's test
// strings as its .out file says; malformed and unsupported files are refused naming the problem.
#include "tokenizer/sentencepiece_model.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"
#include "tokenizer/sentencepiece_testing.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace tokenizer {
namespace {

using Spec = SentencePieceSpec;

std::string ModelProto(const std::vector<std::string>& pieces, const std::vector<double>& scores,
                       const std::vector<int64_t>& types, const Spec& spec) {
  return SentencePieceModelProto(pieces, scores, types, spec);
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A tiny model: <unk> <s> </s>, 256 byte pieces, then "▁a" and "b".
std::string TinyModel(const Spec& spec = Spec()) {
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
  std::vector<double> scores = {0, 0, 0};
  std::vector<int64_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char buf[8];
    std::snprintf(buf, sizeof(buf), "<0x%02X>", b);
    pieces.push_back(buf), scores.push_back(0), types.push_back(6);
  }
  pieces.push_back(
      "\xe2\x96\x81"
      "a"),
      scores.push_back(-1), types.push_back(1);
  pieces.push_back("b"), scores.push_back(-2), types.push_back(4);
  return ModelProto(pieces, scores, types, spec);
}

TEST(SentencePieceModelTest, ReadsPiecesAndSpecs) {
  absl::StatusOr<SentencePieceModel> m = ParseSentencePieceModel(TinyModel(), "tiny.model");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->pieces.size(), 261u);
  EXPECT_EQ(m->pieces[259].text,
            "\xe2\x96\x81"
            "a");
  EXPECT_EQ(m->pieces[259].score, -1.0f);
  EXPECT_EQ(m->pieces[260].type, SentencePieceModel::kUserDefined);
  EXPECT_EQ(m->pieces[3].type, SentencePieceModel::kByte);
  EXPECT_EQ(m->model_type, SentencePieceModel::kBpe);
  EXPECT_TRUE(m->byte_fallback);
  EXPECT_EQ(m->unk_id, 0);
  EXPECT_EQ(m->bos_id, 1);
  EXPECT_EQ(m->eos_id, 2);
  EXPECT_EQ(m->pad_id, -1);
  EXPECT_EQ(m->normalizer_name, "identity");
  EXPECT_TRUE(m->add_dummy_prefix);
  EXPECT_FALSE(m->remove_extra_whitespaces);

  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromSentencePieceModel(WriteTemp("tiny.model", TinyModel()));
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->model_name(), "llama");
  // As llama.cpp's converter: user-defined pieces become normal tokens.
  EXPECT_EQ(tok->token_attr(260), static_cast<uint32_t>(kAttrNormal));
  absl::StatusOr<std::vector<int32_t>> ids = tok->Encode("a b", {.add_special = true});
  ASSERT_TRUE(ids.ok()) << ids.status();
  // <s> "▁a" then "▁" (no such piece: byte 0xE2 0x96 0x81) and "b".
  EXPECT_EQ(*ids, std::vector<int32_t>({1, 259, 3 + 0xE2, 3 + 0x96, 3 + 0x81, 260}));
}

TEST(SentencePieceModelTest, MalformedFilesAreRefusedWithTheByteOffset) {
  const std::string good = TinyModel();
  struct Case {
    std::string bytes;
    const char* message;
  } cases[] = {
      {std::string("\x0a\xff", 2), "x.model: malformed protobuf at byte 1: truncated varint"},
      {std::string("\x0a\x05"
                   "ab",
                   4),
       "x.model: malformed protobuf at byte 0: a length of 5 bytes runs past the end"},
      {std::string("\x0b", 1), "malformed protobuf at byte 0: wire type 3 (expected 0, 1, 2 or 5"},
      {std::string("\x00\x01", 2), "malformed protobuf at byte 0: field number 0"},
      {std::string("\x08\x01", 2), "pieces (field 1) has wire type 0, expected 2"},
      {std::string("\x0a\x02\x18\x09", 4), "malformed protobuf at byte 2: piece type 9"},
      {std::string("\x0a\x0b\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 13),
       "at byte 3: varint above 2^64"},
      {good.substr(0, good.size() - 3), "malformed protobuf at byte"},
      {"", "x.model: no pieces"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<SentencePieceModel> m = ParseSentencePieceModel(c.bytes, "x.model");
    EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_TRUE(absl::StrContains(m.status().message(), c.message)) << m.status();
  }
}

TEST(SentencePieceModelTest, ModelsEdgeqCannotRunAreRefusedNamingWhy) {
  Spec unigram;
  unigram.model_type = 1;
  Spec nfkc;
  nfkc.normalizer = "nmt_nfkc";
  Spec ws;
  ws.remove_extra_whitespaces = true;
  const struct {
    Spec spec;
    const char* message;
  } cases[] = {
      {unigram, "model_type UNIGRAM is not supported (supported: BPE)"},
      {nfkc, "normalizer 'nmt_nfkc' (0 bytes of precompiled rules) is not supported"},
      {ws, "remove_extra_whitespaces true is not supported (expected false)"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<Tokenizer> tok =
        Tokenizer::FromSentencePieceModel(WriteTemp("bad.model", TinyModel(c.spec)));
    EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_TRUE(absl::StrContains(tok.status().message(), c.message)) << tok.status();
  }
  EXPECT_EQ(Tokenizer::FromSentencePieceModel("/nonexistent/tokenizer.model").status().code(),
            absl::StatusCode::kNotFound);
}

// A Hugging Face directory: tokenizer.json wins; without it tokenizer.model is read, with
// tokenizer_config.json's add_bos_token and added_tokens_decoder applied as llama.cpp's converter
// does; with neither, NotFound naming the directory.
TEST(SentencePieceModelTest, HfDirectoryReadsTokenizerModelWithItsConfig) {
  const std::string dir = ::testing::TempDir() + "/spm_dir";
  ::mkdir(dir.c_str(), 0755);
  EXPECT_EQ(Tokenizer::FromHfDirectory(dir).status().code(), absl::StatusCode::kNotFound);
  WriteTemp("spm_dir/tokenizer.model", TinyModel());
  WriteTemp("spm_dir/tokenizer_config.json",
            R"({"add_bos_token": false, "added_tokens_decoder": {)"
            R"("260": {"content": "<tool>", "special": true},)"
            R"("259": {"content": "\u2581x", "special": false}}})");
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfDirectory(dir);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->model_name(), "llama");
  EXPECT_FALSE(tok->add_bos());
  EXPECT_EQ(tok->token_text(260), "<tool>");
  EXPECT_EQ(tok->token_attr(260), static_cast<uint32_t>(kAttrControl));
  EXPECT_EQ(tok->token_score(260), -1000.0f);
  EXPECT_EQ(tok->token_text(259), " x");  // user-defined: "▁" as a space, as the converter
  EXPECT_EQ(tok->token_attr(259), static_cast<uint32_t>(kAttrUserDefined));
  absl::StatusOr<std::vector<int32_t>> ids =
      tok->Encode("<tool>", {.add_special = true, .parse_special = true});
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(*ids, std::vector<int32_t>({260}));
  WriteTemp("spm_dir/tokenizer_config.json", R"({"add_bos_token": "no"})");
  EXPECT_TRUE(absl::StrContains(Tokenizer::FromHfDirectory(dir).status().message(),
                                "key \"add_bos_token\" is 'no', expected true or false"));
  // A tokenizer.json beside it is read instead (and here refused, naming that file).
  WriteTemp("spm_dir/tokenizer.json", R"({"model": {"type": "Unigram"}})");
  EXPECT_TRUE(absl::StrContains(Tokenizer::FromHfDirectory(dir).status().message(),
                                "tokenizer.json: model type \"Unigram\" is not supported"));
}

// Llama 2's vocabulary as llama.cpp's converter wrote it, back through tokenizer.model.
TEST(SentencePieceModelTest, LlamaSpmVocabularyRoundTripsAndTokenizesAsLlamaCpp) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf, "vocab/ggml-vocab-llama-spm.gguf");
  EDGEQ_REFERENCE_DATA_OR_SKIP(inp, "vocab/ggml-vocab-llama-spm.gguf.inp");
  EDGEQ_REFERENCE_DATA_OR_SKIP(out, "vocab/ggml-vocab-llama-spm.gguf.out");
  absl::StatusOr<Tokenizer> ref = Tokenizer::FromGgufFile(gguf);
  ASSERT_TRUE(ref.ok()) << ref.status();
  std::vector<std::string> pieces;
  std::vector<double> scores;
  std::vector<int64_t> types;
  checkpoint::TensorDict ref_dict;
  ASSERT_TRUE(ref->ToGgufMetadata(&ref_dict).ok());
  pieces = (*ref_dict.GetMetadata("tokenizer.ggml.tokens"))->strings();
  scores = (*ref_dict.GetMetadata("tokenizer.ggml.scores"))->floats();
  types = (*ref_dict.GetMetadata("tokenizer.ggml.token_type"))->ints();
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromSentencePieceModel(
      WriteTemp("llama-spm.model", ModelProto(pieces, scores, types, Spec())));
  ASSERT_TRUE(tok.ok()) << tok.status();
  checkpoint::TensorDict dict;
  ASSERT_TRUE(tok->ToGgufMetadata(&dict).ok());
  for (const char* key : {"tokenizer.ggml.model", "tokenizer.ggml.tokens", "tokenizer.ggml.scores",
                          "tokenizer.ggml.token_type", "tokenizer.ggml.bos_token_id",
                          "tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id",
                          "tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token"}) {
    ASSERT_TRUE(dict.HasMetadata(key)) << key;
    EXPECT_TRUE(**dict.GetMetadata(key) == **ref_dict.GetMetadata(key)) << key;
  }
  EXPECT_FALSE(dict.HasMetadata("tokenizer.ggml.padding_token_id"));
  // llama.cpp's test strings.
  const std::string raw = ReadFile(inp);
  std::vector<std::string> texts = absl::StrSplit(raw, "\n__ggml_vocab_test__\n");
  std::vector<std::string> lines = absl::StrSplit(ReadFile(out), '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (texts.size() == lines.size() + 1 && texts.back().empty()) texts.pop_back();
  ASSERT_EQ(texts.size(), lines.size());
  ASSERT_GE(texts.size(), 40u);
  for (size_t i = 0; i < texts.size(); ++i) {
    std::vector<int32_t> expected;
    for (absl::string_view t :
         absl::StrSplit(absl::StripAsciiWhitespace(lines[i]), ' ', absl::SkipEmpty())) {
      int32_t id = 0;
      ASSERT_TRUE(absl::SimpleAtoi(t, &id));
      expected.push_back(id);
    }
    absl::StatusOr<std::vector<int32_t>> ids = tok->Encode(texts[i], {.add_special = false});
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ(*ids, expected) << "string " << i << ": \"" << texts[i] << "\"";
  }
}

}  // namespace
}  // namespace tokenizer
}  // namespace edgeq
