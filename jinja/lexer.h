// Template text -> tokens, with the whitespace rules Hugging Face renders chat templates with
// (trim_blocks and lstrip_blocks on, one trailing newline dropped, `-` markers strip the white
// space beside a tag, the transformers-specific {% generation %} tags removed), as
// @huggingface/jinja does.
#ifndef EDGEQ_JINJA_LEXER_H_
#define EDGEQ_JINJA_LEXER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace jinja {

enum class TokenType {
  kText,
  kNumber,      // "12", "1.5", or with its sign when written as a unary minus ("-1")
  kString,      // value is the unescaped text
  kIdentifier,  // names and keywords (if, in, not, ...)
  kEquals,
  kOpenParen,
  kCloseParen,
  kOpenStatement,    // {%
  kCloseStatement,   // %}
  kOpenExpression,   // {{
  kCloseExpression,  // }}
  kOpenBracket,
  kCloseBracket,
  kOpenBrace,
  kCloseBrace,
  kComma,
  kDot,
  kColon,
  kPipe,
  kAdditive,        // + - ~
  kMultiplicative,  // * / // %
  kPower,           // **
  kComparison,      // < > <= >= == !=
  kUnary,           // a + or - that is not followed by a number
  kComment,
};

struct Token {
  TokenType type;
  std::string value;
  int line;  // 1-based line of the (preprocessed) source where the token starts
};

struct LexOptions {
  bool trim_blocks = true;
  bool lstrip_blocks = true;
};

// Applies the whitespace options to the source (see the top of this file).
std::string Preprocess(absl::string_view source, const LexOptions& options);

// InvalidArgument "template line N: ..." for an unterminated string or comment, a bad escape,
// or a character that starts no token.
absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view source,
                                            const LexOptions& options = {});

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_LEXER_H_
