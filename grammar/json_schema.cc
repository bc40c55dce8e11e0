#include "grammar/json_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "grammar/gbnf.h"
#include "grammar/json_schema_internal.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace grammar {
namespace {

using Json = nlohmann::ordered_json;

constexpr char kSpaceRule[] = "| \" \" | \"\\n\"{1,2} [ \\t]{0,20}";

struct Primitive {
  const char* name;
  const char* body;
  std::vector<const char*> deps;
};

// The building blocks every schema's rules refer to, each added once with what it uses.
const std::vector<Primitive>& Primitives() {
  static const auto* p = new std::vector<Primitive>{
      {"boolean", "(\"true\" | \"false\") space", {}},
      {"decimal-part", "[0-9]{1,16}", {}},
      {"integral-part", "[0] | [1-9] [0-9]{0,15}", {}},
      // Exponents of at most two digits (llama.cpp allows 16): with 16-digit mantissas every
      // number stays within a double's range, which strict JSON parsers require.
      {"number",
       "(\"-\"? integral-part) (\".\" decimal-part)? ([eE] [-+]? [0-9]{1,2})? space",
       {"integral-part", "decimal-part"}},
      {"integer", "(\"-\"? integral-part) space", {"integral-part"}},
      {"value",
       "object | array | string | number | boolean | null",
       {"object", "array", "string", "number", "boolean", "null"}},
      {"object",
       "\"{\" space ( string \":\" space value (\",\" space string \":\" space value)* )? \"}\" "
       "space",
       {"string", "value"}},
      {"array", "\"[\" space ( value (\",\" space value)* )? \"]\" space", {"value"}},
      {"uuid",
       "\"\\\"\" [0-9a-fA-F]{8} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} \"-\" [0-9a-fA-F]{4} "
       "\"-\" [0-9a-fA-F]{12} \"\\\"\" space",
       {}},
      // No \uD800-\uDFFF: a lone surrogate escape is refused by strict JSON parsers
      // (characters beyond U+FFFF are written as UTF-8 instead).
      {"char", "[^\"\\\\\\x7F\\x00-\\x1F] | [\\\\] " EDGEQ_JSON_ESCAPE_TAIL, {}},
      {"string", "\"\\\"\" char* \"\\\"\" space", {"char"}},
      {"null", "\"null\" space", {}},
      {"date",
       "[0-9]{4} \"-\" (\"0\" [1-9] | \"1\" [0-2]) \"-\" (\"0\" [1-9] | [12] [0-9] | \"3\" "
       "[01])",
       {}},
      {"time",
       "([01] [0-9] | \"2\" [0-3]) \":\" [0-5] [0-9] \":\" [0-5] [0-9] (\".\" [0-9]{3})? (\"Z\" | "
       "[+-] ([01] [0-9] | \"2\" [0-3]) \":\" [0-5] [0-9])",
       {}},
      {"date-time", "date \"T\" time", {"date", "time"}},
      {"date-string", "\"\\\"\" date \"\\\"\" space", {"date"}},
      {"time-string", "\"\\\"\" time \"\\\"\" space", {"time"}},
      {"date-time-string", "\"\\\"\" date-time \"\\\"\" space", {"date-time"}},
  };
  return *p;
}

const Primitive* FindPrimitive(const std::string& name) {
  for (const Primitive& p : Primitives()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

bool IsReservedName(const std::string& name) {
  return name == "root" || name == "space" || FindPrimitive(name) != nullptr;
}

// Keywords that only describe (ignored) and those this converter implements; anything else
// is refused.
const std::set<std::string>& KnownKeywords() {
  static const auto* k = new std::set<std::string>{"title",
                                                   "description",
                                                   "examples",
                                                   "default",
                                                   "$schema",
                                                   "$id",
                                                   "$comment",
                                                   "deprecated",
                                                   "readOnly",
                                                   "writeOnly",
                                                   "$defs",
                                                   "definitions",
                                                   "type",
                                                   "properties",
                                                   "required",
                                                   "additionalProperties",
                                                   "items",
                                                   "prefixItems",
                                                   "minItems",
                                                   "maxItems",
                                                   "enum",
                                                   "const",
                                                   "minLength",
                                                   "maxLength",
                                                   "pattern",
                                                   "format",
                                                   "$ref",
                                                   "anyOf",
                                                   "oneOf",
                                                   "allOf",
                                                   "minimum",
                                                   "maximum",
                                                   "exclusiveMinimum",
                                                   "exclusiveMaximum"};
  return *k;
}

std::string Pointer(const std::string& path) { return path.empty() ? "/" : path; }

std::string EscapePointerToken(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string DumpJson(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

class Converter {
 public:
  Converter(const Json& root, const SchemaLimits& limits) : root_(root), limits_(limits) {}

  absl::Status Run() {
    rules_["space"] = kSpaceRule;
    return Visit(root_, "", "", 0).status();
  }

  std::string Format() const {
    std::string out;
    for (const auto& [name, body] : rules_) absl::StrAppend(&out, name, " ::= ", body, "\n");
    return out;
  }

 private:
  absl::Status Error(const std::string& path, absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("JSON schema at ", Pointer(path), ": ", what));
  }

  absl::StatusOr<std::string> AddRule(const std::string& name, const std::string& body);
  std::string AddPrimitive(const std::string& name);
  absl::StatusOr<std::string> Visit(const Json& s, const std::string& name, const std::string& path,
                                    int depth);
  absl::StatusOr<std::string> VisitTyped(const Json& s, const std::string& name,
                                         const std::string& rule_name, const std::string& path,
                                         int depth);
  absl::StatusOr<std::string> ResolveRef(const std::string& ref, const std::string& path,
                                         int depth);
  absl::StatusOr<const Json*> LookUp(const std::string& ref, const std::string& path) const;
  absl::StatusOr<std::string> ObjectRule(
      const std::vector<std::pair<std::string, const Json*>>& props,
      const std::set<std::string>& required, const std::string& name, const Json* additional,
      const std::string& path, int depth);
  absl::StatusOr<std::vector<std::string>> OptionalStarts(
      const std::vector<std::string>& keys, const std::string& name,
      const std::map<std::string, std::string>& kv);
  absl::StatusOr<std::string> AllOfRule(const Json& s, const std::string& name,
                                        const std::string& path, int depth);
  absl::StatusOr<std::string> ArrayRule(const Json& s, const std::string& name,
                                        const std::string& path, int depth);
  absl::StatusOr<std::string> StringRule(const Json& s, const std::string& path);
  absl::StatusOr<std::string> IntegerRule(const Json& s, const std::string& path);
  absl::StatusOr<int> Count(const Json& s, const char* key, int fallback,
                            const std::string& path) const;

  const Json& root_;
  SchemaLimits limits_;
  std::map<std::string, std::string> rules_;
  std::map<std::string, std::string> ref_names_;  // $ref -> its rule (set before visiting)
  std::set<std::string> pending_;                 // reserved for a $ref being visited
  size_t output_bytes_ = 0;
};

absl::StatusOr<std::string> Converter::AddRule(const std::string& name, const std::string& body) {
  std::string key;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (ok) {
      key += c;
    } else if (key.empty() || key.back() != '-') {
      key += '-';
    }
  }
  if (key.empty()) key = "r";
  if (pending_.erase(key) != 0) {  // a $ref's reserved name, now defined
    rules_[key] = body;
    return key;
  }
  auto it = rules_.find(key);
  if (it != rules_.end() && it->second != body) {
    int i = 0;
    while (rules_.count(absl::StrCat(key, i)) != 0 && rules_[absl::StrCat(key, i)] != body) ++i;
    key = absl::StrCat(key, i);
  }
  if (rules_.count(key) == 0) {
    if (rules_.size() >= limits_.max_rules) {
      return absl::InvalidArgumentError(
          absl::StrFormat("JSON schema converts to more than %d rules (limit)", limits_.max_rules));
    }
    output_bytes_ += key.size() + body.size() + 6;
    if (output_bytes_ > limits_.max_output_bytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("JSON schema converts to more than %d bytes of grammar (limit)",
                          limits_.max_output_bytes));
    }
  }
  rules_[key] = body;
  return key;
}

std::string Converter::AddPrimitive(const std::string& name) {
  const Primitive* p = FindPrimitive(name);
  if (rules_.count(name) == 0) {
    rules_[name] = p->body;
    for (const char* dep : p->deps) AddPrimitive(dep);
  }
  return name;
}

absl::StatusOr<int> Converter::Count(const Json& s, const char* key, int fallback,
                                     const std::string& path) const {
  auto it = s.find(key);
  if (it == s.end()) return fallback;
  if (!it->is_number_integer() && !it->is_number_unsigned()) {
    return Error(path, absl::StrCat("'", key, "' must be a non-negative integer"));
  }
  const int64_t v = it->is_number_unsigned()
                        ? static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT64_MAX))
                        : it->get<int64_t>();
  if (v < 0) return Error(path, absl::StrCat("'", key, "' must be a non-negative integer"));
  if (v > limits_.max_repetition) {
    return Error(path, absl::StrFormat("'%s' of %d is above the limit of %d", key, v,
                                       limits_.max_repetition));
  }
  return static_cast<int>(v);
}

absl::StatusOr<const Json*> Converter::LookUp(const std::string& ref,
                                              const std::string& path) const {
  if (ref.empty() || ref[0] != '#') {
    return Error(path, "$ref " + QuoteForError(ref) +
                           " is not local, expected '#' or '#/...' (remote refs are refused)");
  }
  const Json* cur = &root_;
  size_t pos = 1;
  while (pos < ref.size()) {
    if (ref[pos] != '/') return Error(path, "$ref " + QuoteForError(ref) + " is not a pointer");
    const size_t next = std::min(ref.find('/', pos + 1), ref.size());
    std::string token = ref.substr(pos + 1, next - pos - 1);
    std::string key;
    for (size_t i = 0; i < token.size(); ++i) {
      if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
        key += token[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        key += token[i];
      }
    }
    if (!cur->is_object() || cur->find(key) == cur->end()) {
      return Error(path, "$ref " + QuoteForError(ref) + " does not resolve in this schema");
    }
    cur = &(*cur)[key];
    pos = next;
  }
  return cur;
}

absl::StatusOr<std::string> Converter::ResolveRef(const std::string& ref, const std::string& path,
                                                  int depth) {
  auto it = ref_names_.find(ref);
  if (it != ref_names_.end()) return it->second;  // done, or being defined (recursion)
  EDGEQ_ASSIGN_OR_RETURN(const Json* target, LookUp(ref, path));
  std::string name = ref == "#" ? "root" : ref.substr(ref.rfind('/') + 1);
  std::string key;
  EDGEQ_ASSIGN_OR_RETURN(key, AddRule(name, "\"\""));  // reserve the name
  pending_.insert(key);
  ref_names_[ref] = key;
  EDGEQ_ASSIGN_OR_RETURN(std::string body_rule, Visit(*target, key, ref.substr(1), depth + 1));
  if (pending_.erase(key) != 0 || body_rule != key) rules_[key] = body_rule;
  return key;
}

absl::StatusOr<std::string> Converter::Visit(const Json& s, const std::string& name,
                                             const std::string& path, int depth) {
  if (depth > limits_.max_depth) {
    return Error(path, absl::StrFormat("schema nests deeper than %d (limit)", limits_.max_depth));
  }
  const std::string rule_name = IsReservedName(name) ? name + "-" : name.empty() ? "root" : name;
  if (s.is_boolean()) {
    if (!s.get<bool>()) return Error(path, "schema 'false' matches nothing");
    return AddRule(rule_name, AddPrimitive("value"));
  }
  if (!s.is_object()) return Error(path, "expected a schema (an object or a boolean)");
  for (const auto& item : s.items()) {
    if (KnownKeywords().count(item.key()) == 0) {
      return Error(path, "keyword " + QuoteForError(item.key()) +
                             " is not supported (it would constrain values this grammar "
                             "cannot); remove it or express it with supported keywords");
    }
  }
  if (s.contains("$ref")) {
    if (!s["$ref"].is_string()) return Error(path, "'$ref' must be a string");
    EDGEQ_ASSIGN_OR_RETURN(std::string target,
                           ResolveRef(s["$ref"].get<std::string>(), path, depth));
    return AddRule(rule_name, target);
  }
  for (const char* key : {"oneOf", "anyOf"}) {
    if (!s.contains(key)) continue;
    const Json& alts = s[key];
    if (!alts.is_array() || alts.empty()) {
      return Error(path, absl::StrCat("'", key, "' must be a non-empty array of schemas"));
    }
    std::vector<std::string> parts;
    for (size_t i = 0; i < alts.size(); ++i) {
      EDGEQ_ASSIGN_OR_RETURN(
          std::string alt,
          Visit(alts[i], absl::StrCat(name, name.empty() ? "alternative-" : "-", i),
                absl::StrCat(path, "/", key, "/", i), depth + 1));
      parts.push_back(alt);
    }
    return AddRule(rule_name, absl::StrJoin(parts, " | "));
  }
  if (s.contains("type") && s["type"].is_array()) {
    std::vector<std::string> parts;
    for (size_t i = 0; i < s["type"].size(); ++i) {
      Json one = s;
      one["type"] = s["type"][i];
      EDGEQ_ASSIGN_OR_RETURN(
          std::string alt,
          Visit(one, absl::StrCat(name, name.empty() ? "alternative-" : "-", i), path, depth + 1));
      parts.push_back(alt);
    }
    if (parts.empty()) return Error(path, "'type' must not be an empty list");
    return AddRule(rule_name, absl::StrJoin(parts, " | "));
  }
  if (s.contains("const")) {
    return AddRule(rule_name, LiteralForGbnf(DumpJson(s["const"])) + " space");
  }
  if (s.contains("enum")) {
    if (!s["enum"].is_array() || s["enum"].empty()) {
      return Error(path, "'enum' must be a non-empty array");
    }
    std::vector<std::string> parts;
    for (const Json& v : s["enum"]) parts.push_back(LiteralForGbnf(DumpJson(v)));
    return AddRule(rule_name, "(" + absl::StrJoin(parts, " | ") + ") space");
  }
  return VisitTyped(s, name, rule_name, path, depth);
}

absl::StatusOr<std::string> Converter::VisitTyped(const Json& s, const std::string& name,
                                                  const std::string& rule_name,
                                                  const std::string& path, int depth) {
  std::string type;
  if (s.contains("type")) {
    if (!s["type"].is_string()) return Error(path, "'type' must be a string or a list");
    type = s["type"].get<std::string>();
  }
  const bool any = type.empty();
  if ((any || type == "object") &&
      (s.contains("properties") ||
       (s.contains("additionalProperties") && !s["additionalProperties"].is_boolean()) ||
       (s.contains("additionalProperties") && type == "object"))) {
    std::vector<std::pair<std::string, const Json*>> props;
    if (s.contains("properties")) {
      if (!s["properties"].is_object()) return Error(path, "'properties' must be an object");
      for (const auto& item : s["properties"].items())
        props.emplace_back(item.key(), &item.value());
    }
    std::set<std::string> required;
    if (s.contains("required")) {
      if (!s["required"].is_array()) return Error(path, "'required' must be an array of names");
      for (const Json& r : s["required"]) {
        if (!r.is_string()) return Error(path, "'required' must be an array of names");
        required.insert(r.get<std::string>());
      }
    }
    const Json* additional =
        s.contains("additionalProperties") ? &s["additionalProperties"] : nullptr;
    EDGEQ_ASSIGN_OR_RETURN(std::string body,
                           ObjectRule(props, required, name, additional, path, depth));
    return AddRule(rule_name, body);
  }
  if ((any || type == "object") && s.contains("allOf")) {
    EDGEQ_ASSIGN_OR_RETURN(std::string body, AllOfRule(s, name, path, depth));
    return AddRule(rule_name, body);
  }
  if ((any || type == "array") && (s.contains("items") || s.contains("prefixItems") ||
                                   s.contains("minItems") || s.contains("maxItems"))) {
    EDGEQ_ASSIGN_OR_RETURN(std::string body, ArrayRule(s, name, path, depth));
    return AddRule(rule_name, body);
  }
  if ((any || type == "string") && (s.contains("pattern") || s.contains("minLength") ||
                                    s.contains("maxLength") || s.contains("format"))) {
    if (s.contains("format") && !s.contains("pattern") && !s.contains("minLength") &&
        !s.contains("maxLength")) {
      const std::string format = s["format"].is_string() ? s["format"].get<std::string>() : "";
      if (format == "uuid") return AddRule(rule_name, AddPrimitive("uuid"));
      if (format == "date" || format == "time" || format == "date-time") {
        return AddRule(rule_name, AddPrimitive(format + "-string"));
      }
      return Error(path, "format " + QuoteForError(format) +
                             " is not supported, expected date, time, date-time or uuid");
    }
    EDGEQ_ASSIGN_OR_RETURN(std::string body, StringRule(s, path));
    return AddRule(rule_name, body);
  }
  if (type == "integer" && (s.contains("minimum") || s.contains("maximum") ||
                            s.contains("exclusiveMinimum") || s.contains("exclusiveMaximum"))) {
    EDGEQ_ASSIGN_OR_RETURN(std::string body, IntegerRule(s, path));
    return AddRule(rule_name, body + " space");
  }
  for (const char* k : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
    if (s.contains(k)) {
      return Error(path, absl::StrCat("'", k, "' is supported on integers only"));
    }
  }
  if (any) return AddRule(rule_name, AddPrimitive(s.contains("format") ? "string" : "value"));
  if (type == "string" || type == "number" || type == "integer" || type == "boolean" ||
      type == "null" || type == "object" || type == "array") {
    if (rule_name == "root") return AddRule("root", AddPrimitive(type));
    return AddPrimitive(type);
  }
  return Error(path, "type " + QuoteForError(type) +
                         " is not one of object, array, string, number, integer, boolean, null");
}

absl::StatusOr<std::string> Converter::ObjectRule(
    const std::vector<std::pair<std::string, const Json*>>& props,
    const std::set<std::string>& required, const std::string& name, const Json* additional,
    const std::string& path, int depth) {
  const std::string prefix = name.empty() ? "" : name + "-";
  std::map<std::string, std::string> kv;
  std::vector<std::string> required_keys, optional_keys, names;
  for (const auto& [key, schema] : props) {
    EDGEQ_ASSIGN_OR_RETURN(
        std::string value_rule,
        Visit(*schema, prefix + key, absl::StrCat(path, "/properties/", EscapePointerToken(key)),
              depth + 1));
    EDGEQ_ASSIGN_OR_RETURN(
        kv[key], AddRule(prefix + key + "-kv",
                         LiteralForGbnf(DumpJson(Json(key))) + " space \":\" space " + value_rule));
    (required.count(key) ? required_keys : optional_keys).push_back(key);
    names.push_back(key);
  }
  const bool allow_more =
      additional != nullptr &&
      (additional->is_object() || (additional->is_boolean() && additional->get<bool>()));
  if (additional != nullptr && !additional->is_object() && !additional->is_boolean()) {
    return Error(path, "'additionalProperties' must be a boolean or a schema");
  }
  if (allow_more) {
    std::string value_rule;
    if (additional->is_object()) {
      EDGEQ_ASSIGN_OR_RETURN(value_rule, Visit(*additional, prefix + "additional-value",
                                               path + "/additionalProperties", depth + 1));
    } else {
      value_rule = AddPrimitive("value");
    }
    std::string key_rule = AddPrimitive("string");
    if (!names.empty()) {
      AddPrimitive("char");
      int helper = 0;
      auto add_helper = [&](const std::string& body) {
        return AddRule(absl::StrCat(prefix, "additional-k-", helper++), body);
      };
      EDGEQ_ASSIGN_OR_RETURN(std::string not_names,
                             KeyExcludingNames(names, add_helper, Pointer(path)));
      EDGEQ_ASSIGN_OR_RETURN(key_rule, AddRule(prefix + "additional-k", not_names));
    }
    EDGEQ_ASSIGN_OR_RETURN(
        kv["*"], AddRule(prefix + "additional-kv", key_rule + " \":\" space " + value_rule));
    optional_keys.push_back("*");
  }
  std::vector<std::string> required_rules;
  for (const std::string& k : required_keys) required_rules.push_back(kv[k]);
  std::string rule = "\"{\" space " + absl::StrJoin(required_rules, " \",\" space ");
  if (!optional_keys.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(std::vector<std::string> starts,
                           OptionalStarts(optional_keys, name, kv));
    rule += " (";
    if (!required_keys.empty()) rule += " \",\" space (";
    rule += " " + absl::StrJoin(starts, " | ");
    if (!required_keys.empty()) rule += " )";
    rule += " )?";
  }
  for (const std::string& k : required) {
    if (kv.count(k) == 0) {
      return Error(path, "required property " + QuoteForError(k) + " is not in 'properties'");
    }
  }
  return rule + " \"}\" space";
}

// Optional properties keep their order; any subset may appear. The i-th alternative starts
// with keys[i]; rule rest[j] is ", key: value" for each of keys[j..] optionally (the extra
// properties "*" any number of times). Built from the end, so each rest rule is made once.
absl::StatusOr<std::vector<std::string>> Converter::OptionalStarts(
    const std::vector<std::string>& keys, const std::string& name,
    const std::map<std::string, std::string>& kv) {
  const size_t n = keys.size();
  const auto comma = [&](const std::string& k) { return "( \",\" space " + kv.at(k) + " )"; };
  std::vector<std::string> rest(n + 1);
  for (size_t j = n; j-- > 1;) {
    std::string body = comma(keys[j]) + (keys[j] == "*" ? "*" : "?");
    if (j + 1 < n) body += " " + rest[j + 1];
    const std::string& before = keys[j - 1];
    EDGEQ_ASSIGN_OR_RETURN(rest[j],
                           AddRule(absl::StrCat(name, name.empty() ? "" : "-",
                                                before == "*" ? "additional" : before, "-rest"),
                                   body));
  }
  std::vector<std::string> starts;
  for (size_t i = 0; i < n; ++i) {
    std::string res = kv.at(keys[i]) + (keys[i] == "*" ? " " + comma(keys[i]) + "*" : "");
    if (i + 1 < n) res += " " + rest[i + 1];
    starts.push_back(res);
  }
  return starts;
}

absl::StatusOr<std::string> Converter::AllOfRule(const Json& s, const std::string& name,
                                                 const std::string& path, int depth) {
  if (!s["allOf"].is_array()) return Error(path, "'allOf' must be an array of schemas");
  std::vector<std::pair<std::string, const Json*>> props;
  std::set<std::string> required;
  for (size_t i = 0; i < s["allOf"].size(); ++i) {
    const std::string at = absl::StrCat(path, "/allOf/", i);
    const Json* part = &s["allOf"][i];
    for (int hops = 0; part->is_object() && part->contains("$ref"); ++hops) {
      if (hops > limits_.max_depth || !(*part)["$ref"].is_string()) {
        return Error(at, "'$ref' chain too long or not a string");
      }
      EDGEQ_ASSIGN_OR_RETURN(part, LookUp((*part)["$ref"].get<std::string>(), at));
    }
    if (!part->is_object() || !part->contains("properties") || !(*part)["properties"].is_object()) {
      return Error(at, "allOf is supported for object schemas with 'properties' only");
    }
    for (const auto& item : (*part)["properties"].items()) {
      props.emplace_back(item.key(), &item.value());
    }
    if (part->contains("required") && (*part)["required"].is_array()) {
      for (const Json& r : (*part)["required"]) {
        if (r.is_string()) required.insert(r.get<std::string>());
      }
    }
  }
  return ObjectRule(props, required, name, nullptr, path, depth);
}

absl::StatusOr<std::string> Converter::ArrayRule(const Json& s, const std::string& name,
                                                 const std::string& path, int depth) {
  const std::string prefix = name.empty() ? "" : name + "-";
  const Json* tuple = nullptr;
  if (s.contains("prefixItems")) tuple = &s["prefixItems"];
  if (s.contains("items") && s["items"].is_array()) tuple = &s["items"];
  if (tuple != nullptr) {
    if (!tuple->is_array()) return Error(path, "'prefixItems' must be an array of schemas");
    std::vector<std::string> parts;
    for (size_t i = 0; i < tuple->size(); ++i) {
      EDGEQ_ASSIGN_OR_RETURN(std::string item,
                             Visit((*tuple)[i], absl::StrCat(prefix, "tuple-", i),
                                   absl::StrCat(path, "/prefixItems/", i), depth + 1));
      parts.push_back(item);
    }
    return "\"[\" space " + absl::StrJoin(parts, " \",\" space ") + " \"]\" space";
  }
  std::string item_rule;
  if (s.contains("items")) {
    EDGEQ_ASSIGN_OR_RETURN(item_rule,
                           Visit(s["items"], prefix + "item", path + "/items", depth + 1));
  } else {
    item_rule = AddPrimitive("value");
  }
  EDGEQ_ASSIGN_OR_RETURN(int min_items, Count(s, "minItems", 0, path));
  EDGEQ_ASSIGN_OR_RETURN(int max_items, Count(s, "maxItems", -1, path));
  if (max_items >= 0 && max_items < min_items) {
    return Error(path, "'maxItems' is below 'minItems'");
  }
  return "\"[\" space " + RepetitionForGbnf(item_rule, min_items, max_items, "\",\" space") +
         " \"]\" space";
}

absl::StatusOr<std::string> Converter::StringRule(const Json& s, const std::string& path) {
  if (s.contains("pattern")) {
    if (!s["pattern"].is_string()) return Error(path, "'pattern' must be a string");
    if (s.contains("minLength") || s.contains("maxLength") || s.contains("format")) {
      return Error(path, "'pattern' together with minLength/maxLength/format is not supported");
    }
    auto inner = PatternToGbnf(s["pattern"].get<std::string>(), limits_);
    if (!inner.ok()) return Error(path + "/pattern", inner.status().message());
    return "\"\\\"\" " + *inner + " \"\\\"\" space";
  }
  if (s.contains("format")) {
    return Error(path, "'format' together with minLength/maxLength is not supported");
  }
  EDGEQ_ASSIGN_OR_RETURN(int min_len, Count(s, "minLength", 0, path));
  EDGEQ_ASSIGN_OR_RETURN(int max_len, Count(s, "maxLength", -1, path));
  if (max_len >= 0 && max_len < min_len) return Error(path, "'maxLength' is below 'minLength'");
  return "\"\\\"\" " + RepetitionForGbnf(AddPrimitive("char"), min_len, max_len, "") +
         " \"\\\"\" space";
}

// minimum/maximum (inclusive) and exclusiveMinimum/exclusiveMaximum (numbers, as in draft 6+)
// narrowed to the integers they allow.
absl::StatusOr<std::string> Converter::IntegerRule(const Json& s, const std::string& path) {
  std::optional<int64_t> lo, hi;
  constexpr double kLimit = 1e15;
  for (const char* key : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
    if (!s.contains(key)) continue;
    if (!s[key].is_number()) return Error(path, absl::StrCat("'", key, "' must be a number"));
    const double v = s[key].get<double>();
    if (!(v >= -kLimit && v <= kLimit)) {
      return Error(path, absl::StrCat("'", key, "' is beyond +-10^15, the supported range"));
    }
    const std::string k = key;
    if (k == "minimum") {
      const auto b = static_cast<int64_t>(std::ceil(v));
      lo = lo.has_value() ? std::max(*lo, b) : b;
    } else if (k == "exclusiveMinimum") {
      const auto b = static_cast<int64_t>(std::floor(v)) + 1;
      lo = lo.has_value() ? std::max(*lo, b) : b;
    } else if (k == "maximum") {
      const auto b = static_cast<int64_t>(std::floor(v));
      hi = hi.has_value() ? std::min(*hi, b) : b;
    } else {
      const auto b = static_cast<int64_t>(std::ceil(v)) - 1;
      hi = hi.has_value() ? std::min(*hi, b) : b;
    }
  }
  auto body = IntegerRangeGbnf(lo, hi);
  if (!body.ok()) return Error(path, body.status().message());
  return *body;
}

}  // namespace

absl::StatusOr<std::string> JsonSchemaToGbnf(absl::string_view schema_json,
                                             const SchemaLimits& limits) {
  if (schema_json.size() > limits.max_schema_bytes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("JSON schema of %d bytes is above the limit of %d bytes",
                        schema_json.size(), limits.max_schema_bytes));
  }
  EDGEQ_RETURN_IF_ERROR(CheckJsonDepth(schema_json, limits.max_depth, "JSON schema"));
  const Json schema = Json::parse(schema_json.begin(), schema_json.end(), nullptr,
                                  /*allow_exceptions=*/false);
  if (schema.is_discarded()) {
    return absl::InvalidArgumentError("JSON schema is not valid JSON");
  }
  Converter converter(schema, limits);
  EDGEQ_RETURN_IF_ERROR(converter.Run());
  std::string gbnf = converter.Format();
  // The output must be a grammar the parser takes; a schema that refers to itself before any
  // character (such as {"$ref": "#"}) gives a left-recursive one, refused here.
  auto parsed = ParseGbnf(gbnf);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "JSON schema converts to a grammar that is refused (a schema that refers to itself "
        "before matching any character?): ",
        parsed.status().message()));
  }
  return gbnf;
}

}  // namespace grammar
}  // namespace edgeq
