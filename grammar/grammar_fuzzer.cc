// libFuzzer entry point for the grammar package. The input is `spec` NUL `text`: `spec` is
// parsed as GBNF, converted as a JSON schema, and translated as a pattern; when it parses as
// GBNF, `text` is matched against it in pieces (AcceptBytes, CanAccept, FilterTokens). Invariants
// checked (a violation traps): a converted schema always parses as GBNF, CanAccept agrees with
// FilterTokens and with AcceptBytes, and a translated pattern always parses.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

void MatchText(const std::shared_ptr<const edgeq::grammar::Grammar>& g, absl::string_view text) {
  edgeq::grammar::MatcherLimits limits;
  limits.max_stacks = 256;
  limits.max_nodes = 1 << 14;
  edgeq::grammar::Matcher m(g, limits);
  std::vector<std::string> pieces;
  for (size_t i = 0; i < text.size(); i += 3) pieces.emplace_back(text.substr(i, 3));
  const edgeq::grammar::TokenTrie trie(pieces);
  std::vector<bool> allowed;
  for (const std::string& piece : pieces) {
    if (m.FilterTokens(trie, &allowed).ok()) {
      for (size_t k = 0; k < pieces.size(); ++k) Check(allowed[k] == m.CanAccept(pieces[k]));
    }
    const bool can = m.CanAccept(piece);
    const bool did = m.AcceptBytes(piece).ok();
    Check(can == did || !did);  // a limit may refuse what CanAccept could not test
    if (!did) break;
  }
  (void)m.IsAccepting();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const absl::string_view spec = input.substr(0, nul);
  const absl::string_view text =
      nul == absl::string_view::npos ? absl::string_view() : input.substr(nul + 1);

  edgeq::grammar::Limits limits;
  limits.max_elements = 1 << 16;
  limits.max_rules = 2048;
  limits.max_repetition = 64;
  auto g = edgeq::grammar::ParseGbnf(spec, limits);
  if (g.ok()) MatchText(*g, text);

  edgeq::grammar::SchemaLimits schema_limits;
  schema_limits.max_repetition = 64;
  schema_limits.max_rules = 512;
  auto converted = edgeq::grammar::JsonSchemaToGbnf(spec, schema_limits);
  if (converted.ok()) {
    auto cg = edgeq::grammar::ParseGbnf(*converted);
    Check(cg.ok());
    MatchText(*cg, text);
  }

  auto pattern = edgeq::grammar::PatternToGbnf(spec, schema_limits);
  if (pattern.ok()) Check(edgeq::grammar::ParseGbnf("root ::= " + *pattern + "\n").ok());
  return 0;
}
