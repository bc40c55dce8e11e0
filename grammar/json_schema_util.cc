#include <algorithm>
#include <map>
#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "grammar/json_schema_internal.h"

namespace edgeq {
namespace grammar {
namespace {

std::string ClassChar(char32_t c) {
  if (c == '\\' || c == ']' || c == '[' || c == '-') return std::string("\\") + char(c);
  if (c == '^' || c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F)) {
    return absl::StrFormat("\\x%02X", static_cast<uint32_t>(c));
  }
  std::string s;
  AppendUtf8(c, &s);
  return s;
}

std::string RangesText(const CharSet& set) {
  std::string out;
  for (const auto& [lo, hi] : set.ranges()) {
    out += ClassChar(lo);
    if (hi != lo) out += "-" + ClassChar(hi);
  }
  return out;
}

}  // namespace

std::string LiteralForGbnf(absl::string_view utf8) {
  std::string out = "\"";
  for (char ch : utf8) {
    const auto b = static_cast<uint8_t>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (b < 0x20 || b == 0x7F) {
          out += absl::StrFormat("\\x%02X", b);
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string ClassForGbnf(const CharSet& set) {
  const CharSet complement = set.Complement();
  if (complement.ranges().size() <= set.ranges().size()) {
    return "[^" + RangesText(complement) + "]";
  }
  return "[" + RangesText(set) + "]";
}

std::string RepetitionForGbnf(const std::string& item, int min, int max,
                              const std::string& separator) {
  if (separator.empty()) {
    if (max == 0) return "";
    if (min == 0 && max == 1) return item + "?";
    if (min == 1 && max < 0) return item + "+";
    if (min == 0 && max < 0) return item + "*";
    if (min == max) return absl::StrFormat("%s{%d}", item, min);
    if (max < 0) return absl::StrFormat("%s{%d,}", item, min);
    return absl::StrFormat("%s{%d,%d}", item, min, max);
  }
  if (max == 0) return "";
  std::string rest = RepetitionForGbnf("(" + separator + " " + item + ")", min == 0 ? 0 : min - 1,
                                       max < 0 ? -1 : max - 1, "");
  std::string result = rest.empty() ? item : item + " " + rest;
  if (min == 0) result = "(" + result + ")?";
  return result;
}

namespace {

// Key names are matched character by character (one level of nesting each).
constexpr size_t kMaxExcludedNameBytes = 512;

struct TrieNode {
  bool end = false;
  std::map<char32_t, std::unique_ptr<TrieNode>> children;
};

// The ways to continue after reaching `node` without spelling one of the names: a child's
// character then its continuations, any other character then anything, or (when `node` is not
// the end of a name) nothing more. Every 16 levels the rest becomes a rule of its own, which
// keeps the text's nesting within the parser's limit.
absl::StatusOr<std::string> ExcludingExpr(
    const TrieNode& node, int level,
    const std::function<absl::StatusOr<std::string>(const std::string&)>& add_rule) {
  std::vector<std::string> alts;
  std::vector<std::pair<char32_t, char32_t>> taken = {
      {0, 0x1F}, {'"', '"'}, {'\\', '\\'}, {0x7F, 0x7F}};
  for (const auto& [c, child] : node.children) {
    taken.emplace_back(c, c);
    EDGEQ_ASSIGN_OR_RETURN(std::string rest, ExcludingExpr(*child, level + 1, add_rule));
    alts.push_back(ClassForGbnf(CharSet({{c, c}})) + " " + rest);
  }
  // Any other first character (or an escape sequence), then any characters.
  alts.push_back("(" + ClassForGbnf(CharSet(taken).Complement()) +
                 " | [\\\\] " EDGEQ_JSON_ESCAPE_TAIL ") char*");
  if (!node.end) alts.push_back("");
  std::string expr = "(" + absl::StrJoin(alts, " | ") + ")";
  if (level > 0 && level % 16 == 0) return add_rule(expr);
  return expr;
}

}  // namespace

absl::StatusOr<std::string> KeyExcludingNames(
    const std::vector<std::string>& names,
    const std::function<absl::StatusOr<std::string>(const std::string&)>& add_rule,
    absl::string_view where) {
  TrieNode root;
  for (const std::string& name : names) {
    if (name.size() > kMaxExcludedNameBytes) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "JSON schema at %s: property name %s is longer than %d bytes, the limit beside "
          "additionalProperties",
          where, QuoteForError(name), kMaxExcludedNameBytes));
    }
    TrieNode* node = &root;
    absl::string_view rest = name;
    while (!rest.empty()) {
      auto [c, len] = DecodeUtf8(rest);
      if (len == 0 || c < 0x20 || c == '"' || c == '\\' || c == 0x7F) {
        return absl::InvalidArgumentError(absl::StrCat(
            "JSON schema at ", where, ": property name ", QuoteForError(name),
            " holds a character JSON escapes; with additionalProperties it is not supported"));
      }
      rest.remove_prefix(len);
      auto& child = node->children[c];
      if (!child) child = std::make_unique<TrieNode>();
      node = child.get();
    }
    node->end = true;
  }
  EDGEQ_ASSIGN_OR_RETURN(std::string expr, ExcludingExpr(root, 0, add_rule));
  return "\"\\\"\" " + expr + " \"\\\"\" space";
}

namespace {

constexpr int64_t kMaxMagnitude = 1000000000000000;  // 10^15

// Decimal strings of equal length with lo <= hi: the numbers between them, digit by digit.
std::string SameLength(const std::string& lo, const std::string& hi) {
  if (lo.empty()) return "";
  if (lo == hi) return LiteralForGbnf(lo);
  const size_t rest = lo.size() - 1;
  const std::string lo_rest = lo.substr(1), hi_rest = hi.substr(1);
  const auto digits = [](size_t n) {
    return n == 0   ? std::string()
           : n == 1 ? std::string(" [0-9]")
                    : absl::StrFormat(" [0-9]{%d}", n);
  };
  if (lo[0] == hi[0]) {
    return absl::StrCat("[", std::string(1, lo[0]), "] ", SameLength(lo_rest, hi_rest));
  }
  if (lo_rest == std::string(rest, '0') && hi_rest == std::string(rest, '9')) {
    return absl::StrCat("[", std::string(1, lo[0]), "-", std::string(1, hi[0]), "]", digits(rest));
  }
  std::vector<std::string> alts;
  alts.push_back(
      absl::StrCat("[", std::string(1, lo[0]), "] ", SameLength(lo_rest, std::string(rest, '9'))));
  if (hi[0] - lo[0] > 1) {
    alts.push_back(absl::StrCat("[", std::string(1, char(lo[0] + 1)), "-",
                                std::string(1, char(hi[0] - 1)), "]", digits(rest)));
  }
  alts.push_back(
      absl::StrCat("[", std::string(1, hi[0]), "] ", SameLength(std::string(rest, '0'), hi_rest)));
  return "(" + absl::StrJoin(alts, " | ") + ")";
}

// Non-negative integers in [lo, hi] (hi absent: up to 16 digits, as the integer rule allows).
std::vector<std::string> NonNegative(int64_t lo, std::optional<int64_t> hi) {
  std::vector<std::string> alts;
  int64_t low_of_len = 0, high_of_len = 9;
  for (int len = 1; len <= 16; ++len) {
    const int64_t a = std::max(lo, low_of_len);
    const int64_t b = hi.has_value() ? std::min(*hi, high_of_len) : high_of_len;
    if (a <= b) {
      if (!hi.has_value() && a == low_of_len && len > 1) {
        // Every longer number qualifies too.
        alts.push_back(absl::StrFormat("[1-9] [0-9]{%d,15}", len - 1));
        break;
      }
      alts.push_back(SameLength(std::to_string(a), std::to_string(b)));
    }
    if (hi.has_value() && high_of_len >= *hi) break;
    low_of_len = high_of_len + 1;
    high_of_len = high_of_len * 10 + 9;
  }
  return alts;
}

}  // namespace

absl::StatusOr<std::string> IntegerRangeGbnf(std::optional<int64_t> min,
                                             std::optional<int64_t> max) {
  for (const auto& v : {min, max}) {
    if (v.has_value() && (*v > kMaxMagnitude || *v < -kMaxMagnitude)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "integer bound %d is beyond +-10^15, the range this converter supports", *v));
    }
  }
  if (min.has_value() && max.has_value() && *min > *max) {
    return absl::InvalidArgumentError(
        absl::StrFormat("integer range [%d, %d] is empty", *min, *max));
  }
  std::vector<std::string> alts;
  if (!min.has_value() || *min < 0) {
    // Negative part: -x for x in [max(1, -max), -min].
    const int64_t x_lo = max.has_value() ? std::max<int64_t>(1, -*max) : 1;
    std::optional<int64_t> x_hi;
    if (min.has_value()) x_hi = -*min;
    if (!x_hi.has_value() || x_lo <= *x_hi) {
      const std::vector<std::string> parts = NonNegative(x_lo, x_hi);
      alts.push_back("\"-\" (" + absl::StrJoin(parts, " | ") + ")");
    }
  }
  if (!max.has_value() || *max >= 0) {
    const std::vector<std::string> parts =
        NonNegative(min.has_value() ? std::max<int64_t>(0, *min) : 0, max);
    alts.insert(alts.end(), parts.begin(), parts.end());
  }
  return "(" + absl::StrJoin(alts, " | ") + ")";
}

}  // namespace grammar
}  // namespace edgeq
