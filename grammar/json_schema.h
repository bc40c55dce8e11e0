// JSON schema -> GBNF, with llama.cpp's json-schema-to-grammar semantics for the common subset:
//
//   type (object, array, string, number, integer, boolean, null, and lists of them), properties
//   + required (properties in schema order, required ones first; optional ones may each be
//   omitted), additionalProperties (false by default, as in llama.cpp; true or a schema allows
//   other keys, never repeating a declared one), items (and prefixItems / items as a list for
//   tuples), minItems/maxItems, enum, const, minLength/maxLength, pattern (a regex subset, see
//   below), format date/time/date-time/uuid, $ref to "#/$defs/..", "#/definitions/.." or any
//   local JSON pointer (recursion allowed), anyOf/oneOf (alternatives), allOf (of objects),
//   minimum/maximum/exclusiveMinimum/exclusiveMaximum on integers.
//
// The output is GBNF text that ParseGbnf accepts, one rule per line sorted by name, whitespace
// between tokens as llama.cpp allows it (`space ::= | " " | "\n"{1,2} [ \t]{0,20}`). Annotations
// (title, description, examples, default, $schema, $id, $comment, deprecated, readOnly,
// writeOnly) are ignored; any other keyword that would constrain values (not, if/then/else,
// uniqueItems, contains, multipleOf, patternProperties, minProperties, ...) is refused with an
// error naming it and its place in the schema, where llama.cpp would skip it silently and let
// invalid instances through.
//
// pattern: must start with '^' and end with '$' (as llama.cpp requires). Supported: literals,
// escapes (\d \w \s \D \W \S \. \\ \/ \t \n \r \uHHHH ...), '.', classes [a-z_] [^...], groups
// ( ) and (?: ), '|', quantifiers * + ? {m} {m,} {m,n}. Refused: backreferences, lookaround,
// lazy/possessive quantifiers, anchors elsewhere. Characters that JSON strings must escape are
// matched in their escaped form ('"' as \", '\' as \\, tab/newline/return as \t \n \r), so the
// output is always valid JSON; '.' and negated classes do not produce the other control
// characters.
#ifndef EDGEQ_GRAMMAR_JSON_SCHEMA_H_
#define EDGEQ_GRAMMAR_JSON_SCHEMA_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace grammar {

struct SchemaLimits {
  size_t max_schema_bytes = size_t{1} << 20;
  int max_depth = 64;        // nesting of the schema's JSON and of $ref resolution
  size_t max_rules = 10000;  // rules in the output
  size_t max_output_bytes = size_t{4} << 20;
  int max_repetition = 2000;  // minItems/maxItems/minLength/maxLength and pattern counts
  size_t max_pattern_bytes = 4096;
};

// Converts a JSON schema (text) to GBNF. InvalidArgument naming the place in the schema (a JSON
// pointer) and what was expected, for malformed JSON, unsupported keywords and exceeded limits.
absl::StatusOr<std::string> JsonSchemaToGbnf(absl::string_view schema_json,
                                             const SchemaLimits& limits = SchemaLimits());

// The translation of one `pattern` (with its ^...$ anchors) to a GBNF expression matching the
// inside of a JSON string (without the quotes). Exposed for tests.
absl::StatusOr<std::string> PatternToGbnf(absl::string_view pattern,
                                          const SchemaLimits& limits = SchemaLimits());

}  // namespace grammar
}  // namespace edgeq

#endif  // EDGEQ_GRAMMAR_JSON_SCHEMA_H_
