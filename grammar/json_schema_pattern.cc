// `pattern` (a regex subset) -> GBNF over the inside of a JSON string.
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "grammar/json_schema.h"
#include "grammar/json_schema_internal.h"

namespace edgeq {
namespace grammar {
namespace {

using Ranges = std::vector<std::pair<char32_t, char32_t>>;

const Ranges& Digits() {
  static const auto* r = new Ranges{{'0', '9'}};
  return *r;
}
const Ranges& Word() {
  static const auto* r = new Ranges{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
  return *r;
}
const Ranges& Space() {
  static const auto* r = new Ranges{{' ', ' '}, {'\t', '\r'}};
  return *r;
}

// The set as JSON string content: characters JSON writes as escapes appear escaped, other
// control characters are left out.
absl::StatusOr<std::string> SetAsJsonContent(const CharSet& set) {
  std::vector<std::string> alts;
  const CharSet safe(
      CharSet({{0, 0x1F}, {'"', '"'}, {'\\', '\\'}, {0x7F, 0x7F}}).Complement().ranges());
  Ranges kept;
  for (const auto& [lo, hi] : set.ranges()) {
    for (const auto& [slo, shi] : safe.ranges()) {
      const char32_t a = std::max(lo, slo), b = std::min(hi, shi);
      if (a <= b) kept.emplace_back(a, b);
    }
  }
  if (!kept.empty()) alts.push_back(ClassForGbnf(CharSet(kept)));
  const std::pair<char32_t, const char*> escaped[] = {{'"', "\"\\\\\\\"\""},
                                                      {'\\', "\"\\\\\\\\\""},
                                                      {'\t', "\"\\\\t\""},
                                                      {'\n', "\"\\\\n\""},
                                                      {'\r', "\"\\\\r\""}};
  for (const auto& [c, literal] : escaped) {
    if (set.Contains(c)) alts.push_back(literal);
  }
  if (alts.empty()) {
    return absl::InvalidArgumentError("a character class matches no character JSON allows");
  }
  return alts.size() == 1 ? alts[0] : "(" + absl::StrJoin(alts, " | ") + ")";
}

class PatternParser {
 public:
  PatternParser(absl::string_view p, const SchemaLimits& limits) : p_(p), limits_(limits) {}

  absl::StatusOr<std::string> Run() {
    if (p_.size() > limits_.max_pattern_bytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "pattern of %d bytes is above the limit of %d", p_.size(), limits_.max_pattern_bytes));
    }
    if (p_.size() < 2 || p_.front() != '^' || p_.back() != '$') {
      return absl::InvalidArgumentError("pattern " + QuoteForError(p_) +
                                        " must start with '^' and end with '$'");
    }
    p_ = p_.substr(1, p_.size() - 2);
    bool nullable;
    EDGEQ_ASSIGN_OR_RETURN(std::string out, Alternation(0, &nullable));
    if (i_ != p_.size()) return Error("unbalanced ')'");
    return out;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrFormat(
        "pattern at offset %d: %s (supported: literals, escapes, ., [classes], groups, |, "
        "* + ? {m,n})",
        i_ + 1, what));
  }
  bool AtEnd() const { return i_ >= p_.size(); }
  char Peek() const { return AtEnd() ? '\0' : p_[i_]; }

  // Each part also reports in *nullable whether it can match the empty string: repeating such a
  // part without bound would be left recursion in the grammar, and is refused.
  absl::StatusOr<std::string> Alternation(int depth, bool* nullable) {
    if (depth > 32) return Error("groups nested deeper than 32");
    std::vector<std::string> alts;
    EDGEQ_ASSIGN_OR_RETURN(std::string first, Sequence(depth, nullable));
    alts.push_back(first);
    while (Peek() == '|') {
      ++i_;
      bool next_nullable;
      EDGEQ_ASSIGN_OR_RETURN(std::string next, Sequence(depth, &next_nullable));
      alts.push_back(next);
      *nullable = *nullable || next_nullable;
    }
    return alts.size() == 1 ? alts[0] : "(" + absl::StrJoin(alts, " | ") + ")";
  }

  absl::StatusOr<std::string> Sequence(int depth, bool* nullable) {
    std::vector<std::string> items;
    *nullable = true;
    while (!AtEnd() && Peek() != '|' && Peek() != ')') {
      bool atom_nullable = false;
      EDGEQ_ASSIGN_OR_RETURN(std::string atom, Atom(depth, &atom_nullable));
      EDGEQ_ASSIGN_OR_RETURN(std::string repeated, Quantified(atom, &atom_nullable));
      if (!repeated.empty()) items.push_back(repeated);
      *nullable = *nullable && atom_nullable;
    }
    return items.empty() ? std::string("\"\"") : absl::StrJoin(items, " ");
  }

  absl::StatusOr<int> Number() {
    const size_t start = i_;
    int64_t v = 0;
    while (!AtEnd() && Peek() >= '0' && Peek() <= '9') {
      v = v * 10 + (Peek() - '0');
      ++i_;
      if (v > limits_.max_repetition) {
        return Error(absl::StrFormat("repetition count above %d", limits_.max_repetition));
      }
    }
    if (i_ == start) return Error("expected a number in {m,n}");
    return static_cast<int>(v);
  }

  absl::StatusOr<std::string> Quantified(const std::string& atom, bool* nullable) {
    int min = 1, max = 1;
    const char c = Peek();
    if (c == '*') {
      min = 0, max = -1, ++i_;
    } else if (c == '+') {
      min = 1, max = -1, ++i_;
    } else if (c == '?') {
      min = 0, max = 1, ++i_;
    } else if (c == '{') {
      ++i_;
      EDGEQ_ASSIGN_OR_RETURN(min, Number());
      max = min;
      if (Peek() == ',') {
        ++i_;
        max = -1;
        if (Peek() != '}') {
          EDGEQ_ASSIGN_OR_RETURN(max, Number());
        }
      }
      if (Peek() != '}') return Error("expected '}'");
      ++i_;
      if (max >= 0 && max < min) return Error("{m,n} with n < m");
    } else {
      return atom;
    }
    if (Peek() == '?' || Peek() == '+') return Error("lazy or possessive quantifiers");
    if (*nullable && max < 0) {
      return Error("an unbounded repetition of a part that can match nothing, such as (a*)+");
    }
    *nullable = *nullable || min == 0;
    return RepetitionForGbnf(atom, min, max, "");
  }

  // One character or escape inside or outside a class, as a set.
  absl::StatusOr<CharSet> Escape() {
    ++i_;  // '\'
    if (AtEnd()) return Error("pattern ends with '\\'");
    const char e = p_[i_++];
    switch (e) {
      case 'd':
        return CharSet(Digits());
      case 'D':
        return CharSet(Digits()).Complement();
      case 'w':
        return CharSet(Word());
      case 'W':
        return CharSet(Word()).Complement();
      case 's':
        return CharSet(Space());
      case 'S':
        return CharSet(Space()).Complement();
      case 't':
        return CharSet({{'\t', '\t'}});
      case 'n':
        return CharSet({{'\n', '\n'}});
      case 'r':
        return CharSet({{'\r', '\r'}});
      case 'f':
        return CharSet({{'\f', '\f'}});
      case 'v':
        return CharSet({{'\v', '\v'}});
      case 'u': {
        if (i_ + 4 > p_.size()) return Error("\\u needs 4 hex digits");
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
          const char h = p_[i_++];
          const int d = (h >= '0' && h <= '9')   ? h - '0'
                        : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                        : (h >= 'A' && h <= 'F') ? h - 'A' + 10
                                                 : -1;
          if (d < 0) return Error("\\u needs 4 hex digits");
          v = v * 16 + static_cast<uint32_t>(d);
        }
        return CharSet({{v, v}});
      }
      default:
        break;
    }
    if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9')) {
      --i_;
      return Error(absl::StrFormat("escape \\%c (backreferences, \\b and others)", e));
    }
    return CharSet({{static_cast<char32_t>(e), static_cast<char32_t>(e)}});
  }

  absl::StatusOr<char32_t> Literal() {
    auto [c, len] = DecodeUtf8(p_.substr(i_));
    if (len == 0) return Error("invalid UTF-8");
    i_ += len;
    return c;
  }

  absl::StatusOr<std::string> Class() {
    ++i_;  // '['
    bool negated = false;
    if (Peek() == '^') negated = true, ++i_;
    Ranges ranges;
    bool first = true;
    while (true) {
      if (AtEnd()) return Error("'[' is never closed");
      if (Peek() == ']' && !first) break;
      first = false;
      CharSet item;
      if (Peek() == '\\') {
        EDGEQ_ASSIGN_OR_RETURN(item, Escape());
      } else {
        EDGEQ_ASSIGN_OR_RETURN(char32_t c, Literal());
        item = CharSet({{c, c}});
      }
      const bool single =
          item.ranges().size() == 1 && item.ranges()[0].first == item.ranges()[0].second;
      if (single && Peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        char32_t hi;
        if (Peek() == '\\') {
          EDGEQ_ASSIGN_OR_RETURN(CharSet h, Escape());
          if (h.ranges().size() != 1 || h.ranges()[0].first != h.ranges()[0].second) {
            return Error("a class range ends in a set");
          }
          hi = h.ranges()[0].first;
        } else {
          EDGEQ_ASSIGN_OR_RETURN(hi, Literal());
        }
        if (hi < item.ranges()[0].first) return Error("reversed class range");
        ranges.emplace_back(item.ranges()[0].first, hi);
      } else {
        ranges.insert(ranges.end(), item.ranges().begin(), item.ranges().end());
      }
    }
    ++i_;  // ']'
    CharSet set(std::move(ranges));
    if (negated) set = set.Complement();
    return SetAsJsonContent(set);
  }

  absl::StatusOr<std::string> Atom(int depth, bool* nullable) {
    const char c = Peek();
    if (c == '(') {
      ++i_;
      if (Peek() == '?') {
        if (i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
          i_ += 2;
        } else {
          return Error("lookaround and named groups");
        }
      }
      EDGEQ_ASSIGN_OR_RETURN(std::string inner, Alternation(depth + 1, nullable));
      if (Peek() != ')') return Error("expected ')'");
      ++i_;
      return "(" + inner + ")";
    }
    if (c == '[') return Class();
    if (c == '.') {
      ++i_;
      return SetAsJsonContent(CharSet({{'\n', '\n'}, {'\r', '\r'}}).Complement());
    }
    if (c == '\\') {
      EDGEQ_ASSIGN_OR_RETURN(CharSet set, Escape());
      return SetAsJsonContent(set);
    }
    if (c == '^' || c == '$') return Error("anchors inside the pattern");
    if (c == '*' || c == '+' || c == '?' || c == '{') return Error("nothing to repeat");
    EDGEQ_ASSIGN_OR_RETURN(char32_t ch, Literal());
    return SetAsJsonContent(CharSet({{ch, ch}}));
  }

  absl::string_view p_;
  SchemaLimits limits_;
  size_t i_ = 0;
};

}  // namespace

absl::StatusOr<std::string> PatternToGbnf(absl::string_view pattern, const SchemaLimits& limits) {
  PatternParser parser(pattern, limits);
  return parser.Run();
}

}  // namespace grammar
}  // namespace edgeq
