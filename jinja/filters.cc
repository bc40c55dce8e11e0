// The filters (`value | name(args)`).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
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

absl::Status FilterError(absl::string_view name, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("filter '", name, "': ", what));
}

// Positional argument i, else keyword `key`, else `fallback`.
Value Arg(const CallArgs& a, size_t i, absl::string_view key, Value fallback = Value()) {
  if (i < a.positional.size()) return a.positional[i];
  if (const Value* v = a.Keyword(key)) return *v;
  return fallback;
}

// item.a.b (dict keys, list indexes), as Jinja's attribute= arguments read it.
Value Attribute(const Value& item, const std::string& path) {
  Value v = item;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (v.IsObject()) {
      const Value* f = v.object().Find(part);
      v = f ? *f : Value();
    } else if (v.IsArray() && !part.empty() &&
               part.find_first_not_of("0123456789") == std::string::npos && part.size() < 10) {
      const size_t i = std::stoul(part);
      v = i < v.array().size() ? v.array()[i] : Value();
    } else {
      return Value();
    }
    if (dot == std::string::npos) return v;
    start = dot + 1;
  }
}

absl::StatusOr<std::vector<Value>> Items(absl::string_view name, const Value& v) {
  if (v.IsArray()) return v.array();
  if (v.IsDict()) {
    std::vector<Value> keys;
    for (const auto& kv : v.object().entries()) keys.push_back(Value::String(kv.first));
    return keys;
  }
  if (v.IsString()) {
    std::vector<Value> chars;
    for (uint32_t cp : CodePoints(v.str())) {
      std::string s;
      AppendUtf8(cp, &s);
      chars.push_back(Value::String(std::move(s)));
    }
    return chars;
  }
  return FilterError(name, absl::StrCat("expected a list, got a ", v.TypeName()));
}

absl::StatusOr<Value> ToJsonFilter(Interpreter& in, const Value& v, const CallArgs& a) {
  EDGEQ_RETURN_IF_ERROR(in.ChargeWalk(v));
  JsonOptions o;
  const Value indent = Arg(a, 0, "indent");
  if (indent.IsInt()) {
    if (indent.int_value() > 64) return FilterError("tojson", "indent is larger than 64");
    o.indent = static_cast<int>(indent.int_value());
  } else if (!indent.IsUndefined() && !indent.IsNull()) {
    return FilterError("tojson", "indent must be an integer");
  }
  const Value ascii = Arg(a, 99, "ensure_ascii", Value::Bool(false));
  const Value sort = Arg(a, 99, "sort_keys", Value::Bool(false));
  if (!ascii.IsBool() || !sort.IsBool()) {
    return FilterError("tojson", "ensure_ascii and sort_keys must be booleans");
  }
  o.ensure_ascii = ascii.bool_value();
  o.sort_keys = sort.bool_value();
  const Value seps = Arg(a, 99, "separators");
  std::string item_sep, key_sep;
  if (seps.IsArray()) {
    if (seps.array().size() != 2 || !seps.array()[0].IsString() || !seps.array()[1].IsString()) {
      return FilterError("tojson", "separators must be two strings");
    }
    item_sep = seps.array()[0].str();
    key_sep = seps.array()[1].str();
    o.item_separator = item_sep.c_str();
    o.key_separator = key_sep.c_str();
  }
  EDGEQ_ASSIGN_OR_RETURN(std::string s, v.ToJson(o, in.limits().max_depth));
  EDGEQ_RETURN_IF_ERROR(in.CheckSize(s.size(), "tojson output"));
  return Value::String(std::move(s));
}

absl::StatusOr<Value> Join(Interpreter& in, const Value& v, const CallArgs& a) {
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items("join", v));
  EDGEQ_RETURN_IF_ERROR(in.ChargeWalk(v));
  const Value sep = Arg(a, 0, "d", Value::String(""));
  if (!sep.IsString()) return FilterError("join", "the separator must be a string");
  const Value attr = Arg(a, 1, "attribute");
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep.str();
    const Value item = attr.IsString() ? Attribute(items[i], attr.str()) : items[i];
    out += in.Concat(item);
    EDGEQ_RETURN_IF_ERROR(in.CheckSize(out.size(), "join output"));
  }
  return Value::String(std::move(out));
}

absl::StatusOr<Value> Sort(const Value& v, const CallArgs& a) {
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items("sort", v));
  const Value reverse = Arg(a, 0, "reverse", Value::Bool(false));
  const Value cs = Arg(a, 1, "case_sensitive", Value::Bool(false));
  const Value attr = Arg(a, 2, "attribute");
  absl::Status error;
  auto key = [&](const Value& x) {
    if (attr.IsString()) return Attribute(x, attr.str());
    if (attr.IsInt()) return Attribute(x, absl::StrCat(attr.int_value()));
    return x;
  };
  std::stable_sort(items.begin(), items.end(), [&](const Value& x, const Value& y) {
    absl::StatusOr<int> c = CompareValues(key(x), key(y), cs.Truthy());
    if (!c.ok()) {
      error = c.status();
      return false;
    }
    return reverse.Truthy() ? *c > 0 : *c < 0;
  });
  if (!error.ok()) return FilterError("sort", error.message());
  return Value::Array(std::move(items));
}

absl::StatusOr<Value> DictSort(const Value& v, const CallArgs& a) {
  if (!v.IsDict()) return FilterError("dictsort", "expected a dict");
  const Value cs = Arg(a, 0, "case_sensitive", Value::Bool(false));
  const Value by = Arg(a, 1, "by", Value::String("key"));
  const Value reverse = Arg(a, 2, "reverse", Value::Bool(false));
  if (!by.IsString() || (by.str() != "key" && by.str() != "value")) {
    return FilterError("dictsort", "by must be 'key' or 'value'");
  }
  std::vector<Value> pairs;
  for (const auto& kv : v.object().entries()) {
    pairs.push_back(Value::Array({Value::String(kv.first), kv.second}));
  }
  const size_t k = by.str() == "key" ? 0 : 1;
  absl::Status error;
  std::stable_sort(pairs.begin(), pairs.end(), [&](const Value& x, const Value& y) {
    absl::StatusOr<int> c = CompareValues(x.array()[k], y.array()[k], cs.Truthy());
    if (!c.ok()) {
      error = c.status();
      return false;
    }
    return reverse.Truthy() ? *c > 0 : *c < 0;
  });
  if (!error.ok()) return FilterError("dictsort", error.message());
  return Value::Array(std::move(pairs));
}

// select/reject (test on the item) and selectattr/rejectattr (test on an attribute).
absl::StatusOr<Value> Select(Interpreter& in, const std::string& name, const Value& v,
                             const CallArgs& a) {
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items(name, v));
  const bool by_attr = name == "selectattr" || name == "rejectattr";
  const bool keep_match = name == "select" || name == "selectattr";
  size_t next = 0;
  std::string attr;
  if (by_attr) {
    if (a.positional.empty() || !a.positional[0].IsString()) {
      return FilterError(name, "the first argument must be an attribute name");
    }
    attr = a.positional[0].str();
    next = 1;
  }
  std::string test;
  if (next < a.positional.size()) {
    if (!a.positional[next].IsString()) return FilterError(name, "the test name must be a string");
    test = a.positional[next].str();
  }
  std::vector<Value> test_args;
  for (size_t i = next + 1; i < a.positional.size(); ++i) test_args.push_back(a.positional[i]);
  std::vector<Value> out;
  for (const Value& item : items) {
    EDGEQ_RETURN_IF_ERROR(in.CountIterations(1));
    if (by_attr && !item.IsObject()) {
      return FilterError(name, absl::StrCat("expected a list of dicts, got a ", item.TypeName()));
    }
    const Value x = by_attr ? Attribute(item, attr) : item;
    bool hit;
    if (test.empty()) {
      hit = x.Truthy();
    } else if (by_attr && x.IsUndefined()) {
      hit = false;  // as @huggingface/jinja: a missing attribute never passes
    } else {
      absl::StatusOr<bool> r = ApplyTest(in, test, x, test_args);
      if (!r.ok()) return FilterError(name, r.status().message());
      hit = *r;
    }
    if (hit == keep_match) out.push_back(item);
  }
  return Value::Array(std::move(out));
}

absl::StatusOr<Value> Map(Interpreter& in, const Value& v, const CallArgs& a, const EnvPtr& env) {
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items("map", v));
  std::vector<Value> out;
  if (const Value* attr = a.Keyword("attribute")) {
    if (!attr->IsString()) return FilterError("map", "attribute must be a string");
    const Value* fallback = a.Keyword("default");
    for (const Value& item : items) {
      EDGEQ_RETURN_IF_ERROR(in.CountIterations(1));
      Value x = Attribute(item, attr->str());
      out.push_back(x.IsUndefined() && fallback ? *fallback : x);
    }
    return Value::Array(std::move(out));
  }
  if (a.positional.empty() || !a.positional[0].IsString()) {
    return FilterError("map", "needs attribute='name' or the name of a filter");
  }
  CallArgs rest;
  rest.positional.assign(a.positional.begin() + 1, a.positional.end());
  rest.keyword = a.keyword;
  for (const Value& item : items) {
    EDGEQ_RETURN_IF_ERROR(in.CountIterations(1));
    EDGEQ_ASSIGN_OR_RETURN(Value x, ApplyFilter(in, a.positional[0].str(), item, rest, env));
    out.push_back(std::move(x));
  }
  return Value::Array(std::move(out));
}

absl::StatusOr<Value> Replace(Interpreter& in, const Value& v, const CallArgs& a) {
  if (!v.IsString()) return FilterError("replace", "expected a string");
  const Value from = Arg(a, 0, "old"), to = Arg(a, 1, "new");
  const Value count = Arg(a, 2, "count", Value::Int(-1));
  if (!from.IsString() || !to.IsString()) return FilterError("replace", "needs two strings");
  if (!count.IsInt() && !count.IsNull()) return FilterError("replace", "count must be an integer");
  int64_t left = count.IsInt() && count.int_value() >= 0 ? count.int_value() : INT64_MAX;
  const std::string& s = v.str();
  std::string out;
  if (from.str().empty()) {
    // Python: the new text before every character and at the end.
    const std::vector<uint32_t> cps = CodePoints(s);
    for (size_t i = 0; i <= cps.size(); ++i) {
      if (left > 0) {
        out += to.str();
        --left;
      }
      if (i < cps.size()) AppendUtf8(cps[i], &out);
      EDGEQ_RETURN_IF_ERROR(in.CheckSize(out.size(), "replace output"));
    }
    return Value::String(std::move(out));
  }
  size_t pos = 0;
  while (left > 0) {
    const size_t f = s.find(from.str(), pos);
    if (f == std::string::npos) break;
    out.append(s, pos, f - pos);
    out += to.str();
    pos = f + from.str().size();
    --left;
    EDGEQ_RETURN_IF_ERROR(in.CheckSize(out.size(), "replace output"));
  }
  out.append(s, pos, std::string::npos);
  return Value::String(std::move(out));
}

absl::StatusOr<Value> Indent(Interpreter& in, const Value& v, const CallArgs& a) {
  if (!v.IsString()) return FilterError("indent", "expected a string");
  const Value width = Arg(a, 0, "width", Value::Int(4));
  const Value first = Arg(a, 1, "first", Value::Bool(false));
  const Value blank = Arg(a, 2, "blank", Value::Bool(false));
  std::string pad;
  if (width.IsInt()) {
    if (width.int_value() < 0 || width.int_value() > 1024) {
      return FilterError("indent", "width must be 0..1024");
    }
    pad.assign(width.int_value(), ' ');
  } else if (width.IsString()) {
    pad = width.str();
  } else {
    return FilterError("indent", "width must be an integer or a string");
  }
  std::string out;
  const std::string& s = v.str();
  size_t start = 0;
  for (int line = 0;; ++line) {
    const size_t nl = s.find('\n', start);
    const std::string text = s.substr(start, nl == std::string::npos ? nl : nl - start);
    if ((line > 0 || first.Truthy()) && (!text.empty() || blank.Truthy())) out += pad;
    out += text;
    EDGEQ_RETURN_IF_ERROR(in.CheckSize(out.size(), "indent output"));
    if (nl == std::string::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return Value::String(std::move(out));
}

// int/float from a string: leading number as JavaScript's parseInt/parseFloat read it.
Value ParseNumber(const std::string& s, bool as_int, const Value& fallback) {
  const std::string t = TrimText(s, true, false);
  char* end = nullptr;
  if (as_int) {
    const long long i = std::strtoll(t.c_str(), &end, 10);
    return end == t.c_str() ? fallback : Value::Int(i);
  }
  const double d = std::strtod(t.c_str(), &end);
  return end == t.c_str() ? fallback : Value::Float(d);
}

absl::StatusOr<Value> Round(const Value& v, const CallArgs& a) {
  if (!v.IsNumber()) return FilterError("round", "expected a number");
  const Value precision = Arg(a, 0, "precision", Value::Int(0));
  const Value method = Arg(a, 1, "method", Value::String("common"));
  if (!precision.IsInt() || !method.IsString()) return FilterError("round", "bad arguments");
  const double scale = std::pow(10.0, static_cast<double>(precision.int_value()));
  double x = v.number() * scale;
  if (method.str() == "ceil") {
    x = std::ceil(x);
  } else if (method.str() == "floor") {
    x = std::floor(x);
  } else {
    x = std::round(x);
  }
  return Value::Float(x / scale);
}

absl::StatusOr<Value> Batch(Interpreter& in, const Value& v, const CallArgs& a) {
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items("batch", v));
  const Value size = Arg(a, 0, "linecount");
  if (!size.IsInt() || size.int_value() <= 0) {
    return FilterError("batch", "the batch size must be a positive integer");
  }
  const Value fill = Arg(a, 1, "fill_with");
  std::vector<Value> out, cur;
  for (const Value& item : items) {
    cur.push_back(item);
    if (static_cast<int64_t>(cur.size()) == size.int_value()) {
      out.push_back(Value::Array(std::move(cur)));
      cur.clear();
    }
  }
  if (!cur.empty()) {
    if (!fill.IsUndefined()) {
      EDGEQ_RETURN_IF_ERROR(in.CountIterations(size.int_value()));
      while (static_cast<int64_t>(cur.size()) < size.int_value()) cur.push_back(fill);
    }
    out.push_back(Value::Array(std::move(cur)));
  }
  return Value::Array(std::move(out));
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

absl::StatusOr<Value> MinMaxSum(const std::string& name, const Value& v, const CallArgs& a) {
  EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items(name, v));
  const Value attr = Arg(a, name == "sum" ? 0 : 1, "attribute");
  auto key = [&](const Value& x) { return attr.IsString() ? Attribute(x, attr.str()) : x; };
  if (name == "sum") {
    Value total = Arg(a, 1, "start", Value::Int(0));
    for (const Value& item : items) {
      const Value x = key(item);
      if (!x.IsNumber() || !total.IsNumber()) return FilterError("sum", "items must be numbers");
      if (x.IsInt() && total.IsInt()) {
        int64_t r;
        if (__builtin_add_overflow(total.int_value(), x.int_value(), &r)) {
          return FilterError("sum", "integer overflow");
        }
        total = Value::Int(r);
      } else {
        total = Value::Float(total.number() + x.number());
      }
    }
    return total;
  }
  if (items.empty()) return Value();
  Value best = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    EDGEQ_ASSIGN_OR_RETURN(int c, CompareValues(key(items[i]), key(best), false));
    if ((name == "min" && c < 0) || (name == "max" && c > 0)) best = items[i];
  }
  return best;
}

// Filters on strings, numbers and dicts: the rest of ApplyFilter.
absl::StatusOr<Value> ApplyScalarFilter(Interpreter& in, const std::string& name, const Value& v,
                                        const CallArgs& a, const EnvPtr& env);

}  // namespace

absl::StatusOr<Value> ApplyFilter(Interpreter& in, const std::string& name, const Value& v,
                                  const CallArgs& a, const EnvPtr& env) {
  if (name == "safe") return v;
  if (name == "tojson") return ToJsonFilter(in, v, a);
  if (name == "default" || name == "d") {
    const Value fallback = Arg(a, 0, "default_value", Value::String(""));
    const Value boolean = Arg(a, 1, "boolean", Value::Bool(false));
    if (v.IsUndefined() || (boolean.Truthy() && !v.Truthy())) return fallback;
    return v;
  }
  if (name == "length" || name == "count") {
    if (v.IsString()) return Value::Int(static_cast<int64_t>(CodePoints(v.str()).size()));
    if (v.IsArray()) return Value::Int(static_cast<int64_t>(v.array().size()));
    if (v.IsObject()) return Value::Int(static_cast<int64_t>(v.object().size()));
    return FilterError(name, absl::StrCat("a ", v.TypeName(), " has no length"));
  }
  if (name == "list") {
    EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items(name, v));
    return Value::Array(std::move(items));
  }
  if (name == "first" || name == "last") {
    if (v.IsString()) {
      const std::vector<uint32_t> cps = CodePoints(v.str());
      if (cps.empty()) return Value();
      return Value::String(name == "first" ? FromCodePoints(cps, 0, 1)
                                           : FromCodePoints(cps, cps.size() - 1, cps.size()));
    }
    EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items(name, v));
    if (items.empty()) return Value();
    return name == "first" ? items.front() : items.back();
  }
  if (name == "reverse") {
    if (v.IsString()) {
      std::vector<uint32_t> cps = CodePoints(v.str());
      std::reverse(cps.begin(), cps.end());
      return Value::String(FromCodePoints(cps, 0, cps.size()));
    }
    EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items(name, v));
    std::reverse(items.begin(), items.end());
    return Value::Array(std::move(items));
  }
  if (name == "sort") return Sort(v, a);
  if (name == "dictsort") return DictSort(v, a);
  if (name == "join") return Join(in, v, a);
  if (name == "unique") {
    EDGEQ_ASSIGN_OR_RETURN(std::vector<Value> items, Items(name, v));
    std::vector<Value> out;
    for (const Value& item : items) {
      EDGEQ_RETURN_IF_ERROR(in.CountIterations(static_cast<int64_t>(out.size()) * item.size() + 1));
      bool seen = false;
      for (const Value& o : out) seen = seen || LooseEquals(o, item);
      if (!seen) out.push_back(item);
    }
    return Value::Array(std::move(out));
  }
  return ApplyScalarFilter(in, name, v, a, env);
}

namespace {

absl::StatusOr<Value> ApplyScalarFilter(Interpreter& in, const std::string& name, const Value& v,
                                        const CallArgs& a, const EnvPtr& env) {
  if (name == "string") {
    EDGEQ_RETURN_IF_ERROR(in.ChargeWalk(v));
    return Value::String(in.Text(v));
  }
  if (name == "upper" || name == "lower" || name == "title" || name == "capitalize") {
    if (!v.IsString()) return FilterError(name, "expected a string");
    if (name == "upper") return Value::String(UpperText(v.str()));
    if (name == "lower") return Value::String(LowerText(v.str()));
    if (name == "title") return Value::String(TitleText(v.str()));
    return Value::String(CapitalizeText(v.str()));
  }
  if (name == "trim") {
    if (!v.IsString()) return FilterError(name, "expected a string");
    const Value chars = Arg(a, 0, "chars");
    return Value::String(
        TrimText(v.str(), true, true, chars.IsString() ? chars.str() : "", chars.IsString()));
  }
  if (name == "indent") return Indent(in, v, a);
  if (name == "replace") return Replace(in, v, a);
  if (name == "int" || name == "float") {
    const Value fallback = Arg(a, 0, "default", name == "int" ? Value::Int(0) : Value::Float(0));
    if (v.IsString()) return ParseNumber(v.str(), name == "int", fallback);
    if (v.IsBool()) return name == "int" ? Value::Int(v.bool_value()) : Value::Float(v.number());
    if (v.IsInt()) return name == "int" ? v : Value::Float(v.number());
    if (v.IsFloat()) {
      if (name == "float") return v;
      const double f = std::floor(v.float_value());
      if (!(std::fabs(f) < 9.2e18)) {
        return std::isfinite(f) ? Value::Float(f) : fallback;  // beyond int64: as JavaScript
      }
      return Value::Int(static_cast<int64_t>(f));
    }
    return FilterError(name, absl::StrCat("cannot convert a ", v.TypeName()));
  }
  if (name == "bool") return Value::Bool(v.Truthy());
  if (name == "abs") {
    if (v.IsInt()) {
      if (v.int_value() == INT64_MIN) return Value::Float(-v.number());
      return Value::Int(std::llabs(v.int_value()));
    }
    if (v.IsFloat()) return Value::Float(std::fabs(v.float_value()));
    return FilterError(name, "expected a number");
  }
  if (name == "round") return Round(v, a);
  if (name == "items") {
    if (!v.IsObject())
      return FilterError(name, absl::StrCat("expected a dict, got a ", v.TypeName()));
    std::vector<Value> out;
    for (const auto& kv : v.object().entries()) {
      out.push_back(Value::Array({Value::String(kv.first), kv.second}));
    }
    return Value::Array(std::move(out));
  }
  if (name == "select" || name == "reject" || name == "selectattr" || name == "rejectattr") {
    return Select(in, name, v, a);
  }
  if (name == "map") return Map(in, v, a, env);
  if (name == "batch") return Batch(in, v, a);
  if (name == "escape" || name == "e" || name == "forceescape") {
    return Value::String(Escape(in.Text(v)));
  }
  if (name == "wordcount") {
    if (!v.IsString()) return FilterError(name, "expected a string");
    int64_t words = 0;
    bool in_word = false;
    for (uint32_t cp : CodePoints(v.str())) {
      const bool w = IsWordChar(cp) || cp >= 0x80;
      if (w && !in_word) ++words;
      in_word = w;
    }
    return Value::Int(words);
  }
  if (name == "min" || name == "max" || name == "sum") return MinMaxSum(name, v, a);
  return FilterError(name, "unknown filter");
}

}  // namespace

}  // namespace jinja
}  // namespace edgeq
