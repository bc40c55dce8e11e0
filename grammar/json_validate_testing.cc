#include "grammar/json_validate_testing.h"

#include <cmath>
#include <regex>
#include <set>

#include "grammar/gbnf.h"

namespace edgeq {
namespace grammar {
namespace {

using Json = nlohmann::ordered_json;

bool Fail(std::string* why, const std::string& what) {
  *why = what;
  return false;
}

bool HasType(const Json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "number") return v.is_number();
  if (t == "integer") {
    return v.is_number_integer() ||
           (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
  }
  return false;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

const Json* Resolve(const Json& root, const std::string& ref) {
  const Json* cur = &root;
  size_t pos = 1;
  while (pos < ref.size()) {
    const size_t next = std::min(ref.find('/', pos + 1), ref.size());
    const std::string key = ref.substr(pos + 1, next - pos - 1);
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
    pos = next;
  }
  return cur;
}

bool ValidateObject(const Json& root, const Json& s, const Json& v, std::string* why) {
  std::set<std::string> declared;
  if (s.contains("properties")) {
    for (const auto& p : s["properties"].items()) {
      declared.insert(p.key());
      if (v.contains(p.key()) && !ValidateJson(root, p.value(), v[p.key()], why)) {
        *why = "property " + p.key() + ": " + *why;
        return false;
      }
    }
  }
  if (s.contains("required")) {
    for (const Json& r : s["required"]) {
      if (!v.contains(r.get<std::string>())) return Fail(why, "missing " + r.get<std::string>());
    }
  }
  // JSON schema's meaning: other properties are allowed unless additionalProperties says not
  // (the converter's grammars leave them out by default, a subset).
  const Json additional =
      s.contains("additionalProperties") ? s["additionalProperties"] : Json(true);
  for (const auto& item : v.items()) {
    if (declared.count(item.key()) != 0) continue;
    if (additional.is_boolean() && !additional.get<bool>()) {
      return Fail(why, "unexpected property " + item.key());
    }
    if (additional.is_object() && !ValidateJson(root, additional, item.value(), why)) {
      return false;
    }
  }
  return true;
}

bool ValidateArray(const Json& root, const Json& s, const Json& v, std::string* why) {
  const Json* tuple = s.contains("prefixItems")                        ? &s["prefixItems"]
                      : (s.contains("items") && s["items"].is_array()) ? &s["items"]
                                                                       : nullptr;
  if (tuple != nullptr) {
    if (v.size() != tuple->size()) return Fail(why, "tuple length");
    for (size_t i = 0; i < v.size(); ++i) {
      if (!ValidateJson(root, (*tuple)[i], v[i], why)) return false;
    }
  } else if (s.contains("items")) {
    for (const Json& item : v) {
      if (!ValidateJson(root, s["items"], item, why)) return false;
    }
  }
  if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>()) {
    return Fail(why, "minItems");
  }
  if (s.contains("maxItems") && v.size() > s["maxItems"].get<size_t>()) {
    return Fail(why, "maxItems");
  }
  return true;
}

bool ValidateString(const Json& s, const std::string& str, std::string* why) {
  const size_t n = CodePoints(str);
  if (s.contains("minLength") && n < s["minLength"].get<size_t>()) return Fail(why, "minLength");
  if (s.contains("maxLength") && n > s["maxLength"].get<size_t>()) return Fail(why, "maxLength");
  std::string pattern;
  if (s.contains("pattern")) pattern = s["pattern"].get<std::string>();
  const std::string format = s.contains("format") ? s["format"].get<std::string>() : "";
  if (format == "date") pattern = "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$";
  if (format == "uuid") {
    pattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
  }
  if (format == "date-time") {
    pattern =
        "^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d"
        "(\\.\\d{3})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$";
  }
  // std::regex works on bytes: the test patterns are ASCII, and '.' must then match one code
  // point, so non-ASCII characters are replaced by one ASCII stand-in first.
  std::string ascii;
  for (unsigned char c : str) {
    if (c < 0x80) {
      ascii += static_cast<char>(c);
    } else if ((c & 0xC0) != 0x80) {
      ascii += '~';
    }
  }
  if (!pattern.empty() && !std::regex_search(ascii, std::regex(pattern))) {
    return Fail(why, "pattern " + pattern);
  }
  return true;
}

bool ValidateNumber(const Json& s, const Json& v, std::string* why) {
  const double x = v.get<double>();
  if (s.contains("minimum") && x < s["minimum"].get<double>()) return Fail(why, "minimum");
  if (s.contains("maximum") && x > s["maximum"].get<double>()) return Fail(why, "maximum");
  if (s.contains("exclusiveMinimum") && x <= s["exclusiveMinimum"].get<double>()) {
    return Fail(why, "exclusiveMinimum");
  }
  if (s.contains("exclusiveMaximum") && x >= s["exclusiveMaximum"].get<double>()) {
    return Fail(why, "exclusiveMaximum");
  }
  return true;
}

}  // namespace

bool ValidateJson(const Json& root, const Json& s, const Json& v, std::string* why) {
  if (s.is_boolean()) return s.get<bool>() || Fail(why, "false schema");
  if (s.contains("$ref")) {
    const Json* target = Resolve(root, s["$ref"].get<std::string>());
    if (target == nullptr) return Fail(why, "unresolved $ref");
    return ValidateJson(root, *target, v, why);
  }
  if (s.contains("anyOf") || s.contains("oneOf")) {
    const Json& alts = s.contains("anyOf") ? s["anyOf"] : s["oneOf"];
    int matched = 0;
    for (const Json& alt : alts) matched += ValidateJson(root, alt, v, why) ? 1 : 0;
    if (matched == 0) return Fail(why, "no alternative matches");
    if (s.contains("oneOf") && matched > 1) return Fail(why, "several oneOf alternatives match");
    return true;
  }
  if (s.contains("allOf")) {
    for (const Json& part : s["allOf"]) {
      if (!ValidateJson(root, part, v, why)) return false;
    }
  }
  if (s.contains("const") && v != s["const"]) return Fail(why, "const");
  if (s.contains("enum")) {
    bool found = false;
    for (const Json& e : s["enum"]) found = found || e == v;
    if (!found) return Fail(why, "enum");
  }
  if (s.contains("type")) {
    bool ok = false;
    if (s["type"].is_array()) {
      for (const Json& t : s["type"]) ok = ok || HasType(v, t.get<std::string>());
    } else {
      ok = HasType(v, s["type"].get<std::string>());
    }
    if (!ok) return Fail(why, "type " + s["type"].dump());
  }
  if (v.is_object()) return ValidateObject(root, s, v, why);
  if (v.is_array()) return ValidateArray(root, s, v, why);
  if (v.is_string()) return ValidateString(s, v.get<std::string>(), why);
  if (v.is_number()) return ValidateNumber(s, v, why);
  return true;
}

}  // namespace grammar
}  // namespace edgeq
