// Random strings of each grammar's language (walks of its rules) are accepted by the matcher;
// for JSON grammars they parse as JSON, and for converted schemas they validate. Constrained
// sampling over a small vocabulary (random choices among the allowed pieces, as a model with
// random weights would make) only ever completes valid outputs, and the mask never hides a piece
// that a valid text continues with.
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/bounded_input.h"
#include "gmock/gmock.h"
#include "grammar/gbnf.h"
#include "grammar/grammar_walk.h"
#include "grammar/json_schema.h"
#include "grammar/json_validate_testing.h"
#include "grammar/matcher.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace grammar {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kSamples = 200;

// Schemas with the converter's features; every one is walked and sampled.
const std::vector<std::string>& Schemas() {
  static const auto* s = new std::vector<std::string>{
      R"({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer",
          "minimum": 0, "maximum": 150}, "email": {"type": "string"}}, "required": ["name"]})",
      R"({"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 5})",
      R"({"enum": ["red", "green", "blue", 7, null, true]})",
      R"({"type": "object", "properties": {"id": {"type": "string", "format": "uuid"},
          "when": {"type": "string", "format": "date-time"}, "day": {"type": "string",
          "format": "date"}}, "required": ["id", "when", "day"]})",
      R"({"type": "string", "pattern": "^[A-Z][a-z]{1,8}( [A-Z][a-z]{1,8})?-\\d{2,3}$"})",
      R"({"type": "object", "properties": {"k": {"type": "boolean"}},
          "additionalProperties": {"type": "integer"}})",
      R"({"$defs": {"node": {"type": "object", "properties": {"value": {"type": "integer"},
          "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 3}},
          "required": ["value"]}}, "$ref": "#/$defs/node"})",
      R"({"oneOf": [{"type": "object", "properties": {"kind": {"const": "circle"},
          "r": {"type": "number"}}, "required": ["kind", "r"]},
          {"type": "object", "properties": {"kind": {"const": "square"},
          "side": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["kind", "side"]}]})",
      R"({"type": "array", "prefixItems": [{"type": "string", "minLength": 2, "maxLength": 6},
          {"type": ["integer", "null"]}, {"type": "boolean"}]})",
      R"({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string",
          "maxLength": 10}}, "score": {"type": "integer", "minimum": -40, "maximum": 1234},
          "meta": {"type": "object"}}, "required": ["tags", "score"],
          "additionalProperties": false})",
      R"({"allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
          {"properties": {"b": {"type": "array", "items": {"type": "null"}}}}]})",
      R"({"type": "object", "properties": {"name": {"type": "string", "pattern": "^\\w+$"},
          "q": {"type": "string", "pattern": "^say \"(hi|bye)\"[.!]?$"}},
          "required": ["name", "q"]})",
  };
  return *s;
}

std::shared_ptr<const Grammar> ParseOrDie(const std::string& text) {
  auto g = ParseGbnf(text);
  EXPECT_TRUE(g.ok()) << g.status() << "\n" << text;
  return g.ok() ? *g : nullptr;
}

bool Accepts(const std::shared_ptr<const Grammar>& g, const std::string& text) {
  Matcher m(g);
  return m.AcceptBytes(text).ok() && m.IsAccepting();
}

// A lone \uD800-\uDFFF escape: JSON's grammar allows it, strict parsers (nlohmann) do not.
bool HasSurrogateEscape(const std::string& s) {
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    if (s[i] == '\\' && s[i + 1] == 'u' && (s[i + 2] == 'd' || s[i + 2] == 'D') &&
        i + 3 < s.size() && std::string("89abcdefABCDEF").find(s[i + 3]) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// An exponent of 3+ digits: the grammar allows it, a double cannot hold most of them.
bool HasHugeExponent(const std::string& s) {
  return std::regex_search(s, std::regex("[0-9][eE][-+]?[0-9]{3,}"));
}

TEST(RandomWalk, ExampleGrammarsAcceptTheirOwnLanguage) {
  int json_checked = 0, strict_rejects = 0;
  for (const char* name : {"arithmetic.gbnf", "c.gbnf", "chess.gbnf", "english.gbnf",
                           "japanese.gbnf", "json.gbnf", "json_arr.gbnf", "list.gbnf"}) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(path, absl::StrCat("grammars/", name));
    auto text = ReadFileBounded(path, size_t{1} << 20, "grammar");
    ASSERT_TRUE(text.ok()) << text.status();
    auto g = ParseOrDie(*text);
    ASSERT_NE(g, nullptr);
    std::mt19937 rng(1234);
    const bool is_json = std::string(name).rfind("json", 0) == 0;
    for (int i = 0; i < kSamples; ++i) {
      const std::string s = RandomWalk(*g, &rng, 200);
      ASSERT_TRUE(Accepts(g, s)) << name << ": " << s;
      if (is_json) {
        const Json j = Json::parse(s, nullptr, false);
        if (j.is_discarded()) {
          // llama.cpp's json.gbnf allows lone surrogate escapes and exponents beyond a
          // double's range, which nlohmann refuses; nothing else may fail.
          EXPECT_TRUE(HasSurrogateEscape(s) || HasHugeExponent(s))
              << name << " made invalid JSON: " << s;
          ++strict_rejects;
        }
        ++json_checked;
      }
    }
  }
  EXPECT_EQ(json_checked, 2 * kSamples);
  EXPECT_LT(strict_rejects, json_checked / 2);
}

TEST(RandomWalk, ConvertedSchemasOnlyDescribeValidInstances) {
  ASSERT_GE(Schemas().size(), 10u);
  for (const std::string& schema_text : Schemas()) {
    auto gbnf = JsonSchemaToGbnf(schema_text);
    ASSERT_TRUE(gbnf.ok()) << gbnf.status() << "\n" << schema_text;
    auto g = ParseOrDie(*gbnf);
    ASSERT_NE(g, nullptr);
    const Json schema = Json::parse(schema_text);
    std::mt19937 rng(99);
    for (int i = 0; i < kSamples; ++i) {
      const std::string s = RandomWalk(*g, &rng, 120);
      ASSERT_TRUE(Accepts(g, s)) << s;
      const Json j = Json::parse(s, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << "not JSON: " << s << "\nschema " << schema_text;
      std::string why;
      EXPECT_TRUE(ValidateJson(schema, schema, j, &why))
          << why << "\ninstance " << s << "\nschema " << schema_text << "\n"
          << *gbnf;
    }
  }
}

// A small vocabulary with single characters, multi-character pieces that span several grammar
// elements, and UTF-8 sequences split across pieces.
std::vector<std::string> Vocabulary() {
  std::vector<std::string> v;
  for (char c = 0x20; c < 0x7F; ++c) v.push_back(std::string(1, c));
  for (const char* p : {"\n",
                        "\t",
                        "\":",
                        "\": ",
                        "{\"",
                        "\"}",
                        "true",
                        "false",
                        "null",
                        ", ",
                        "\",",
                        "[\"",
                        "\"]",
                        "00",
                        "12",
                        "-1",
                        ".5",
                        "e+",
                        "\\n",
                        "\\\"",
                        "\\u00",
                        "ab",
                        "abc",
                        "the",
                        " the",
                        "\xC3\xA9",
                        "\xC3",
                        "\xA9",
                        "\xE2\x82",
                        "\xAC",
                        "\xE6\x97\xA5\xE6\x9C\xAC",
                        "\xF0\x9F",
                        "\x98\x80",
                        "\xFF",
                        "},{",
                        "]}",
                        "kind",
                        "circle",
                        "square",
                        "name",
                        "value",
                        "children",
                        "2026-",
                        "T12:",
                        "Z\"",
                        "say",
                        " \\\"hi"}) {
    v.push_back(p);
  }
  return v;
}

// Samples pieces uniformly among the allowed ones (ending when the grammar may end, with
// probability 1/3); past 150 pieces, closing characters are preferred. Returns false when the
// output did not complete within 400 pieces.
bool Sample(const Matcher& start, const TokenTrie& trie, const std::vector<std::string>& vocab,
            std::mt19937* rng, std::string* out) {
  Matcher m = start;
  out->clear();
  std::vector<bool> allowed;
  for (int step = 0; step < 400; ++step) {
    if (m.IsAccepting() && (*rng)() % 3 == 0) return true;
    EXPECT_TRUE(m.FilterTokens(trie, &allowed).ok());
    std::vector<size_t> choices, closers;
    for (size_t t = 0; t < vocab.size(); ++t) {
      if (!allowed[t]) continue;
      choices.push_back(t);
      if (vocab[t].size() == 1 &&
          std::string("\"}]0123456789").find(vocab[t][0]) != std::string::npos) {
        closers.push_back(t);
      }
    }
    if (choices.empty()) return m.IsAccepting();
    const std::vector<size_t>& pool = (step > 150 && !closers.empty()) ? closers : choices;
    const size_t t = pool[(*rng)() % pool.size()];
    EXPECT_TRUE(m.AcceptBytes(vocab[t]).ok()) << "allowed piece refused: " << vocab[t];
    *out += vocab[t];
  }
  return m.IsAccepting();
}

TEST(ConstrainedSampling, CompletedOutputsAreValid) {
  const std::vector<std::string> vocab = Vocabulary();
  const TokenTrie trie(vocab);
  int completed_total = 0;
  for (const std::string& schema_text : Schemas()) {
    auto gbnf = JsonSchemaToGbnf(schema_text);
    ASSERT_TRUE(gbnf.ok()) << gbnf.status();
    const Matcher start(ParseOrDie(*gbnf));
    const Json schema = Json::parse(schema_text);
    std::mt19937 rng(7);
    int completed = 0;
    std::string s;
    for (int i = 0; i < kSamples; ++i) {
      if (!Sample(start, trie, vocab, &rng, &s)) continue;
      ++completed;
      const Json j = Json::parse(s, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << "not JSON: " << s << "\nschema " << schema_text;
      std::string why;
      EXPECT_TRUE(ValidateJson(schema, schema, j, &why))
          << why << "\noutput " << s << "\nschema " << schema_text;
    }
    EXPECT_GE(completed, kSamples / 2) << schema_text;
    completed_total += completed;
  }
  RecordProperty("completed", completed_total);
}

// Splits `text` into vocabulary pieces (longest first) and checks each piece was allowed by the
// mask at its position: FilterTokens never hides a valid continuation.
TEST(ConstrainedSampling, MaskKeepsEveryValidContinuation) {
  const std::vector<std::string> vocab = Vocabulary();
  const TokenTrie trie(vocab);
  for (size_t k = 0; k < Schemas().size(); ++k) {
    auto gbnf = JsonSchemaToGbnf(Schemas()[k]);
    ASSERT_TRUE(gbnf.ok());
    auto g = ParseOrDie(*gbnf);
    std::mt19937 rng(static_cast<unsigned>(k));
    for (int i = 0; i < 20; ++i) {
      const std::string text = RandomWalk(*g, &rng, 80);
      Matcher m(g);
      std::vector<bool> allowed;
      size_t pos = 0;
      while (pos < text.size()) {
        size_t best = vocab.size();
        for (size_t t = 0; t < vocab.size(); ++t) {
          if (text.compare(pos, vocab[t].size(), vocab[t]) == 0 &&
              (best == vocab.size() || vocab[t].size() > vocab[best].size())) {
            best = t;
          }
        }
        if (best == vocab.size()) break;  // a character outside the small vocabulary
        ASSERT_TRUE(m.FilterTokens(trie, &allowed).ok());
        ASSERT_TRUE(allowed[best])
            << "piece '" << vocab[best] << "' hidden at " << pos << " of " << text;
        ASSERT_TRUE(m.AcceptBytes(vocab[best]).ok());
        pos += vocab[best].size();
      }
      if (pos == text.size()) {
        EXPECT_TRUE(m.IsAccepting()) << text;
      }
    }
  }
}

}  // namespace
}  // namespace grammar
}  // namespace edgeq
