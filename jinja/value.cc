#include "jinja/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/text.h"

namespace edgeq {
namespace jinja {

const Value* CallArgs::Keyword(absl::string_view name) const {
  for (const auto& kv : keyword) {
    if (kv.first == name) return &kv.second;
  }
  return nullptr;
}

const Value* Object::Find(absl::string_view key) const {
  for (const auto& kv : entries_) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

Value* Object::Find(absl::string_view key) {
  for (auto& kv : entries_) {
    if (kv.first == key) return &kv.second;
  }
  return nullptr;
}

void Object::Set(const std::string& key, Value value) {
  max_child_depth_ = std::max(max_child_depth_, value.depth());
  total_child_size_ = std::min<int64_t>(total_child_size_ + value.size(), int64_t{1} << 60);
  if (Value* v = Find(key)) {
    *v = std::move(value);
    return;
  }
  entries_.emplace_back(key, std::move(value));
}

Value Value::Null() {
  Value v;
  v.kind_ = Kind::kNull;
  return v;
}

Value Value::Bool(bool b) {
  Value v;
  v.kind_ = Kind::kBool;
  v.b_ = b;
  return v;
}

Value Value::Int(int64_t i) {
  Value v;
  v.kind_ = Kind::kInt;
  v.i_ = i;
  return v;
}

Value Value::Float(double d) {
  Value v;
  v.kind_ = Kind::kFloat;
  v.d_ = d;
  return v;
}

Value Value::String(std::string s) {
  Value v;
  v.kind_ = Kind::kString;
  v.s_ = std::make_shared<const std::string>(std::move(s));
  return v;
}

Value Value::Array(std::vector<Value> items, bool tuple) {
  Value v;
  v.kind_ = Kind::kArray;
  v.tuple_ = tuple;
  for (const Value& item : items) {
    v.depth_ = std::max(v.depth_, item.depth());
    v.size_ = std::min<int64_t>(v.size_ + item.size(), int64_t{1} << 60);
  }
  ++v.depth_;
  v.a_ = std::make_shared<std::vector<Value>>(std::move(items));
  return v;
}

Value Value::MakeObject(bool namespace_object) {
  Value v;
  v.kind_ = Kind::kObject;
  v.namespace_ = namespace_object;
  v.o_ = std::make_shared<Object>();
  return v;
}

Value Value::MakeFunction(std::string name, Function fn) {
  Value v;
  v.kind_ = Kind::kFunction;
  v.fn_ = std::make_shared<const FunctionHolder>(FunctionHolder{std::move(name), std::move(fn)});
  return v;
}

namespace {

template <typename Json>
Value ValueFromJson(const Json& j);

}  // namespace

Value Value::FromJson(const nlohmann::ordered_json& j) { return ValueFromJson(j); }
Value Value::FromJson(const nlohmann::json& j) { return ValueFromJson(j); }

namespace {

template <typename Json>
Value ValueFromJson(const Json& j) {
  using Value = ::edgeq::jinja::Value;
  switch (j.type()) {
    case Json::value_t::null:
      return Value::Null();
    case Json::value_t::boolean:
      return Value::Bool(j.template get<bool>());
    case Json::value_t::number_integer:
      return Value::Int(j.template get<int64_t>());
    case Json::value_t::number_unsigned: {
      const uint64_t u = j.template get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Value::Int(static_cast<int64_t>(u));
      }
      return Value::Float(static_cast<double>(u));
    }
    case Json::value_t::number_float: {
      // JavaScript has one number type: an integral double is an integer to @huggingface/jinja.
      const double d = j.template get<double>();
      if (std::floor(d) == d && std::fabs(d) < 9007199254740992.0) {
        return Value::Int(static_cast<int64_t>(d));
      }
      return Value::Float(d);
    }
    case Json::value_t::string:
      return Value::String(j.template get<std::string>());
    case Json::value_t::array: {
      std::vector<Value> items;
      items.reserve(j.size());
      for (const auto& e : j) items.push_back(ValueFromJson(e));
      return Value::Array(std::move(items));
    }
    case Json::value_t::object: {
      Value o = Value::MakeObject();
      for (auto it = j.begin(); it != j.end(); ++it) {
        o.mutable_object().Set(it.key(), ValueFromJson(it.value()));
      }
      return o;
    }
    default:
      return Value();
  }
}

}  // namespace

int64_t Value::size() const {
  if (kind_ == Kind::kArray) return size_;
  if (kind_ == Kind::kObject) return 1 + o_->total_child_size();
  return 1;
}

int Value::depth() const {
  if (kind_ == Kind::kArray) return depth_;
  if (kind_ == Kind::kObject) return 1 + o_->max_child_depth();
  return 0;
}

double Value::number() const {
  switch (kind_) {
    case Kind::kInt:
      return static_cast<double>(i_);
    case Kind::kFloat:
      return d_;
    case Kind::kBool:
      return b_ ? 1.0 : 0.0;
    default:
      return 0.0;
  }
}

bool Value::Truthy() const {
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNull:
      return false;
    case Kind::kBool:
      return b_;
    case Kind::kInt:
      return i_ != 0;
    case Kind::kFloat:
      return d_ != 0 && !std::isnan(d_);
    case Kind::kString:
      return !s_->empty();
    case Kind::kArray:
      return !a_->empty();
    case Kind::kObject:
      // @huggingface/jinja: a dict is false when empty, a namespace always true.
      return namespace_ || o_->size() > 0;
    case Kind::kFunction:
      return true;
  }
  return false;
}

std::string FormatJsNumber(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return "0";
  // Shortest digits that read back to d.
  char buf[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  const std::string e(buf);
  const bool negative = e[0] == '-';
  const size_t epos = e.find('e');
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < epos; ++i) {
    if (e[i] != '.') digits.push_back(e[i]);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int exponent = std::atoi(e.c_str() + epos + 1);  // d = 0.digits * 10^(exponent + 1)
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;
  std::string out = negative ? "-" : "";
  if (k <= n && n <= 21) {
    out += digits + std::string(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n) + "." + digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0." + std::string(-n, '0') + digits;
  } else {
    out += digits.substr(0, 1);
    if (k > 1) out += "." + digits.substr(1);
    out += absl::StrCat("e", n - 1 >= 0 ? "+" : "-", std::abs(n - 1));
  }
  return out;
}

namespace {

void AppendU16Escape(std::string* out, uint32_t unit) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(unit & 0xffff));
  out->append(buf);
}

}  // namespace

std::string JsonQuote(absl::string_view s, bool ensure_ascii) {
  std::string out = "\"";
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (c < 0x20 || (ensure_ascii && c == 0x7f)) {
            AppendU16Escape(&out, c);
          } else {
            out.push_back(static_cast<char>(c));
          }
      }
      continue;
    }
    const size_t start = i;
    const uint32_t cp = DecodeUtf8(s, &i);
    if (!ensure_ascii) {
      out.append(s.data() + start, i - start);
    } else if (cp >= 0x10000) {
      AppendU16Escape(&out, 0xd800 + ((cp - 0x10000) >> 10));
      AppendU16Escape(&out, 0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      AppendU16Escape(&out, cp);
    }
  }
  out += "\"";
  return out;
}

std::string Value::ToString() const {
  switch (kind_) {
    case Kind::kUndefined:
    case Kind::kNull:
      return "";
    case Kind::kBool:
      return b_ ? "true" : "false";
    case Kind::kInt:
      return absl::StrCat(i_);
    case Kind::kFloat:
      if (d_ == 0 && std::signbit(d_)) return "-0.0";
      if (std::isfinite(d_) && std::floor(d_) == d_ && std::fabs(d_) < 1e21) {
        return FormatJsNumber(d_) + ".0";
      }
      return FormatJsNumber(d_);
    case Kind::kString:
      return *s_;
    case Kind::kArray:
    case Kind::kObject: {
      // As @huggingface/jinja: JSON, undefined members written as "undefined".
      absl::StatusOr<std::string> j = ToJson();
      return j.ok() ? *j : "[object]";
    }
    case Kind::kFunction:
      return "[function]";
  }
  return "";
}

namespace {

std::string PyFloat(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits, placed as Python's float_repr_style 'short' does.
  char buf[40];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  const std::string e(buf);
  const size_t epos = e.find('e');
  const int exponent = std::atoi(e.c_str() + epos + 1);
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = e.substr(0, epos);
    if (mantissa.find('.') != std::string::npos) {
      while (mantissa.back() == '0') mantissa.pop_back();
      if (mantissa.back() == '.') mantissa.pop_back();
    }
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return mantissa + exp;
  }
  std::string js = FormatJsNumber(d);  // fixed notation in this range
  if (js.find('.') == std::string::npos) js += ".0";
  return js;
}

std::string PyQuote(const std::string& s) {
  const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == q) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += q;
  return out;
}

void AppendPyRepr(const Value& v, int depth, std::string* out) {
  if (depth > 512 || out->size() > (64u << 20)) {
    out->append("...");
    return;
  }
  switch (v.kind()) {
    case Value::Kind::kString:
      out->append(PyQuote(v.str()));
      return;
    case Value::Kind::kArray: {
      out->push_back(v.IsTuple() ? '(' : '[');
      for (size_t i = 0; i < v.array().size(); ++i) {
        if (i > 0) out->append(", ");
        AppendPyRepr(v.array()[i], depth + 1, out);
      }
      if (v.IsTuple() && v.array().size() == 1) out->push_back(',');
      out->push_back(v.IsTuple() ? ')' : ']');
      return;
    }
    case Value::Kind::kObject: {
      if (v.IsNamespace()) out->append("<Namespace ");
      out->push_back('{');
      bool first = true;
      for (const auto& kv : v.object().entries()) {
        if (!first) out->append(", ");
        first = false;
        out->append(PyQuote(kv.first));
        out->append(": ");
        AppendPyRepr(kv.second, depth + 1, out);
      }
      out->push_back('}');
      if (v.IsNamespace()) out->push_back('>');
      return;
    }
    default:
      out->append(v.PyStr());
  }
}

}  // namespace

std::string Value::PyStr() const {
  switch (kind_) {
    case Kind::kUndefined:
      return "";
    case Kind::kNull:
      return "None";
    case Kind::kBool:
      return b_ ? "True" : "False";
    case Kind::kInt:
      return absl::StrCat(i_);
    case Kind::kFloat:
      return PyFloat(d_);
    case Kind::kString:
      return *s_;
    case Kind::kFunction:
      return absl::StrCat("<function ", fn_->name, ">");
    default:
      return PyRepr();
  }
}

std::string Value::PyRepr() const {
  std::string out;
  AppendPyRepr(*this, 0, &out);
  return out;
}

namespace {

absl::Status AppendJson(const Value& v, const JsonOptions& o, int depth, int max_depth,
                        std::string* out) {
  if (depth > max_depth) {
    return absl::InvalidArgumentError(
        absl::StrCat("tojson: value nested deeper than ", max_depth, " levels"));
  }
  const std::string item_sep = o.item_separator ? o.item_separator : (o.indent > 0 ? "," : ", ");
  const std::string key_sep = o.key_separator ? o.key_separator : ": ";
  const std::string pad = o.indent > 0 ? std::string(o.indent, ' ') : "";
  std::string base = "\n";
  for (int i = 0; i < depth && o.indent > 0; ++i) base += pad;
  const std::string child = base + pad;
  switch (v.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNull:
      out->append("null");
      return absl::OkStatus();
    case Value::Kind::kBool:
      out->append(v.bool_value() ? "true" : "false");
      return absl::OkStatus();
    case Value::Kind::kInt:
      out->append(absl::StrCat(v.int_value()));
      return absl::OkStatus();
    case Value::Kind::kFloat:
      out->append(std::isfinite(v.float_value()) ? FormatJsNumber(v.float_value()) : "null");
      return absl::OkStatus();
    case Value::Kind::kString:
      out->append(JsonQuote(v.str(), o.ensure_ascii));
      return absl::OkStatus();
    case Value::Kind::kArray: {
      const auto& items = v.array();
      out->push_back('[');
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0) out->append(item_sep);
        if (o.indent > 0) out->append(child);
        EDGEQ_RETURN_IF_ERROR(AppendJson(items[i], o, depth + 1, max_depth, out));
      }
      if (o.indent > 0 && !items.empty()) out->append(base);
      out->push_back(']');
      return absl::OkStatus();
    }
    case Value::Kind::kObject: {
      std::vector<const std::pair<std::string, Value>*> entries;
      for (const auto& kv : v.object().entries()) entries.push_back(&kv);
      if (o.sort_keys) {
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto* a, const auto* b) { return a->first < b->first; });
      }
      out->push_back('{');
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i > 0) out->append(item_sep);
        if (o.indent > 0) out->append(child);
        out->append(JsonQuote(entries[i]->first, o.ensure_ascii));
        out->append(key_sep);
        EDGEQ_RETURN_IF_ERROR(AppendJson(entries[i]->second, o, depth + 1, max_depth, out));
      }
      if (o.indent > 0 && !entries.empty()) out->append(base);
      out->push_back('}');
      return absl::OkStatus();
    }
    case Value::Kind::kFunction:
      return absl::InvalidArgumentError("tojson: a function cannot be written as JSON");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> Value::ToJson(const JsonOptions& options, int max_depth) const {
  std::string out;
  EDGEQ_RETURN_IF_ERROR(AppendJson(*this, options, 0, max_depth, &out));
  return out;
}

const char* Value::TypeName() const {
  switch (kind_) {
    case Kind::kUndefined:
      return "undefined";
    case Kind::kNull:
      return "none";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "string";
    case Kind::kArray:
      return tuple_ ? "tuple" : "list";
    case Kind::kObject:
      return namespace_ ? "namespace" : "dict";
    case Kind::kFunction:
      return "function";
  }
  return "?";
}

bool Value::Equals(const Value& other) const { return EqualsAtDepth(other, 0); }

bool Value::EqualsAtDepth(const Value& other, int depth) const {
  if (depth > 512) return false;  // a cycle made through namespaces
  const bool num_a = IsNumber() || IsBool();
  const bool num_b = other.IsNumber() || other.IsBool();
  if (num_a && num_b) {
    if (IsInt() && other.IsInt()) return i_ == other.i_;
    return number() == other.number();
  }
  if ((IsNull() || IsUndefined()) && (other.IsNull() || other.IsUndefined())) return true;
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kString:
      return *s_ == *other.s_;
    case Kind::kArray: {
      if (a_ == other.a_) return true;
      if (a_->size() != other.a_->size()) return false;
      for (size_t i = 0; i < a_->size(); ++i) {
        if (!(*a_)[i].EqualsAtDepth((*other.a_)[i], depth + 1)) return false;
      }
      return true;
    }
    case Kind::kObject: {
      if (o_ == other.o_) return true;
      if (o_->size() != other.o_->size()) return false;
      for (const auto& kv : o_->entries()) {
        const Value* w = other.o_->Find(kv.first);
        if (w == nullptr || !kv.second.EqualsAtDepth(*w, depth + 1)) return false;
      }
      return true;
    }
    case Kind::kFunction:
      return fn_ == other.fn_;
    default:
      return false;
  }
}

}  // namespace jinja
}  // namespace edgeq
