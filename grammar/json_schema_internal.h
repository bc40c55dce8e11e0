// Pieces of the JSON schema converter shared by json_schema.cc and json_schema_pattern.cc
// (not part of the public API).
#ifndef EDGEQ_GRAMMAR_JSON_SCHEMA_INTERNAL_H_
#define EDGEQ_GRAMMAR_JSON_SCHEMA_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "grammar/gbnf.h"

// What may follow a backslash in a JSON string, as GBNF: the one-letter escapes, or \u and four
// hex digits outside the surrogates D800-DFFF.
#define EDGEQ_JSON_ESCAPE_TAIL \
  "([\"\\\\/bfnrt] | \"u\" ([0-9a-cA-CefEF] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2}))"

namespace edgeq {
namespace grammar {

// `utf8` as a GBNF string literal ("..." with \" \\ \n \r \t and \xHH for other controls).
std::string LiteralForGbnf(absl::string_view utf8);

// A GBNF character class matching exactly `set` (printed negated when that is shorter).
std::string ClassForGbnf(const CharSet& set);

// `item` repeated min..max times (max < 0: no maximum), separated by `separator` when given.
std::string RepetitionForGbnf(const std::string& item, int min, int max,
                              const std::string& separator);

// The body of a rule matching a JSON string key (with quotes and trailing space) that is none of
// `names`; `add_rule` adds a helper rule for deep nesting and returns its name. Names holding
// characters JSON must escape are refused.
absl::StatusOr<std::string> KeyExcludingNames(
    const std::vector<std::string>& names,
    const std::function<absl::StatusOr<std::string>(const std::string&)>& add_rule,
    absl::string_view where);

// A GBNF expression (no trailing space) matching the decimal integers in [min, max]; either
// bound may be absent. Magnitudes are limited to 10^15.
absl::StatusOr<std::string> IntegerRangeGbnf(std::optional<int64_t> min,
                                             std::optional<int64_t> max);

}  // namespace grammar
}  // namespace edgeq

#endif  // EDGEQ_GRAMMAR_JSON_SCHEMA_INTERNAL_H_
