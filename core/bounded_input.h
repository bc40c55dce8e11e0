// Reading untrusted input within stated bounds, and quoting it in error messages.
//
// Every reader of a file a user or an attacker hands edgeq (text files, JSON configs, templates)
// goes through ReadFileBounded, so a stream such as /dev/zero or a multi-gigabyte file is
// refused after `max_bytes` instead of being read into memory. Every error message that repeats
// part of such input goes through QuoteForError, so a 10 MB name never becomes a 10 MB line.
// ParseDecimalInt64 is the one strict integer parser for names and numbers taken from files
// and flags ("00", "+0", " 1", "1 " and "0x1" are not numbers).
#ifndef EDGEQ_CORE_BOUNDED_INPUT_H_
#define EDGEQ_CORE_BOUNDED_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {

// Caps used across the project (a named constant per kind of input, so that a test can name it).
// Refusing a stream (/dev/zero) reads up to the cap, so each cap stays below the 64 MiB that
// refusing any input may cost; regular files are measured first and cost nothing to refuse.
inline constexpr size_t kMaxTextFileBytes = size_t{32} << 20;  // prompts, perplexity texts
inline constexpr size_t kMaxJsonFileBytes = size_t{48} << 20;  // config.json, tokenizer.json
inline constexpr size_t kMaxTemplateBytes = size_t{1} << 20;   // chat templates
inline constexpr int kMaxJsonDepth = 128;                      // nesting of any JSON we read

// The whole of `path` if it holds at most `max_bytes`; `what` names the file's role in errors
// ("perplexity text", "chat template"). NotFound if it cannot be opened, InvalidArgument if it
// is longer (read at most max_bytes + 1 bytes, so endless streams are refused too) or is a
// directory.
absl::StatusOr<std::string> ReadFileBounded(const std::string& path, size_t max_bytes,
                                            absl::string_view what);

// `s` quoted for an error message: in single quotes, control and non-ASCII bytes escaped as
// \xNN, and cut after `max_chars` characters with "... (N bytes)" appended.
std::string QuoteForError(absl::string_view s, size_t max_chars = 64);

// Strict base-10 integer: an optional '-', then "0" or a digit 1-9 followed by digits, nothing
// else; nullopt when it does not fit int64_t.
std::optional<int64_t> ParseDecimalInt64(absl::string_view s);

// OkStatus when the JSON text nests arrays and objects at most `max_depth` deep (brackets
// inside strings are not counted). Checked before parsing, so that no recursive walk of the
// parsed value (nlohmann's dump(), destructors, our own readers) can overflow the stack.
absl::Status CheckJsonDepth(absl::string_view text, int max_depth, absl::string_view what);

}  // namespace edgeq

#endif  // EDGEQ_CORE_BOUNDED_INPUT_H_
