// UTF-8 text helpers with JavaScript's rules where @huggingface/jinja relies on them (what
// String#trim counts as white space, what \w and \b match), so that trimming and casing give
// the same bytes.
#ifndef EDGEQ_JINJA_TEXT_H_
#define EDGEQ_JINJA_TEXT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace edgeq {
namespace jinja {

// Decodes the code point at s[*i] and advances *i; a malformed byte decodes as itself.
uint32_t DecodeUtf8(absl::string_view s, size_t* i);
void AppendUtf8(uint32_t cp, std::string* out);
std::vector<uint32_t> CodePoints(absl::string_view s);
std::string FromCodePoints(const std::vector<uint32_t>& cps, size_t begin, size_t end);

// JavaScript's white space and line terminators (String#trim, /\s/).
bool IsJsSpace(uint32_t cp);
// JavaScript's \w (ASCII letters, digits, underscore).
inline bool IsWordChar(uint32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Trims JavaScript white space (chars empty) or any of the code points in `chars`.
std::string TrimText(absl::string_view s, bool left, bool right, absl::string_view chars = "",
                     bool use_chars = false);
std::string UpperText(absl::string_view s);
std::string LowerText(absl::string_view s);
// Uppercases the first word character after a non-word character (JavaScript /\b\w/g).
std::string TitleText(absl::string_view s);
// The first code point uppercased, the rest unchanged (as @huggingface/jinja).
std::string CapitalizeText(absl::string_view s);

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_TEXT_H_
