#include "jinja/lexer.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "jinja/text.h"

namespace edgeq {
namespace jinja {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// JavaScript white space at s[i] (a multi-byte code point counts); its byte length or 0.
size_t SpaceAt(absl::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  size_t j = i;
  const uint32_t cp = DecodeUtf8(s, &j);
  return IsJsSpace(cp) ? j - i : 0;
}

size_t SpaceBefore(absl::string_view s, size_t end) {
  // Length of the white-space run that ends at `end`.
  size_t b = end;
  while (b > 0) {
    size_t k = b - 1;
    while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xc0) == 0x80) --k;
    if (SpaceAt(s, k) != b - k) break;
    b = k;
  }
  return end - b;
}

// Removes {% generation %} / {% endgeneration %} tags (transformers' assistant-mask markers),
// keeping the white space around them unless a `-` asks to strip it.
std::string RemoveGenerationTags(const std::string& src) {
  std::string out;
  size_t pos = 0, copied = 0;
  while ((pos = src.find("{%", pos)) != std::string::npos) {
    size_t p = pos + 2;
    const bool lstrip = p < src.size() && src[p] == '-';
    if (lstrip) ++p;
    while (size_t n = SpaceAt(src, p)) p += n;
    if (src.compare(p, 3, "end") == 0 && src.compare(p + 3, 10, "generation") == 0) p += 3;
    if (src.compare(p, 10, "generation") != 0) {
      pos += 2;
      continue;
    }
    p += 10;
    while (size_t n = SpaceAt(src, p)) p += n;
    const bool rstrip = p < src.size() && src[p] == '-';
    if (rstrip) ++p;
    if (src.compare(p, 2, "%}") != 0) {
      pos += 2;
      continue;
    }
    p += 2;
    size_t before = pos;
    if (lstrip) before -= std::min(SpaceBefore(src, pos), pos - copied);
    out.append(src, copied, before - copied);
    size_t after = p;
    if (rstrip) {
      while (size_t n = SpaceAt(src, after)) after += n;
    }
    copied = after;
    pos = after;
  }
  out.append(src, copied, std::string::npos);
  return out;
}

}  // namespace

std::string Preprocess(absl::string_view source, const LexOptions& options) {
  std::string src(source);
  if (!src.empty() && src.back() == '\n') src.pop_back();
  if (options.lstrip_blocks) {
    // Spaces and tabs at the start of a line, before {% {# or {-.
    std::string out;
    out.reserve(src.size());
    size_t i = 0;
    while (i < src.size()) {
      const bool line_start = i == 0 || src[i - 1] == '\n' || src[i - 1] == '\r';
      if (line_start) {
        size_t j = i;
        while (j < src.size() && (src[j] == ' ' || src[j] == '\t')) ++j;
        if (j + 1 < src.size() && src[j] == '{' &&
            (src[j + 1] == '#' || src[j + 1] == '%' || src[j + 1] == '-')) {
          i = j;
        }
      }
      out.push_back(src[i]);
      ++i;
    }
    src = std::move(out);
  }
  if (options.trim_blocks) {
    // The newline after #} %} or -}.
    std::string out;
    out.reserve(src.size());
    for (size_t i = 0; i < src.size(); ++i) {
      out.push_back(src[i]);
      if (src[i] == '}' && i > 0 && (src[i - 1] == '#' || src[i - 1] == '%' || src[i - 1] == '-') &&
          i + 1 < src.size() && src[i + 1] == '\n') {
        ++i;
      }
    }
    src = std::move(out);
  }
  return RemoveGenerationTags(src);
}

namespace {

struct MappedToken {
  const char* text;
  TokenType type;
};

constexpr MappedToken kMapped[] = {
    {"{%", TokenType::kOpenStatement},  {"%}", TokenType::kCloseStatement},
    {"{{", TokenType::kOpenExpression}, {"}}", TokenType::kCloseExpression},
    {"(", TokenType::kOpenParen},       {")", TokenType::kCloseParen},
    {"{", TokenType::kOpenBrace},       {"}", TokenType::kCloseBrace},
    {"[", TokenType::kOpenBracket},     {"]", TokenType::kCloseBracket},
    {",", TokenType::kComma},           {".", TokenType::kDot},
    {":", TokenType::kColon},           {"|", TokenType::kPipe},
    {"<=", TokenType::kComparison},     {">=", TokenType::kComparison},
    {"==", TokenType::kComparison},     {"!=", TokenType::kComparison},
    {"<", TokenType::kComparison},      {">", TokenType::kComparison},
    {"+", TokenType::kAdditive},        {"-", TokenType::kAdditive},
    {"~", TokenType::kAdditive},        {"**", TokenType::kPower},
    {"*", TokenType::kMultiplicative},  {"//", TokenType::kMultiplicative},
    {"/", TokenType::kMultiplicative},  {"%", TokenType::kMultiplicative},
    {"=", TokenType::kEquals},
};

class Lexer {
 public:
  explicit Lexer(std::string src) : src_(std::move(src)) {}
  absl::StatusOr<std::vector<Token>> Run();

 private:
  absl::Status Error(absl::string_view what) const {
    int line = 1;
    for (size_t i = 0; i < pos_ && i < src_.size(); ++i) line += src_[i] == '\n';
    return absl::InvalidArgumentError(absl::StrCat("template line ", line, ": ", what));
  }
  void Push(TokenType type, std::string value) {
    tokens_.push_back(Token{type, std::move(value), line_at(start_)});
  }
  int line_at(size_t p) const {
    int line = 1;
    for (size_t i = last_line_pos_; i < p && i < src_.size(); ++i) line_count_ += src_[i] == '\n';
    last_line_pos_ = std::max(last_line_pos_, p);
    return line + line_count_;
  }
  bool At(const char* s) const { return src_.compare(pos_, std::strlen(s), s) == 0; }
  TokenType LastType() const { return tokens_.empty() ? TokenType::kText : tokens_.back().type; }
  void StripTrailingText() {
    if (!tokens_.empty() && tokens_.back().type == TokenType::kText) {
      tokens_.back().value = TrimText(tokens_.back().value, false, true);
      if (tokens_.back().value.empty()) tokens_.pop_back();
    }
  }
  void SkipSpace() {
    while (size_t n = SpaceAt(src_, pos_)) pos_ += n;
  }
  absl::StatusOr<std::string> StringLiteral(char quote);
  absl::Status Comment();
  absl::Status Other();

  std::string src_;
  size_t pos_ = 0;
  size_t start_ = 0;
  int brace_depth_ = 0;
  mutable size_t last_line_pos_ = 0;
  mutable int line_count_ = 0;
  std::vector<Token> tokens_;
};

absl::StatusOr<std::string> Lexer::StringLiteral(char quote) {
  std::string out;
  ++pos_;
  while (true) {
    if (pos_ >= src_.size()) return Error("unterminated string literal");
    const char c = src_[pos_];
    if (c == quote) break;
    if (c != '\\') {
      out.push_back(c);
      ++pos_;
      continue;
    }
    if (++pos_ >= src_.size()) return Error("unterminated string literal");
    const char e = src_[pos_++];
    if (e == 'x' || e == 'u') {
      const size_t len = e == 'x' ? 2 : 4;
      const std::string hex = src_.substr(pos_, len);
      if (hex.size() != len ||
          hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
        return Error(absl::StrCat("invalid escape \\", std::string(1, e), hex));
      }
      AppendUtf8(static_cast<uint32_t>(std::strtoul(hex.c_str(), nullptr, 16)), &out);
      pos_ += len;
      continue;
    }
    switch (e) {
      case 'n':
        out.push_back('\n');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'v':
        out.push_back('\v');
        break;
      case '\'':
      case '"':
      case '\\':
        out.push_back(e);
        break;
      default:
        return Error(absl::StrCat("unknown escape \\", std::string(1, e), " in a string literal"));
    }
  }
  ++pos_;  // closing quote
  return out;
}

absl::Status Lexer::Comment() {
  pos_ += 2;
  const bool strip_before = pos_ < src_.size() && src_[pos_] == '-';
  if (strip_before) ++pos_;
  const size_t end = src_.find("#}", pos_);
  if (end == std::string::npos) return Error("comment {# is not closed by #}");
  std::string text = src_.substr(pos_, end - pos_);
  const bool strip_after = !text.empty() && text.back() == '-';
  if (strip_after) text.pop_back();
  if (strip_before) StripTrailingText();
  Push(TokenType::kComment, std::move(text));
  pos_ = end + 2;
  if (strip_after) SkipSpace();
  return absl::OkStatus();
}

absl::Status Lexer::Other() {
  const char c = src_[pos_];
  if (c == '-' || c == '+') {
    const TokenType last = LastType();
    if (tokens_.empty() || last == TokenType::kText) {
      return Error(absl::StrCat("unexpected '", std::string(1, c), "'"));
    }
    const bool binary = last == TokenType::kIdentifier || last == TokenType::kNumber ||
                        last == TokenType::kString || last == TokenType::kCloseParen ||
                        last == TokenType::kCloseBracket;
    if (!binary) {
      ++pos_;
      std::string num;
      while (pos_ < src_.size() && IsDigit(src_[pos_])) num.push_back(src_[pos_++]);
      if (!num.empty() && pos_ + 1 < src_.size() && src_[pos_] == '.' && IsDigit(src_[pos_ + 1])) {
        num.push_back(src_[pos_++]);
        while (pos_ < src_.size() && IsDigit(src_[pos_])) num.push_back(src_[pos_++]);
      }
      Push(num.empty() ? TokenType::kUnary : TokenType::kNumber, std::string(1, c) + num);
      return absl::OkStatus();
    }
  }
  for (const MappedToken& m : kMapped) {
    if (m.type == TokenType::kCloseExpression && brace_depth_ > 0) continue;
    if (!At(m.text)) continue;
    if (m.type == TokenType::kOpenExpression) brace_depth_ = 0;
    if (m.type == TokenType::kOpenBrace) ++brace_depth_;
    if (m.type == TokenType::kCloseBrace) --brace_depth_;
    pos_ += std::strlen(m.text);
    Push(m.type, m.text);
    return absl::OkStatus();
  }
  if (c == '\'' || c == '"') {
    absl::StatusOr<std::string> s = StringLiteral(c);
    if (!s.ok()) return s.status();
    Push(TokenType::kString, *std::move(s));
    return absl::OkStatus();
  }
  if (IsDigit(c)) {
    std::string num;
    while (pos_ < src_.size() && IsDigit(src_[pos_])) num.push_back(src_[pos_++]);
    if (LastType() != TokenType::kDot && pos_ + 1 < src_.size() && src_[pos_] == '.' &&
        IsDigit(src_[pos_ + 1])) {
      num.push_back(src_[pos_++]);
      while (pos_ < src_.size() && IsDigit(src_[pos_])) num.push_back(src_[pos_++]);
    }
    Push(TokenType::kNumber, std::move(num));
    return absl::OkStatus();
  }
  if (IsWordChar(static_cast<unsigned char>(c))) {
    std::string word;
    while (pos_ < src_.size() && IsWordChar(static_cast<unsigned char>(src_[pos_]))) {
      word.push_back(src_[pos_++]);
    }
    Push(TokenType::kIdentifier, std::move(word));
    return absl::OkStatus();
  }
  return Error(absl::StrCat("unexpected character '", std::string(1, c), "' inside a tag"));
}

absl::StatusOr<std::vector<Token>> Lexer::Run() {
  while (pos_ < src_.size()) {
    start_ = pos_;
    const TokenType last = LastType();
    if (tokens_.empty() || last == TokenType::kCloseStatement ||
        last == TokenType::kCloseExpression || last == TokenType::kComment) {
      size_t end = pos_;
      while (end < src_.size() &&
             !(src_[end] == '{' && end + 1 < src_.size() &&
               (src_[end + 1] == '%' || src_[end + 1] == '{' || src_[end + 1] == '#'))) {
        ++end;
      }
      if (end > pos_) {
        Push(TokenType::kText, src_.substr(pos_, end - pos_));
        pos_ = end;
        continue;
      }
    }
    if (At("{#")) {
      absl::Status s = Comment();
      if (!s.ok()) return s;
      continue;
    }
    if (At("{%-") || At("{{-")) {
      StripTrailingText();
      const bool statement = src_[pos_ + 1] == '%';
      Push(statement ? TokenType::kOpenStatement : TokenType::kOpenExpression,
           statement ? "{%" : "{{");
      if (!statement) brace_depth_ = 0;
      pos_ += 3;
      continue;
    }
    SkipSpace();
    if (pos_ >= src_.size()) return Error("the template ends inside a tag");
    start_ = pos_;
    if (At("-%}") || At("-}}")) {
      const bool statement = src_[pos_ + 1] == '%';
      Push(statement ? TokenType::kCloseStatement : TokenType::kCloseExpression,
           statement ? "%}" : "}}");
      pos_ += 3;
      SkipSpace();
      continue;
    }
    absl::Status s = Other();
    if (!s.ok()) return s;
  }
  return std::move(tokens_);
}

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view source, const LexOptions& options) {
  Lexer lexer(Preprocess(source, options));
  return lexer.Run();
}

}  // namespace jinja
}  // namespace edgeq
