// The one way edgeq reads JSON it is handed (config.json, model.safetensors.index.json,
// safetensors headers, tokenizer.json, tokenizer_config.json): the text is size-capped by the
// caller (ReadJsonFile: ReadFileBounded with kMaxJsonFileBytes), its nesting is checked with
// CheckJsonDepth before nlohmann's (iterative) parser runs, and an object holding a key twice is
// refused naming the key (nlohmann would keep the last one silently). Error messages show input
// values through JsonForError, never through dump() of the input.
#ifndef EDGEQ_CHECKPOINT_INTERNAL_JSON_INPUT_H_
#define EDGEQ_CHECKPOINT_INTERNAL_JSON_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/bounded_input.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace checkpoint {
namespace internal {

// Parses `text` as one JSON value. `what` starts every error ("DIR/config.json"). `max_depth`:
// the deepest nesting accepted (kMaxJsonDepth unless the format is known to be shallower).
// `callback` (may be empty) sees the parse events as with nlohmann::json::parse, and may discard
// values as there; the duplicate-key check sees every key before it. InvalidArgument for text
// that is not JSON, nests too deep, or repeats a key within one object.
// `max_array_elements`: the most elements any array may hold (checked in the same first pass).
// The checks run as a SAX pass over the text before the value is built; the value is then built
// without a callback unless `callback` is given (nlohmann's callback parser rescans an object's
// parent at every object end: quadratic in the number of objects a container holds, so give one
// only for files of known, small shape).
absl::StatusOr<nlohmann::json> ParseJsonBounded(
    absl::string_view text, absl::string_view what, int max_depth,
    const nlohmann::json::parser_callback_t& callback = nullptr,
    size_t max_array_elements = SIZE_MAX);

// ReadFileBounded(path, max_bytes) then ParseJsonBounded(kMaxJsonDepth); the value must be an
// object. NotFound if the file cannot be opened. `max_bytes`: kMaxJsonFileBytes, or less for a
// file known to be small (a parsed JSON value takes several times its text in memory).
absl::StatusOr<nlohmann::json> ReadJsonObjectFile(
    const std::string& path, const nlohmann::json::parser_callback_t& callback = nullptr,
    size_t max_bytes = kMaxJsonFileBytes);

// Caps for the Hugging Face files that are small in every released model (config.json: a few
// KB; tokenizer_config.json: Gemma 3's 1.2 MB of added tokens is the largest we know).
inline constexpr size_t kMaxHfConfigBytes = size_t{1} << 20;
inline constexpr size_t kMaxTokenizerConfigBytes = size_t{8} << 20;

// A parsed value for an error message: numbers, booleans and null as JSON writes them, strings
// through QuoteForError(max_chars), arrays and objects by their size ("an array of 3 elements").
std::string JsonForError(const nlohmann::json& v, size_t max_chars = 64);

}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_INTERNAL_JSON_INPUT_H_
