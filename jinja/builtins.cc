// Methods of strings, lists and dicts, `is` tests, and the global functions.
#include <cmath>
#include <cstdint>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/interpreter.h"
#include "jinja/text.h"

namespace edgeq {
namespace jinja {
namespace {

absl::Status ArgError(absl::string_view fn, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(fn, "(): ", what));
}

// Python's str.split / str.rsplit.
std::vector<Value> SplitString(const std::string& s, const Value& sep, int64_t maxsplit,
                               bool from_right) {
  std::vector<std::string> parts;
  if (sep.IsNull() || sep.IsUndefined()) {
    // Runs of white space separate; no empty parts at the ends.
    const std::vector<uint32_t> cps = CodePoints(s);
    std::vector<std::pair<size_t, size_t>> words;
    size_t i = 0;
    while (i < cps.size()) {
      while (i < cps.size() && IsJsSpace(cps[i])) ++i;
      if (i >= cps.size()) break;
      size_t j = i;
      while (j < cps.size() && !IsJsSpace(cps[j])) ++j;
      words.emplace_back(i, j);
      i = j;
    }
    if (maxsplit < 0 || static_cast<size_t>(maxsplit) + 1 >= words.size()) {
      for (auto& w : words) parts.push_back(FromCodePoints(cps, w.first, w.second));
    } else if (!from_right) {
      for (int64_t k = 0; k < maxsplit; ++k) {
        parts.push_back(FromCodePoints(cps, words[k].first, words[k].second));
      }
      parts.push_back(FromCodePoints(cps, words[maxsplit].first, cps.size()));
    } else {
      const size_t first_kept = words.size() - maxsplit;
      parts.push_back(FromCodePoints(cps, 0, words[first_kept - 1].second));
      for (size_t k = first_kept; k < words.size(); ++k) {
        parts.push_back(FromCodePoints(cps, words[k].first, words[k].second));
      }
    }
  } else {
    const std::string& d = sep.str();
    std::vector<std::string> all;
    size_t pos = 0;
    while (true) {
      const size_t f = s.find(d, pos);
      if (f == std::string::npos) break;
      all.push_back(s.substr(pos, f - pos));
      pos = f + d.size();
    }
    all.push_back(s.substr(pos));
    if (maxsplit < 0 || static_cast<size_t>(maxsplit) + 1 >= all.size()) {
      parts = std::move(all);
    } else if (!from_right) {
      for (int64_t k = 0; k < maxsplit; ++k) parts.push_back(all[k]);
      std::string rest = all[maxsplit];
      for (size_t k = maxsplit + 1; k < all.size(); ++k) rest += d + all[k];
      parts.push_back(rest);
    } else {
      const size_t first_kept = all.size() - maxsplit;
      std::string head = all[0];
      for (size_t k = 1; k < first_kept; ++k) head += d + all[k];
      parts.push_back(head);
      for (size_t k = first_kept; k < all.size(); ++k) parts.push_back(all[k]);
    }
  }
  std::vector<Value> out;
  for (auto& p : parts) out.push_back(Value::String(std::move(p)));
  return out;
}

int64_t CountCodePoints(const std::string& s) { return static_cast<int64_t>(CodePoints(s).size()); }

// Python's str.format for {} / {0} / {name} fields ({{ and }} are literal braces).
absl::StatusOr<std::string> FormatString(Interpreter& in, const std::string& fmt,
                                         const CallArgs& args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    const char c = fmt[i];
    if (c == '{' && i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < fmt.size() && fmt[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{') {
      const size_t end = fmt.find('}', i);
      if (end == std::string::npos) return ArgError("format", "a '{' is not closed");
      const std::string field = fmt.substr(i + 1, end - i - 1);
      const Value* v = nullptr;
      if (field.empty()) {
        if (auto_index < args.positional.size()) v = &args.positional[auto_index++];
      } else if (field.find_first_not_of("0123456789") == std::string::npos && field.size() < 6) {
        const size_t k = std::stoul(field);
        if (k < args.positional.size()) v = &args.positional[k];
      } else {
        v = args.Keyword(field);
      }
      if (v == nullptr) return ArgError("format", absl::StrCat("no argument for {", field, "}"));
      out += in.Concat(*v);
      i = end;
    } else {
      out += c;
    }
  }
  return out;
}

Value Method(const char* name, Function fn) { return Value::MakeFunction(name, std::move(fn)); }

bool IsStringOrNone(const Value& v) { return v.IsString() || v.IsNull() || v.IsUndefined(); }

// Length, casing, stripping, prefix tests and splitting methods of a string.
Value StringCaseMember(const Value& object, const std::string& name) {
  const std::string s = object.str();
  if (name == "length") return Value::Int(CountCodePoints(s));
  if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
    return Method(name.c_str(), [s, name](Interpreter&, const CallArgs&) -> absl::StatusOr<Value> {
      if (name == "upper") return Value::String(UpperText(s));
      if (name == "lower") return Value::String(LowerText(s));
      if (name == "title") return Value::String(TitleText(s));
      return Value::String(CapitalizeText(s));
    });
  }
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    return Method(name.c_str(),
                  [s, name](Interpreter&, const CallArgs& a) -> absl::StatusOr<Value> {
                    const bool chars = !a.positional.empty() && a.positional[0].IsString();
                    if (!a.positional.empty() && !IsStringOrNone(a.positional[0])) {
                      return ArgError(name, "the characters to strip must be a string");
                    }
                    return Value::String(TrimText(s, name != "rstrip", name != "lstrip",
                                                  chars ? a.positional[0].str() : "", chars));
                  });
  }
  if (name == "startswith" || name == "endswith") {
    return Method(name.c_str(),
                  [s, name](Interpreter&, const CallArgs& a) -> absl::StatusOr<Value> {
                    if (a.positional.empty())
                      return ArgError(name, "needs a string or a tuple of strings");
                    std::vector<Value> options = a.positional[0].IsArray()
                                                     ? a.positional[0].array()
                                                     : std::vector<Value>{a.positional[0]};
                    for (const Value& o : options) {
                      if (!o.IsString())
                        return ArgError(name, "needs a string or a tuple of strings");
                      const std::string& p = o.str();
                      const bool hit =
                          p.size() <= s.size() &&
                          (name == "startswith" ? s.compare(0, p.size(), p) == 0
                                                : s.compare(s.size() - p.size(), p.size(), p) == 0);
                      if (hit) return Value::Bool(true);
                    }
                    return Value::Bool(false);
                  });
  }
  if (name == "split" || name == "rsplit") {
    return Method(
        name.c_str(), [s, name](Interpreter& in, const CallArgs& a) -> absl::StatusOr<Value> {
          Value sep = !a.positional.empty() ? a.positional[0] : Value::Null();
          if (const Value* k = a.Keyword("sep")) sep = *k;
          Value max = a.positional.size() > 1 ? a.positional[1] : Value::Int(-1);
          if (const Value* k = a.Keyword("maxsplit")) max = *k;
          if (!IsStringOrNone(sep)) return ArgError(name, "the separator must be a string or none");
          if (sep.IsString() && sep.str().empty()) return ArgError(name, "empty separator");
          if (!max.IsInt()) return ArgError(name, "maxsplit must be an integer");
          std::vector<Value> parts = SplitString(s, sep, max.int_value(), name == "rsplit");
          EDGEQ_RETURN_IF_ERROR(in.CountIterations(static_cast<int64_t>(parts.size())));
          return Value::Array(std::move(parts));
        });
  }
  if (name == "splitlines") {
    return Method("splitlines", [s](Interpreter&, const CallArgs&) -> absl::StatusOr<Value> {
      std::vector<Value> lines;
      size_t start = 0;
      for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\n' || s[i] == '\r') {
          lines.push_back(Value::String(s.substr(start, i - start)));
          if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
          start = i + 1;
        }
      }
      if (start < s.size()) lines.push_back(Value::String(s.substr(start)));
      return Value::Array(std::move(lines));
    });
  }
  return Value();
}

// Searching, joining, formatting and classifying methods of a string.
Value StringSearchMember(const std::string& s, const std::string& name) {
  if (name == "replace") {
    return Method("replace", [s](Interpreter& in, const CallArgs& a) -> absl::StatusOr<Value> {
      if (a.positional.size() < 2 || !a.positional[0].IsString() || !a.positional[1].IsString()) {
        return ArgError("replace", "needs two strings, old and new");
      }
      Value count = a.positional.size() > 2 ? a.positional[2] : Value::Int(-1);
      if (const Value* k = a.Keyword("count")) count = *k;
      CallArgs fa;
      fa.positional = {a.positional[0], a.positional[1], count};
      return ApplyFilter(in, "replace", Value::String(s), fa, nullptr);
    });
  }
  if (name == "find" || name == "rfind" || name == "count" || name == "index") {
    return Method(
        name.c_str(), [s, name](Interpreter&, const CallArgs& a) -> absl::StatusOr<Value> {
          if (a.positional.empty() || !a.positional[0].IsString()) {
            return ArgError(name, "needs a string to look for");
          }
          const std::string& sub = a.positional[0].str();
          if (name == "count") {
            if (sub.empty()) return Value::Int(CountCodePoints(s) + 1);
            int64_t n = 0;
            for (size_t p = s.find(sub); p != std::string::npos; p = s.find(sub, p + sub.size()))
              ++n;
            return Value::Int(n);
          }
          const size_t p = name == "rfind" ? s.rfind(sub) : s.find(sub);
          if (p == std::string::npos) {
            if (name == "index") return ArgError("index", "substring not found");
            return Value::Int(-1);
          }
          return Value::Int(CountCodePoints(s.substr(0, p)));
        });
  }
  if (name == "join") {
    return Method("join", [s](Interpreter& in, const CallArgs& a) -> absl::StatusOr<Value> {
      if (a.positional.empty()) return ArgError("join", "needs a list");
      CallArgs fa;
      fa.positional = {Value::String(s)};
      return ApplyFilter(in, "join", a.positional[0], fa, nullptr);
    });
  }
  if (name == "format") {
    return Method("format", [s](Interpreter& in, const CallArgs& a) -> absl::StatusOr<Value> {
      EDGEQ_ASSIGN_OR_RETURN(std::string out, FormatString(in, s, a));
      EDGEQ_RETURN_IF_ERROR(in.CheckSize(out.size(), "a string"));
      return Value::String(std::move(out));
    });
  }
  if (name == "isdigit" || name == "isalpha" || name == "isalnum" || name == "isspace" ||
      name == "islower" || name == "isupper") {
    return Method(name.c_str(), [s, name](Interpreter&, const CallArgs&) -> absl::StatusOr<Value> {
      if (s.empty()) return Value::Bool(false);
      if (name == "islower") return Value::Bool(LowerText(s) == s && UpperText(s) != s);
      if (name == "isupper") return Value::Bool(UpperText(s) == s && LowerText(s) != s);
      for (uint32_t c : CodePoints(s)) {
        const bool digit = c >= '0' && c <= '9';
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        const bool ok = name == "isdigit"   ? digit
                        : name == "isalpha" ? alpha
                        : name == "isalnum" ? (digit || alpha)
                                            : IsJsSpace(c);
        if (!ok) return Value::Bool(false);
      }
      return Value::Bool(true);
    });
  }
  return Value();
}

Value StringMember(const Value& object, const std::string& name) {
  Value v = StringCaseMember(object, name);
  return v.IsUndefined() ? StringSearchMember(object.str(), name) : v;
}

Value DictMember(const Value& object, const std::string& name) {
  if (name == "get") {
    return Method("get", [object](Interpreter&, const CallArgs& a) -> absl::StatusOr<Value> {
      if (a.positional.empty() || !a.positional[0].IsString()) {
        return ArgError("get", "the key must be a string");
      }
      if (const Value* v = object.object().Find(a.positional[0].str())) return *v;
      return a.positional.size() > 1 ? a.positional[1] : Value::Null();
    });
  }
  if (name == "items" || name == "keys" || name == "values") {
    return Method(name.c_str(),
                  [object, name](Interpreter&, const CallArgs&) -> absl::StatusOr<Value> {
                    std::vector<Value> out;
                    for (const auto& kv : object.object().entries()) {
                      if (name == "items") {
                        out.push_back(Value::Array({Value::String(kv.first), kv.second}));
                      } else {
                        out.push_back(name == "keys" ? Value::String(kv.first) : kv.second);
                      }
                    }
                    return Value::Array(std::move(out));
                  });
  }
  if (name == "dictsort") {
    return Method("dictsort",
                  [object](Interpreter& in, const CallArgs& a) -> absl::StatusOr<Value> {
                    return ApplyFilter(in, "dictsort", object, a, nullptr);
                  });
  }
  return Value();
}

}  // namespace

Value BuiltinMember(const Value& object, const std::string& name) {
  if (object.IsString()) return StringMember(object, name);
  if (object.IsArray() && name == "length") {
    return Value::Int(static_cast<int64_t>(object.array().size()));
  }
  if (object.IsDict()) return DictMember(object, name);
  return Value();
}

absl::StatusOr<bool> ApplyTest(Interpreter& in, const std::string& name, const Value& v,
                               const std::vector<Value>& args) {
  for (const Value& a : args) EDGEQ_RETURN_IF_ERROR(in.ChargeWalk(a));
  auto arg = [&](size_t i) { return i < args.size() ? args[i] : Value(); };
  if (name == "defined") return !v.IsUndefined();
  if (name == "undefined") return v.IsUndefined();
  if (name == "none") return v.IsNull();
  if (name == "boolean") return v.IsBool();
  if (name == "true") return v.IsBool() && v.bool_value();
  if (name == "false") return v.IsBool() && !v.bool_value();
  if (name == "string") return v.IsString();
  if (name == "number") return v.IsNumber();
  if (name == "integer") return v.IsInt();
  if (name == "float") return v.IsFloat();
  if (name == "mapping") return v.IsDict();
  if (name == "iterable") return v.IsArray() || v.IsString();
  if (name == "sequence") return v.IsArray() || v.IsObject() || v.IsString();
  if (name == "callable") return v.IsFunction();
  if (name == "lower") return v.IsString() && LowerText(v.str()) == v.str();
  if (name == "upper") return v.IsString() && UpperText(v.str()) == v.str();
  if (name == "odd" || name == "even") {
    if (!v.IsInt()) {
      return absl::InvalidArgumentError(
          absl::StrCat("test '", name, "' needs an integer, got a ", v.TypeName()));
    }
    return (v.int_value() % 2 != 0) == (name == "odd");
  }
  if (name == "divisibleby") {
    const Value d = arg(0);
    if (!v.IsInt() || !d.IsInt() || d.int_value() == 0) {
      return absl::InvalidArgumentError("test 'divisibleby' needs two integers, the second not 0");
    }
    return v.int_value() % d.int_value() == 0;
  }
  if (name == "equalto" || name == "eq" || name == "==") return LooseEquals(v, arg(0));
  if (name == "ne" || name == "!=") return !LooseEquals(v, arg(0));
  if (name == "sameas") {
    const Value b = arg(0);
    if (v.IsArray() || v.IsObject()) return v.Equals(b) && v.kind() == b.kind();
    return v.kind() == b.kind() && LooseEquals(v, b);
  }
  if (name == "lt" || name == "gt" || name == "le" || name == "ge" || name == "lessthan" ||
      name == "greaterthan") {
    EDGEQ_ASSIGN_OR_RETURN(int c, CompareValues(v, arg(0), true));
    if (name == "lt" || name == "lessthan") return c < 0;
    if (name == "gt" || name == "greaterthan") return c > 0;
    return name == "le" ? c <= 0 : c >= 0;
  }
  if (name == "in") {
    const Value c = arg(0);
    if (c.IsArray()) {
      for (const Value& e : c.array()) {
        if (LooseEquals(e, v)) return true;
      }
      return false;
    }
    if (c.IsString() && v.IsString()) return c.str().find(v.str()) != std::string::npos;
    if (c.IsObject() && v.IsString()) return c.object().Find(v.str()) != nullptr;
    return false;
  }
  return absl::NotFoundError(absl::StrCat("unknown test '", name, "'"));
}

namespace {

absl::StatusOr<Value> Range(Interpreter& in, const CallArgs& a) {
  int64_t start = 0, stop = 0, step = 1;
  for (const Value& v : a.positional) {
    if (!v.IsInt()) return ArgError("range", "arguments must be integers");
  }
  if (a.positional.size() == 1) {
    stop = a.positional[0].int_value();
  } else if (a.positional.size() == 2 || a.positional.size() == 3) {
    start = a.positional[0].int_value();
    stop = a.positional[1].int_value();
    if (a.positional.size() == 3) step = a.positional[2].int_value();
  } else {
    return ArgError("range", "takes 1 to 3 integers");
  }
  if (step == 0) return ArgError("range", "step must not be zero");
  const double count = std::ceil((static_cast<double>(stop) - static_cast<double>(start)) /
                                 static_cast<double>(step));
  if (count > 0) EDGEQ_RETURN_IF_ERROR(in.CountIterations(static_cast<int64_t>(count)));
  std::vector<Value> items;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    items.push_back(Value::Int(i));
    if ((step > 0 && i > INT64_MAX - step) || (step < 0 && i < INT64_MIN - step)) break;
  }
  return Value::Array(std::move(items));
}

absl::StatusOr<Value> Namespace(Interpreter&, const CallArgs& a) {
  Value ns = Value::MakeObject(true);
  if (a.positional.size() > 1) return ArgError("namespace", "takes at most one dict");
  if (a.positional.size() == 1) {
    const Value& src = a.positional[0];
    if (src.IsDict()) {
      for (const auto& kv : src.object().entries()) ns.mutable_object().Set(kv.first, kv.second);
    } else if (src.IsArray()) {
      for (const Value& pair : src.array()) {
        if (!pair.IsArray() || pair.array().size() != 2 || !pair.array()[0].IsString()) {
          return ArgError("namespace", "expected (key, value) pairs with string keys");
        }
        ns.mutable_object().Set(pair.array()[0].str(), pair.array()[1]);
      }
    } else {
      return ArgError("namespace", absl::StrCat("cannot read entries from a ", src.TypeName()));
    }
  }
  for (const auto& kv : a.keyword) ns.mutable_object().Set(kv.first, kv.second);
  return ns;
}

std::string Strftime(const std::string& format, std::time_t t) {
  static const char* kMonths[] = {"January",   "February", "March",    "April",
                                  "May",       "June",     "July",     "August",
                                  "September", "October",  "November", "December"};
  static const char* kDays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                "Thursday", "Friday", "Saturday"};
  std::tm tm{};
  gmtime_r(&t, &tm);
  auto pad2 = [](int n) { return n < 10 ? absl::StrCat("0", n) : absl::StrCat(n); };
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 >= format.size()) {
      out += format[i];
      continue;
    }
    const char c = format[++i];
    switch (c) {
      case 'Y':
        out += absl::StrCat(tm.tm_year + 1900);
        break;
      case 'y':
        out += pad2((tm.tm_year + 1900) % 100);
        break;
      case 'm':
        out += pad2(tm.tm_mon + 1);
        break;
      case 'd':
        out += pad2(tm.tm_mday);
        break;
      case 'b':
        out += std::string(kMonths[tm.tm_mon]).substr(0, 3);
        break;
      case 'B':
        out += kMonths[tm.tm_mon];
        break;
      case 'a':
        out += std::string(kDays[tm.tm_wday]).substr(0, 3);
        break;
      case 'A':
        out += kDays[tm.tm_wday];
        break;
      case 'H':
        out += pad2(tm.tm_hour);
        break;
      case 'M':
        out += pad2(tm.tm_min);
        break;
      case 'S':
        out += pad2(tm.tm_sec);
        break;
      case '%':
        out += '%';
        break;
      default:
        out += '%';
        out += c;
    }
  }
  return out;
}

}  // namespace

void AddGlobals(Env* env) {
  env->Set("true", Value::Bool(true));
  env->Set("false", Value::Bool(false));
  env->Set("none", Value::Null());
  env->Set("True", Value::Bool(true));
  env->Set("False", Value::Bool(false));
  env->Set("None", Value::Null());
  env->Set("range", Value::MakeFunction("range", Range));
  env->Set("namespace", Value::MakeFunction("namespace", Namespace));
  env->Set("dict", Value::MakeFunction(
                       "dict", [](Interpreter&, const CallArgs& a) -> absl::StatusOr<Value> {
                         Value d = Value::MakeObject();
                         if (!a.positional.empty()) {
                           if (!a.positional[0].IsDict())
                             return ArgError("dict", "the argument must be a dict");
                           for (const auto& kv : a.positional[0].object().entries()) {
                             d.mutable_object().Set(kv.first, kv.second);
                           }
                         }
                         for (const auto& kv : a.keyword)
                           d.mutable_object().Set(kv.first, kv.second);
                         return d;
                       }));
  env->Set("raise_exception",
           Value::MakeFunction(
               "raise_exception", [](Interpreter&, const CallArgs& a) -> absl::StatusOr<Value> {
                 const std::string msg = a.positional.empty() ? "" : a.positional[0].ToString();
                 return absl::FailedPreconditionError(msg);
               }));
  env->Set("strftime_now",
           Value::MakeFunction("strftime_now",
                               [](Interpreter& in, const CallArgs& a) -> absl::StatusOr<Value> {
                                 if (a.positional.empty() || !a.positional[0].IsString()) {
                                   return ArgError("strftime_now", "needs a format string");
                                 }
                                 const std::time_t now =
                                     in.options().clock ? in.options().clock() : std::time(nullptr);
                                 return Value::String(Strftime(a.positional[0].str(), now));
                               }));
}

}  // namespace jinja
}  // namespace edgeq
