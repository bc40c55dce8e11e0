#include "checkpoint/internal/json_input.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/bounded_input.h"

namespace edgeq {
namespace checkpoint {
namespace internal {

using json = nlohmann::json;

namespace {

// The first pass: every key of every object, and the length of every array, without building
// the value. nlohmann's SAX parser is iterative (CheckJsonDepth has bounded the nesting, which
// sizes the stacks here).
class BoundsChecker {
 public:
  explicit BoundsChecker(size_t max_array_elements) : max_array_elements_(max_array_elements) {}

  bool null() { return Element(); }
  bool boolean(bool) { return Element(); }
  bool number_integer(json::number_integer_t) { return Element(); }
  bool number_unsigned(json::number_unsigned_t) { return Element(); }
  bool number_float(json::number_float_t, const json::string_t&) { return Element(); }
  bool string(json::string_t&) { return Element(); }
  bool binary(json::binary_t&) { return Element(); }
  bool start_object(size_t) {
    if (!Element()) return false;
    frames_.push_back(Frame{false, 0, {}});
    return true;
  }
  bool key(json::string_t& k) {
    if (!frames_.back().keys.insert(k).second) {
      duplicate_key_ = k;
      return false;
    }
    return true;
  }
  bool end_object() {
    frames_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    if (!Element()) return false;
    frames_.push_back(Frame{true, 0, {}});
    return true;
  }
  bool end_array() {
    frames_.pop_back();
    return true;
  }
  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) {
    syntax_error_ = true;
    return false;
  }

  bool syntax_error() const { return syntax_error_; }
  const std::optional<std::string>& duplicate_key() const { return duplicate_key_; }
  bool long_array() const { return long_array_; }

 private:
  struct Frame {
    bool is_array;
    size_t elements;
    std::unordered_set<std::string> keys;
  };
  // A value (or a container starting) inside the current container.
  bool Element() {
    if (!frames_.empty() && frames_.back().is_array &&
        ++frames_.back().elements > max_array_elements_) {
      long_array_ = true;
      return false;
    }
    return true;
  }

  size_t max_array_elements_;
  std::vector<Frame> frames_;
  bool syntax_error_ = false;
  bool long_array_ = false;
  std::optional<std::string> duplicate_key_;
};

}  // namespace

absl::StatusOr<json> ParseJsonBounded(absl::string_view text, absl::string_view what, int max_depth,
                                      const json::parser_callback_t& callback,
                                      size_t max_array_elements) {
  if (absl::Status s = CheckJsonDepth(text, max_depth, what); !s.ok()) return s;
  BoundsChecker checker(max_array_elements);
  json::sax_parse(text.begin(), text.end(), &checker);
  if (checker.duplicate_key().has_value()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: key %s appears twice in one object (expected each key once)", what,
                        QuoteForError(*checker.duplicate_key(), 128)));
  }
  if (checker.long_array()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: an array has more than %d elements", what, max_array_elements));
  }
  if (checker.syntax_error()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not valid JSON"));
  }
  json j = callback ? json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false)
                    : json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(what, ": not valid JSON"));
  return j;
}

absl::StatusOr<json> ReadJsonObjectFile(const std::string& path,
                                        const json::parser_callback_t& callback, size_t max_bytes) {
  absl::StatusOr<std::string> text = ReadFileBounded(path, max_bytes, "JSON file");
  if (!text.ok()) return text.status();
  absl::StatusOr<json> j = ParseJsonBounded(*text, path, kMaxJsonDepth, callback);
  if (!j.ok()) return j.status();
  if (!j->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: expected a JSON object, found %s", path, JsonForError(*j)));
  }
  return j;
}

std::string JsonForError(const json& v, size_t max_chars) {
  switch (v.type()) {
    case json::value_t::string:
      return QuoteForError(v.get_ref<const std::string&>(), max_chars);
    case json::value_t::array:
      return absl::StrFormat("an array of %d elements", v.size());
    case json::value_t::object:
      return absl::StrFormat("an object with %d keys", v.size());
    case json::value_t::binary:
    case json::value_t::discarded:
      return "an unreadable value";
    default:
      return v.dump();  // null, true/false or a number: short
  }
}

}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq
