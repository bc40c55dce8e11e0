// llama.cpp's vocabulary test vectors (../shared/vocab/ggml-vocab-NAME.gguf with .inp/.out,
// made by each model's Hugging Face tokenizer): every string must encode to exactly the ids of
// its .out line, read as llama.cpp's tests/test-tokenizer-0.cpp does (strings separated by
// "\n__ggml_vocab_test__\n", no BOS/EOS, special tokens not parsed), and decode back to itself.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Case {
  std::string text;
  std::vector<int32_t> ids;
};

std::vector<Case> ReadCases(const std::string& inp_path, const std::string& out_path) {
  const std::string raw = ReadFile(inp_path);
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> inputs;
  size_t pos = 0;
  while (pos < raw.size()) {
    const size_t next = raw.find(sep, pos);
    if (next == std::string::npos) {
      inputs.push_back(raw.substr(pos));
      break;
    }
    inputs.push_back(raw.substr(pos, next - pos));
    pos = next + sep.size();
  }
  std::vector<std::string> lines = absl::StrSplit(ReadFile(out_path), '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  std::vector<Case> cases;
  if (lines.size() != inputs.size()) {
    ADD_FAILURE() << inp_path << " has " << inputs.size() << " strings but " << out_path << " has "
                  << lines.size() << " lines";
    return cases;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    Case c;
    c.text = inputs[i];
    for (absl::string_view tok :
         absl::StrSplit(absl::StripAsciiWhitespace(lines[i]), ' ', absl::SkipEmpty())) {
      int32_t id = 0;
      EXPECT_TRUE(absl::SimpleAtoi(tok, &id)) << out_path << " line " << i + 1;
      c.ids.push_back(id);
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// True if `s` is complete, valid UTF-8.
bool ValidUtf8(const std::string& s) {
  const CodePoints cp = DecodeUtf8(s);
  for (size_t i = 0; i < cp.cps.size(); ++i) {
    if (cp.cps[i] == 0xFFFD && s.compare(cp.offsets[i], 3, "\xef\xbf\xbd") != 0) return false;
  }
  return true;
}

std::string Ids(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += std::to_string(id) + " ";
  return s;
}

class VocabTest : public ::testing::TestWithParam<const char*> {};

TEST_P(VocabTest, EncodesAsLlamaCppExpects) {
  const std::string name = GetParam();
  const std::string base = "vocab/ggml-vocab-" + name + ".gguf";
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf, base);
  EDGEQ_REFERENCE_DATA_OR_SKIP(inp, base + ".inp");
  EDGEQ_REFERENCE_DATA_OR_SKIP(out, base + ".out");
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromGgufFile(gguf);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const std::vector<Case> cases = ReadCases(inp, out);
  ASSERT_FALSE(cases.empty());
  int encoded_ok = 0, decoded_ok = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<int32_t>> ids =
        tok->Encode(c.text, {.add_special = false, .parse_special = false});
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ(*ids, c.ids) << name << ": \"" << c.text << "\"\n  got      " << Ids(*ids)
                           << "\n  expected " << Ids(c.ids);
    encoded_ok += *ids == c.ids;
    // Lossless: the pieces (without the clean-up of spaces) give back the text. Not for
    // WordPiece, which lower-cases, strips accents and drops whitespace.
    if (tok->model() != Tokenizer::Model::kWpm) {
      const std::string back = tok->Decode(c.ids, {.clean_spaces = false});
      EXPECT_EQ(back, c.text) << name << ": decoding the expected ids";
      decoded_ok += back == c.text;
    }
    // Streamed one id at a time: every chunk is whole characters, and together they are the
    // pieces (the SPM space prefix included).
    StreamDecoder stream(*tok);
    std::string streamed;
    for (int32_t id : c.ids) {
      const std::string chunk = stream.Push(id);
      if (ValidUtf8(c.text)) {
        EXPECT_TRUE(ValidUtf8(chunk)) << name << ": \"" << c.text << "\" split a character";
      }
      streamed += chunk;
    }
    streamed += stream.Flush();
    std::string pieces;
    for (int32_t id : c.ids) pieces += tok->TokenToPiece(id, /*special=*/false);
    EXPECT_EQ(streamed, pieces) << name;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::cout << "vocab " << name << ": " << encoded_ok << "/" << cases.size()
            << " strings encode to the expected ids, "
            << (tok->model() == Tokenizer::Model::kWpm
                    ? std::string("lossy (WordPiece)")
                    : std::to_string(decoded_ok) + "/" + std::to_string(cases.size()) +
                          " decode back")
            << " (" << ms << " ms)\n";
}

INSTANTIATE_TEST_SUITE_P(LlamaCpp, VocabTest,
                         ::testing::Values("llama-spm", "phi-3", "gpt-2", "deepseek-llm",
                                           "deepseek-coder", "falcon", "starcoder", "refact", "mpt",
                                           "bert-bge"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string n = info.param;
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

// add_special adds what the file asks for: Llama 2's BOS, DeepSeek's BOS, nothing for GPT-2,
// BERT's [CLS] and [SEP].
TEST(VocabTest, AddSpecialFollowsTheFile) {
  const struct {
    const char* name;
    std::vector<int32_t> prefix;
    int32_t eog;
    std::vector<int32_t> suffix;
  } kCases[] = {{"llama-spm", {1}, 2, {}},
                {"deepseek-llm", {100000}, 100001, {}},
                {"gpt-2", {}, 50256, {}},
                {"bert-bge", {101}, -1, {102}}};  // [CLS] ... [SEP]
  for (const auto& c : kCases) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(gguf, std::string("vocab/ggml-vocab-") + c.name + ".gguf");
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromGgufFile(gguf);
    ASSERT_TRUE(tok.ok()) << tok.status();
    absl::StatusOr<std::vector<int32_t>> plain = tok->Encode("Hello", {.add_special = false});
    absl::StatusOr<std::vector<int32_t>> with = tok->Encode("Hello", {.add_special = true});
    ASSERT_TRUE(plain.ok() && with.ok());
    std::vector<int32_t> expected = c.prefix;
    expected.insert(expected.end(), plain->begin(), plain->end());
    expected.insert(expected.end(), c.suffix.begin(), c.suffix.end());
    EXPECT_EQ(*with, expected) << c.name;
    if (c.eog >= 0) {
      EXPECT_TRUE(tok->IsEndOfGeneration(c.eog)) << c.name;
    }
    EXPECT_FALSE(tok->IsEndOfGeneration((*plain)[0])) << c.name;
  }
}

// Vocabularies without test vectors: they load, and text round-trips through them.
TEST(VocabTest, GptNeoxAndBaichuanLoadAndRoundTrip) {
  for (const char* name : {"gpt-neox", "baichuan"}) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(gguf, std::string("vocab/ggml-vocab-") + name + ".gguf");
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromGgufFile(gguf);
    ASSERT_TRUE(tok.ok()) << tok.status();
    for (const char* text :
         {"Hello world", " leading space", "caf\xc3\xa9 \xf0\x9f\xa6\x99 \xe6\x97\xa5\xe6\x9c\xac",
          "tabs\t\tnewlines\n\n 1234567"}) {
      absl::StatusOr<std::vector<int32_t>> ids = tok->Encode(text, {.add_special = false});
      ASSERT_TRUE(ids.ok()) << ids.status();
      EXPECT_FALSE(ids->empty());
      EXPECT_EQ(tok->Decode(*ids, {.clean_spaces = false}), text) << name;
    }
  }
}

}  // namespace
}  // namespace tokenizer
}  // namespace edgeq
