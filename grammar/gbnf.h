// GBNF grammars (llama.cpp's grammar format) parsed into a flat, immutable form that
// grammar::Matcher walks one Unicode code point at a time.
//
//   absl::StatusOr<std::shared_ptr<const Grammar>> g = ParseGbnf(R"(root ::= "a" [0-9]+)");
//
// Syntax and meaning follow llama.cpp's GBNF: rules `name ::= alternatives` (names of ASCII
// letters, digits and '-'), alternation `|`, sequences, grouping `( )`, `*` `+` `?`, `{m}` `{m,}`
// `{m,n}`, string literals, character classes `[a-z0-9_]` and `[^...]`, any character `.`,
// escapes \xHH \uHHHH \UHHHHHHHH \t \n \r \\ \" \[ \] \-, `#` comments, and newlines that end a
// rule except inside parentheses or after `|`. The start rule is `root`.
//
// Differences from llama.cpp, all refusals instead of silent behaviour: a rule defined twice, a
// repetition bound above Limits::max_repetition (llama.cpp turns a large maximum into "no
// maximum"), and token references `<...>` (they need a vocabulary) are errors. Left recursion
// (a rule that can reach itself without consuming a character) is refused at parse time, as
// llama.cpp refuses it when the grammar is loaded.
//
// Every error is one line naming the line and column, what was found and what was expected.
#ifndef EDGEQ_GRAMMAR_GBNF_H_
#define EDGEQ_GRAMMAR_GBNF_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace grammar {

inline constexpr char32_t kMaxCodePoint = 0x10FFFF;

// Bounds on a grammar text; input beyond them is refused with an error naming the bound.
struct Limits {
  size_t max_input_bytes = size_t{1} << 20;  // grammar text
  size_t max_rules = 20000;                  // named + generated rules
  size_t max_elements = size_t{1} << 21;     // all symbols of all alternatives after expansion
  int max_nesting = 64;                      // depth of ( ) groups
  int max_repetition = 2000;                 // m and n of {m,n}
};

// A set of code points as sorted, disjoint, non-adjacent inclusive ranges (negated classes are
// stored as their complement, so every class is positive).
class CharSet {
 public:
  CharSet() = default;
  explicit CharSet(std::vector<std::pair<char32_t, char32_t>> ranges);  // any order/overlap

  bool Contains(char32_t c) const;
  // True when some code point in [lo, hi] is in the set.
  bool Intersects(char32_t lo, char32_t hi) const;
  CharSet Complement() const;
  const std::vector<std::pair<char32_t, char32_t>>& ranges() const { return ranges_; }
  bool operator==(const CharSet& o) const { return ranges_ == o.ranges_; }

 private:
  std::vector<std::pair<char32_t, char32_t>> ranges_;
};

enum class ElementKind : uint8_t {
  kEnd,    // ends an alternative
  kChars,  // one code point from char_set(value)
  kRule,   // the rule `value`
};

struct Element {
  ElementKind kind;
  uint32_t value;
};

// A parsed grammar: every alternative of every rule is a run of elements ending in kEnd inside
// one flat array, so that a position in an alternative is one index.
class Grammar {
 public:
  size_t rule_count() const { return rule_names_.size(); }
  uint32_t root() const { return root_; }
  const std::string& rule_name(uint32_t rule) const { return rule_names_[rule]; }
  // Indices in elements() where each alternative of `rule` starts.
  const std::vector<uint32_t>& alternatives(uint32_t rule) const { return alternatives_[rule]; }
  const std::vector<Element>& elements() const { return elements_; }
  const CharSet& char_set(uint32_t id) const { return char_sets_[id]; }
  size_t char_set_count() const { return char_sets_.size(); }
  // True when the rule can match the empty string.
  bool nullable(uint32_t rule) const { return nullable_[rule] != 0; }

  // The grammar in GBNF-like text for diagnostics, one line per rule; rules generated for groups
  // and repetitions are named `name_N` ('_' is not allowed in names, so it does not parse back).
  std::string ToString() const;

 private:
  friend class GrammarBuilder;
  std::vector<std::string> rule_names_;
  std::vector<std::vector<uint32_t>> alternatives_;
  std::vector<Element> elements_;
  std::vector<CharSet> char_sets_;
  std::vector<uint8_t> nullable_;
  uint32_t root_ = 0;
};

// Parses GBNF text. InvalidArgument ("grammar line L, column C: ...") for malformed text,
// undefined rules, a missing root, left recursion or an exceeded limit.
absl::StatusOr<std::shared_ptr<const Grammar>> ParseGbnf(absl::string_view text,
                                                         const Limits& limits = Limits());

// Decodes one UTF-8 code point from the front of `s`: the value and its length in bytes, or
// length 0 when `s` does not start with a complete, valid, shortest-form sequence (surrogates and
// values above U+10FFFF are invalid).
std::pair<char32_t, size_t> DecodeUtf8(absl::string_view s);

// Appends the UTF-8 encoding of `c` (<= kMaxCodePoint) to `out`.
void AppendUtf8(char32_t c, std::string* out);

}  // namespace grammar
}  // namespace edgeq

#endif  // EDGEQ_GRAMMAR_GBNF_H_
