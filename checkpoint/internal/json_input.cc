#include "checkpoint/internal/json_input.h"

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

absl::StatusOr<json> ParseJsonBounded(absl::string_view text, absl::string_view what,
                                      int max_depth, const json::parser_callback_t& callback) {
  if (absl::Status s = CheckJsonDepth(text, max_depth, what); !s.ok()) return s;
  // keys[L]: the keys of the object open at nesting level L (object_start reports depth L, its
  // keys depth L + 1). Reset when the next object at that level starts, so no end event (which
  // nlohmann skips inside discarded values) is needed.
  std::vector<std::unordered_set<std::string>> keys;
  bool duplicate = false;
  std::string duplicate_key;
  using E = json::parse_event_t;
  json::parser_callback_t cb = [&](int depth, E event, json& parsed) -> bool {
    if (event == E::object_start && depth >= 0) {
      if (keys.size() <= static_cast<size_t>(depth)) keys.resize(depth + 1);
      std::unordered_set<std::string>().swap(keys[depth]);
    } else if (event == E::key && depth >= 1 && parsed.is_string()) {
      if (keys.size() < static_cast<size_t>(depth)) keys.resize(depth);
      if (!keys[depth - 1].insert(parsed.get_ref<const std::string&>()).second && !duplicate) {
        duplicate = true;
        duplicate_key = parsed.get_ref<const std::string&>();
      }
    }
    return callback ? callback(depth, event, parsed) : true;
  };
  json j = json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/false);
  if (j.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(what, ": not valid JSON"));
  if (duplicate) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: key %s appears twice in one object (expected each key once)", what,
        QuoteForError(duplicate_key, 128)));
  }
  return j;
}

absl::StatusOr<json> ReadJsonObjectFile(const std::string& path,
                                        const json::parser_callback_t& callback,
                                        size_t max_bytes) {
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
