#include "grammar/gbnf.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace grammar {

// ---------------------------------------------------------------------------------------------
// UTF-8 and character sets.

std::pair<char32_t, size_t> DecodeUtf8(absl::string_view s) {
  if (s.empty()) return {0, 0};
  const auto b0 = static_cast<uint8_t>(s[0]);
  if (b0 < 0x80) return {b0, 1};
  size_t len;
  char32_t value;
  char32_t min_value;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2, value = b0 & 0x1F, min_value = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3, value = b0 & 0x0F, min_value = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4, value = b0 & 0x07, min_value = 0x10000;
  } else {
    return {0, 0};
  }
  if (s.size() < len) return {0, 0};
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if ((b & 0xC0) != 0x80) return {0, 0};
    value = (value << 6) | (b & 0x3F);
  }
  if (value < min_value || value > kMaxCodePoint || (value >= 0xD800 && value <= 0xDFFF)) {
    return {0, 0};
  }
  return {value, len};
}

void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (c >> 6)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (c >> 12)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (c >> 18)));
    out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

CharSet::CharSet(std::vector<std::pair<char32_t, char32_t>> ranges) {
  for (auto& r : ranges) {
    if (r.first > r.second) std::swap(r.first, r.second);
  }
  std::sort(ranges.begin(), ranges.end());
  for (const auto& r : ranges) {
    if (!ranges_.empty() && r.first <= ranges_.back().second + 1) {
      ranges_.back().second = std::max(ranges_.back().second, r.second);
    } else {
      ranges_.push_back(r);
    }
  }
}

bool CharSet::Contains(char32_t c) const {
  // The first range whose end is >= c.
  auto it = std::lower_bound(
      ranges_.begin(), ranges_.end(), c,
      [](const std::pair<char32_t, char32_t>& r, char32_t v) { return r.second < v; });
  return it != ranges_.end() && it->first <= c;
}

bool CharSet::Intersects(char32_t lo, char32_t hi) const {
  auto it = std::lower_bound(
      ranges_.begin(), ranges_.end(), lo,
      [](const std::pair<char32_t, char32_t>& r, char32_t v) { return r.second < v; });
  return it != ranges_.end() && it->first <= hi;
}

CharSet CharSet::Complement() const {
  std::vector<std::pair<char32_t, char32_t>> out;
  char32_t next = 0;
  for (const auto& r : ranges_) {
    if (r.first > next) out.emplace_back(next, r.first - 1);
    next = r.second + 1;
  }
  if (next <= kMaxCodePoint) out.emplace_back(next, kMaxCodePoint);
  CharSet s;
  s.ranges_ = std::move(out);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Printing.

namespace {

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

std::string CharForPrint(char32_t c, bool in_class) {
  switch (c) {
    case '\t':
      return "\\t";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\\':
      return "\\\\";
    default:
      break;
  }
  if (in_class && (c == ']' || c == '[' || c == '-' || c == '^')) {
    return absl::StrFormat("\\x%02X", static_cast<uint32_t>(c));
  }
  if (!in_class && c == '"') return "\\\"";
  if (c < 0x20 || c == 0x7F) return absl::StrFormat("\\x%02X", static_cast<uint32_t>(c));
  if (c >= 0x80 && c <= 0x9F) return absl::StrFormat("\\x%02X", static_cast<uint32_t>(c));
  std::string s;
  AppendUtf8(c, &s);
  return s;
}

std::string CharSetForPrint(const CharSet& set) {
  if (set.ranges().size() == 1 && set.ranges()[0].first == set.ranges()[0].second) {
    return "\"" + CharForPrint(set.ranges()[0].first, false) + "\"";
  }
  if (set.ranges().size() == 1 && set.ranges()[0].first == 0 &&
      set.ranges()[0].second == kMaxCodePoint) {
    return ".";
  }
  // A class with many ranges prints shorter negated (e.g. [^"\\]).
  const CharSet complement = set.Complement();
  const bool negate = complement.ranges().size() < set.ranges().size();
  std::string out = negate ? "[^" : "[";
  for (const auto& r : (negate ? complement : set).ranges()) {
    out += CharForPrint(r.first, true);
    if (r.second != r.first) out += "-" + CharForPrint(r.second, true);
  }
  return out + "]";
}

}  // namespace

std::string Grammar::ToString() const {
  std::string out;
  for (uint32_t r = 0; r < rule_count(); ++r) {
    absl::StrAppend(&out, rule_names_[r], " ::=");
    bool first_alt = true;
    for (uint32_t start : alternatives_[r]) {
      if (!first_alt) out += " |";
      first_alt = false;
      for (uint32_t i = start; elements_[i].kind != ElementKind::kEnd; ++i) {
        const Element& e = elements_[i];
        out += " ";
        out += e.kind == ElementKind::kRule ? rule_names_[e.value]
                                            : CharSetForPrint(char_sets_[e.value]);
      }
    }
    out += "\n";
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Parser.

class GrammarBuilder {
 public:
  GrammarBuilder(absl::string_view text, const Limits& limits) : text_(text), limits_(limits) {}

  absl::StatusOr<std::shared_ptr<const Grammar>> Parse();

 private:
  using Sequence = std::vector<Element>;
  struct Rule {
    std::vector<Sequence> alternatives;
    bool defined = false;
    size_t defined_at = 0;  // offset of the definition (of the parent rule when generated)
    size_t first_use = 0;   // offset of the first reference
  };

  absl::Status ErrorAt(size_t at, absl::string_view what) const;
  std::string Found() const;
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void SkipSpace(bool newline_ok);
  absl::StatusOr<std::string> ParseName();
  absl::Status ParseRule();
  absl::Status ParseAlternates(uint32_t rule_id, const std::string& name, bool nested, int depth);
  absl::Status ParseSequence(const std::string& name, bool nested, int depth, Sequence* seq);
  absl::Status ParseCharClass(Sequence* seq);
  absl::StatusOr<char32_t> ParseChar();
  absl::StatusOr<int> ParseCount();
  absl::Status ParseBraces(int* min, int* max);
  absl::Status Repeat(const std::string& name, size_t sym_start, int min, int max, size_t at,
                      Sequence* seq);
  absl::StatusOr<uint32_t> SymbolId(const std::string& name, size_t at);
  absl::StatusOr<uint32_t> NewRule(const std::string& base, size_t at);
  absl::Status CountElements(size_t n, size_t at);
  uint32_t InternCharSet(CharSet set);
  absl::StatusOr<std::shared_ptr<const Grammar>> Finish();
  void ComputeNullable(Grammar* g) const;
  absl::Status CheckLeftRecursion(const Grammar& g) const;

  absl::string_view text_;
  Limits limits_;
  size_t pos_ = 0;
  size_t element_count_ = 0;
  std::vector<std::string> names_;
  std::vector<Rule> rules_;
  absl::flat_hash_map<std::string, uint32_t> ids_;
  std::vector<CharSet> char_sets_;
  std::map<std::vector<std::pair<char32_t, char32_t>>, uint32_t> char_set_ids_;
};

absl::Status GrammarBuilder::ErrorAt(size_t at, absl::string_view what) const {
  at = std::min(at, text_.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i) {
    if (text_[i] == '\n') ++line, line_start = i + 1;
  }
  size_t column = 1;
  for (size_t i = line_start; i < at; ++i) {
    if ((static_cast<uint8_t>(text_[i]) & 0xC0) != 0x80) ++column;
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("grammar line %d, column %d: %s", line, column, what));
}

std::string GrammarBuilder::Found() const {
  if (AtEnd()) return "end of input";
  return "found " + QuoteForError(text_.substr(pos_, 16), 16);
}

void GrammarBuilder::SkipSpace(bool newline_ok) {
  while (!AtEnd()) {
    const char c = text_[pos_];
    if (c == '#') {
      while (!AtEnd() && text_[pos_] != '\n' && text_[pos_] != '\r') ++pos_;
    } else if (c == ' ' || c == '\t' || (newline_ok && (c == '\n' || c == '\r'))) {
      ++pos_;
    } else {
      break;
    }
  }
}

absl::StatusOr<std::string> GrammarBuilder::ParseName() {
  const size_t start = pos_;
  while (!AtEnd() && IsNameChar(text_[pos_])) ++pos_;
  if (pos_ == start) {
    return ErrorAt(start, "expected a rule name (letters, digits, '-'), " + Found());
  }
  return std::string(text_.substr(start, pos_ - start));
}

absl::Status GrammarBuilder::CountElements(size_t n, size_t at) {
  element_count_ += n;
  if (element_count_ > limits_.max_elements) {
    return ErrorAt(at, absl::StrFormat("the grammar expands to more than %d symbols (limit)",
                                       limits_.max_elements));
  }
  return absl::OkStatus();
}

absl::StatusOr<uint32_t> GrammarBuilder::SymbolId(const std::string& name, size_t at) {
  auto it = ids_.find(name);
  if (it != ids_.end()) return it->second;
  if (rules_.size() >= limits_.max_rules) {
    return ErrorAt(at, absl::StrFormat("more than %d rules (limit)", limits_.max_rules));
  }
  const auto id = static_cast<uint32_t>(rules_.size());
  ids_.emplace(name, id);
  names_.push_back(name);
  rules_.emplace_back();
  rules_.back().first_use = at;
  return id;
}

absl::StatusOr<uint32_t> GrammarBuilder::NewRule(const std::string& base, size_t at) {
  // '_' cannot appear in a user's rule name, so generated names never collide with one.
  EDGEQ_ASSIGN_OR_RETURN(uint32_t id, SymbolId(absl::StrCat(base, "_", rules_.size()), at));
  rules_[id].defined = true;
  rules_[id].defined_at = at;
  return id;
}

uint32_t GrammarBuilder::InternCharSet(CharSet set) {
  auto it = char_set_ids_.find(set.ranges());
  if (it != char_set_ids_.end()) return it->second;
  const auto id = static_cast<uint32_t>(char_sets_.size());
  char_set_ids_.emplace(set.ranges(), id);
  char_sets_.push_back(std::move(set));
  return id;
}

absl::StatusOr<char32_t> GrammarBuilder::ParseChar() {
  const size_t at = pos_;
  if (AtEnd()) return ErrorAt(at, "unexpected end of input inside a literal or class");
  if (text_[pos_] != '\\') {
    auto [c, len] = DecodeUtf8(text_.substr(pos_));
    if (len == 0) return ErrorAt(at, "invalid UTF-8 in the grammar text");
    pos_ += len;
    return c;
  }
  const char e = Peek(1);
  pos_ += 2;
  int hex_digits = 0;
  switch (e) {
    case 'x':
      hex_digits = 2;
      break;
    case 'u':
      hex_digits = 4;
      break;
    case 'U':
      hex_digits = 8;
      break;
    case 't':
      return U'\t';
    case 'n':
      return U'\n';
    case 'r':
      return U'\r';
    case '\\':
    case '"':
    case '[':
    case ']':
    case '-':
      return static_cast<char32_t>(e);
    default:
      pos_ = at;
      return ErrorAt(at, "unknown escape " + QuoteForError(text_.substr(at, 2)) +
                             ", expected one of \\x \\u \\U \\t \\n \\r \\\\ \\\" \\[ \\] \\-");
  }
  uint64_t value = 0;
  for (int i = 0; i < hex_digits; ++i) {
    const char h = Peek();
    int d;
    if (h >= '0' && h <= '9') {
      d = h - '0';
    } else if (h >= 'a' && h <= 'f') {
      d = h - 'a' + 10;
    } else if (h >= 'A' && h <= 'F') {
      d = h - 'A' + 10;
    } else {
      return ErrorAt(
          pos_, absl::StrFormat("expected %d hex digits after \\%c, %s", hex_digits, e, Found()));
    }
    value = value * 16 + static_cast<uint64_t>(d);
    ++pos_;
  }
  if (value > kMaxCodePoint) {
    return ErrorAt(at, absl::StrFormat("code point 0x%X is above U+10FFFF", value));
  }
  return static_cast<char32_t>(value);
}

absl::Status GrammarBuilder::ParseCharClass(Sequence* seq) {
  const size_t at = pos_;
  ++pos_;  // '['
  bool negated = false;
  if (Peek() == '^') negated = true, ++pos_;
  std::vector<std::pair<char32_t, char32_t>> ranges;
  while (true) {
    if (AtEnd()) return ErrorAt(at, "character class '[' is never closed, expected ']'");
    if (text_[pos_] == ']') break;
    EDGEQ_ASSIGN_OR_RETURN(char32_t lo, ParseChar());
    char32_t hi = lo;
    if (Peek() == '-' && Peek(1) != ']' && pos_ + 1 < text_.size()) {
      ++pos_;
      EDGEQ_ASSIGN_OR_RETURN(hi, ParseChar());
      if (hi < lo) {
        return ErrorAt(at, absl::StrFormat("range U+%04X-U+%04X in a character class is "
                                           "reversed, expected low-high",
                                           static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)));
      }
    }
    ranges.emplace_back(lo, hi);
  }
  ++pos_;  // ']'
  CharSet set(std::move(ranges));
  if (negated) set = set.Complement();
  EDGEQ_RETURN_IF_ERROR(CountElements(1, at));
  seq->push_back({ElementKind::kChars, InternCharSet(std::move(set))});
  return absl::OkStatus();
}

absl::StatusOr<int> GrammarBuilder::ParseCount() {
  const size_t start = pos_;
  int64_t value = 0;
  while (!AtEnd() && text_[pos_] >= '0' && text_[pos_] <= '9') {
    value = value * 10 + (text_[pos_] - '0');
    ++pos_;
    if (value > limits_.max_repetition) {
      return ErrorAt(start,
                     absl::StrFormat("repetition count above %d (limit)", limits_.max_repetition));
    }
  }
  if (pos_ == start) return ErrorAt(start, "expected a repetition count, " + Found());
  return static_cast<int>(value);
}

absl::Status GrammarBuilder::ParseBraces(int* min, int* max) {
  const size_t at = pos_;
  ++pos_;  // '{'
  SkipSpace(false);
  EDGEQ_ASSIGN_OR_RETURN(*min, ParseCount());
  SkipSpace(false);
  *max = *min;
  if (Peek() == ',') {
    ++pos_;
    SkipSpace(false);
    *max = -1;
    if (Peek() >= '0' && Peek() <= '9') {
      EDGEQ_ASSIGN_OR_RETURN(*max, ParseCount());
      SkipSpace(false);
    }
  }
  if (Peek() != '}') return ErrorAt(pos_, "expected ',' or '}' in {m,n}, " + Found());
  ++pos_;
  if (*max >= 0 && *max < *min) {
    return ErrorAt(
        at, absl::StrFormat("repetition {%d,%d} has its maximum below its minimum", *min, *max));
  }
  return absl::OkStatus();
}

// S{m,n} becomes S repeated m times, then n-m nested optional rules:
// R1 ::= S | (empty), Rk ::= S R(k-1) | (empty). S{m,} ends with R ::= S R | (empty).
absl::Status GrammarBuilder::Repeat(const std::string& name, size_t sym_start, int min, int max,
                                    size_t at, Sequence* seq) {
  if (sym_start >= seq->size()) {
    return ErrorAt(at, "a repetition operator needs a preceding symbol");
  }
  const Sequence sym(seq->begin() + static_cast<ptrdiff_t>(sym_start), seq->end());
  seq->resize(sym_start);
  EDGEQ_RETURN_IF_ERROR(CountElements(sym.size() * static_cast<size_t>(min), at));
  for (int i = 0; i < min; ++i) seq->insert(seq->end(), sym.begin(), sym.end());
  const int optional = max < 0 ? 1 : max - min;
  uint32_t last = 0;
  for (int i = 0; i < optional; ++i) {
    EDGEQ_ASSIGN_OR_RETURN(uint32_t id, NewRule(name, at));
    Sequence body = sym;
    if (max < 0) body.push_back({ElementKind::kRule, id});
    if (max >= 0 && i > 0) body.push_back({ElementKind::kRule, last});
    EDGEQ_RETURN_IF_ERROR(CountElements(body.size(), at));
    rules_[id].alternatives = {std::move(body), Sequence()};
    last = id;
  }
  if (optional > 0) seq->push_back({ElementKind::kRule, last});
  return absl::OkStatus();
}

absl::Status GrammarBuilder::ParseSequence(const std::string& name, bool nested, int depth,
                                           Sequence* seq) {
  size_t sym_start = seq->size();
  bool has_symbol = false;
  while (!AtEnd()) {
    const char c = text_[pos_];
    const size_t at = pos_;
    if (c == '"') {
      ++pos_;
      sym_start = seq->size();
      while (true) {
        if (AtEnd()) return ErrorAt(at, "string literal is never closed, expected '\"'");
        if (text_[pos_] == '"') break;
        EDGEQ_ASSIGN_OR_RETURN(char32_t ch, ParseChar());
        EDGEQ_RETURN_IF_ERROR(CountElements(1, at));
        seq->push_back({ElementKind::kChars, InternCharSet(CharSet({{ch, ch}}))});
      }
      ++pos_;
    } else if (c == '[') {
      sym_start = seq->size();
      EDGEQ_RETURN_IF_ERROR(ParseCharClass(seq));
    } else if (IsNameChar(c)) {
      EDGEQ_ASSIGN_OR_RETURN(std::string ref, ParseName());
      EDGEQ_ASSIGN_OR_RETURN(uint32_t id, SymbolId(ref, at));
      EDGEQ_RETURN_IF_ERROR(CountElements(1, at));
      sym_start = seq->size();
      seq->push_back({ElementKind::kRule, id});
    } else if (c == '(') {
      if (depth >= limits_.max_nesting) {
        return ErrorAt(
            at, absl::StrFormat("groups nested deeper than %d (limit)", limits_.max_nesting));
      }
      ++pos_;
      SkipSpace(true);
      EDGEQ_ASSIGN_OR_RETURN(uint32_t id, NewRule(name, at));
      EDGEQ_RETURN_IF_ERROR(ParseAlternates(id, name, /*nested=*/true, depth + 1));
      if (Peek() != ')') return ErrorAt(pos_, "expected ')' to close the group, " + Found());
      ++pos_;
      EDGEQ_RETURN_IF_ERROR(CountElements(1, at));
      sym_start = seq->size();
      seq->push_back({ElementKind::kRule, id});
    } else if (c == '.') {
      ++pos_;
      EDGEQ_RETURN_IF_ERROR(CountElements(1, at));
      sym_start = seq->size();
      seq->push_back({ElementKind::kChars, InternCharSet(CharSet({{0, kMaxCodePoint}}))});
    } else if (c == '*' || c == '+' || c == '?' || c == '{') {
      if (!has_symbol) {
        return ErrorAt(at, absl::StrFormat("'%c' needs a preceding symbol to repeat", c));
      }
      int min = c == '+' ? 1 : 0, max = c == '?' ? 1 : -1;
      if (c == '{') {
        EDGEQ_RETURN_IF_ERROR(ParseBraces(&min, &max));
      } else {
        ++pos_;
      }
      EDGEQ_RETURN_IF_ERROR(Repeat(name, sym_start, min, max, at, seq));
      SkipSpace(nested);
      continue;  // a repetition of a repetition repeats the generated rule
    } else if (c == '<' || c == '!') {
      return ErrorAt(at,
                     "token references (<...>, !<...>) need a vocabulary and are not "
                     "supported, expected characters or rules");
    } else {
      break;
    }
    has_symbol = true;
    SkipSpace(nested);
  }
  return absl::OkStatus();
}

absl::Status GrammarBuilder::ParseAlternates(uint32_t rule_id, const std::string& name, bool nested,
                                             int depth) {
  std::vector<Sequence> alternatives(1);
  EDGEQ_RETURN_IF_ERROR(ParseSequence(name, nested, depth, &alternatives.back()));
  while (Peek() == '|') {
    ++pos_;
    SkipSpace(true);
    alternatives.emplace_back();
    EDGEQ_RETURN_IF_ERROR(ParseSequence(name, nested, depth, &alternatives.back()));
  }
  rules_[rule_id].alternatives = std::move(alternatives);
  return absl::OkStatus();
}

absl::Status GrammarBuilder::ParseRule() {
  const size_t at = pos_;
  EDGEQ_ASSIGN_OR_RETURN(std::string name, ParseName());
  SkipSpace(false);
  if (text_.substr(pos_, 3) != "::=") {
    return ErrorAt(pos_, "expected '::=' after rule name '" + name + "', " + Found());
  }
  pos_ += 3;
  SkipSpace(true);
  EDGEQ_ASSIGN_OR_RETURN(uint32_t id, SymbolId(name, at));
  if (rules_[id].defined) {
    return ErrorAt(at, "rule '" + name + "' is defined twice, expected one definition per rule");
  }
  rules_[id].defined = true;
  rules_[id].defined_at = at;
  EDGEQ_RETURN_IF_ERROR(ParseAlternates(id, name, /*nested=*/false, 0));
  if (Peek() == '\r') {
    pos_ += Peek(1) == '\n' ? 2 : 1;
  } else if (Peek() == '\n') {
    ++pos_;
  } else if (!AtEnd()) {
    return ErrorAt(pos_, "expected a symbol, '|' or the end of the line, " + Found());
  }
  SkipSpace(true);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Grammar>> GrammarBuilder::Parse() {
  if (text_.size() > limits_.max_input_bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("grammar text of %d bytes is above the limit of %d bytes", text_.size(),
                        limits_.max_input_bytes));
  }
  SkipSpace(true);
  while (!AtEnd()) EDGEQ_RETURN_IF_ERROR(ParseRule());
  return Finish();
}

absl::StatusOr<std::shared_ptr<const Grammar>> GrammarBuilder::Finish() {
  for (uint32_t r = 0; r < rules_.size(); ++r) {
    if (!rules_[r].defined) {
      return ErrorAt(rules_[r].first_use, "undefined rule '" + names_[r] + "'");
    }
  }
  auto root = ids_.find("root");
  if (root == ids_.end()) {
    return absl::InvalidArgumentError("grammar has no 'root' rule, expected 'root ::= ...'");
  }
  auto g = std::make_shared<Grammar>();
  g->root_ = root->second;
  g->rule_names_ = std::move(names_);
  g->char_sets_ = std::move(char_sets_);
  g->alternatives_.resize(rules_.size());
  g->elements_.reserve(element_count_ + rules_.size() * 2);
  for (uint32_t r = 0; r < rules_.size(); ++r) {
    for (const Sequence& alt : rules_[r].alternatives) {
      g->alternatives_[r].push_back(static_cast<uint32_t>(g->elements_.size()));
      g->elements_.insert(g->elements_.end(), alt.begin(), alt.end());
      g->elements_.push_back({ElementKind::kEnd, 0});
    }
  }
  ComputeNullable(g.get());
  EDGEQ_RETURN_IF_ERROR(CheckLeftRecursion(*g));
  return std::shared_ptr<const Grammar>(std::move(g));
}

// A rule is nullable when one of its alternatives holds only nullable rules. Worklist: each
// alternative counts its symbols not yet known nullable; a rule found nullable decrements the
// count of every alternative that mentions it.
void GrammarBuilder::ComputeNullable(Grammar* g) const {
  const size_t n = g->rule_count();
  g->nullable_.assign(n, 0);
  std::vector<uint32_t> alt_rule, pending;
  std::vector<std::vector<uint32_t>> uses(n);  // rule -> alternatives (one entry per use)
  std::vector<uint32_t> work;
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t start : g->alternatives_[r]) {
      const auto alt = static_cast<uint32_t>(alt_rule.size());
      alt_rule.push_back(r);
      uint32_t count = 0;
      bool has_chars = false;
      for (uint32_t i = start; g->elements_[i].kind != ElementKind::kEnd; ++i) {
        if (g->elements_[i].kind == ElementKind::kChars) {
          has_chars = true;
        } else {
          uses[g->elements_[i].value].push_back(alt);
          ++count;
        }
      }
      pending.push_back(has_chars ? UINT32_MAX : count);
      if (count == 0 && !has_chars && !g->nullable_[r]) g->nullable_[r] = 1, work.push_back(r);
    }
  }
  while (!work.empty()) {
    const uint32_t r = work.back();
    work.pop_back();
    for (uint32_t alt : uses[r]) {
      if (pending[alt] == UINT32_MAX || pending[alt] == 0) continue;
      if (--pending[alt] == 0 && !g->nullable_[alt_rule[alt]]) {
        g->nullable_[alt_rule[alt]] = 1;
        work.push_back(alt_rule[alt]);
      }
    }
  }
}

// Edges r -> s where s can start r without a character consumed before it; a cycle is left
// recursion, which would make the matcher's expansion endless.
absl::Status GrammarBuilder::CheckLeftRecursion(const Grammar& g) const {
  const size_t n = g.rule_count();
  std::vector<std::vector<uint32_t>> edges(n);
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t start : g.alternatives(r)) {
      for (uint32_t i = start; g.elements()[i].kind == ElementKind::kRule; ++i) {
        edges[r].push_back(g.elements()[i].value);
        if (!g.nullable(g.elements()[i].value)) break;
      }
    }
  }
  std::vector<uint8_t> color(n, 0);  // 0 new, 1 on the path, 2 done
  std::vector<std::pair<uint32_t, size_t>> path;
  for (uint32_t start = 0; start < n; ++start) {
    if (color[start] != 0) continue;
    path.push_back({start, 0});
    color[start] = 1;
    while (!path.empty()) {
      auto& [r, next] = path.back();
      if (next == edges[r].size()) {
        color[r] = 2;
        path.pop_back();
        continue;
      }
      const uint32_t s = edges[r][next++];
      if (color[s] == 1) {
        std::vector<std::string> cycle;
        size_t i = 0;
        while (path[i].first != s) ++i;
        for (; i < path.size(); ++i) cycle.push_back(g.rule_name(path[i].first));
        cycle.push_back(g.rule_name(s));
        return ErrorAt(rules_.empty() ? 0 : rules_[s].defined_at,
                       "rule '" + g.rule_name(s) + "' is left-recursive (" +
                           absl::StrJoin(cycle, " -> ") +
                           "), expected a character before the recursion");
      }
      if (color[s] == 0) {
        color[s] = 1;
        path.push_back({s, 0});
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const Grammar>> ParseGbnf(absl::string_view text,
                                                         const Limits& limits) {
  GrammarBuilder builder(text, limits);
  return builder.Parse();
}

}  // namespace grammar
}  // namespace edgeq
