// Binary operators, equality and ordering, with @huggingface/jinja's semantics (Python's where
// it has none: string ordering, checked integer overflow, division by zero).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/interpreter.h"
#include "jinja/text.h"

namespace edgeq {
namespace jinja {

std::string ConcatText(const Value& v) {
  if (v.IsFloat()) return FormatJsNumber(v.float_value());
  if (v.IsArray()) {
    // JavaScript's Array#toString over @huggingface/jinja's values: items joined by ",", each
    // as the value prints itself (lists and dicts as JSON), none as "null".
    std::string out;
    for (size_t i = 0; i < v.array().size(); ++i) {
      if (i > 0) out += ",";
      const Value& item = v.array()[i];
      out += item.IsNull() ? "null" : item.IsUndefined() ? "undefined" : item.ToString();
    }
    return out;
  }
  if (v.IsObject()) return "[object Map]";  // as @huggingface/jinja (a JavaScript Map)
  return v.ToString();
}

namespace {

bool IsNumeric(const Value& v) { return v.IsInt() || v.IsFloat() || v.IsBool(); }

// JavaScript's Number(string): trimmed decimal, "" -> 0, otherwise NaN.
double JsNumber(const std::string& s) {
  const std::string t = TrimText(s, true, true);
  if (t.empty()) return 0;
  double d;
  if (absl::SimpleAtod(t, &d)) return d;
  return std::nan("");
}

bool StrictEquals(const Value& a, const Value& b) {
  if (a.IsNumber() && b.IsNumber()) return a.number() == b.number();
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return a.bool_value() == b.bool_value();
    case Value::Kind::kString:
      return a.str() == b.str();
    default:
      return a.Equals(b);
  }
}

}  // namespace

bool LooseEquals(const Value& a, const Value& b) {
  if (IsNumeric(a) && IsNumeric(b)) {
    if (a.IsInt() && b.IsInt()) return a.int_value() == b.int_value();
    return a.number() == b.number();
  }
  if (a.IsString() && IsNumeric(b)) return JsNumber(a.str()) == b.number();
  if (IsNumeric(a) && b.IsString()) return a.number() == JsNumber(b.str());
  return a.Equals(b);
}

absl::StatusOr<int> CompareValues(const Value& a, const Value& b, bool case_sensitive) {
  if (a.IsNull() && b.IsNull()) return 0;
  if (a.IsUndefined() && b.IsUndefined()) return 0;
  if (IsNumeric(a) && IsNumeric(b)) {
    const double x = a.number(), y = b.number();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a.IsString() && b.IsString()) {
    std::string x = a.str(), y = b.str();
    if (!case_sensitive) {
      x = LowerText(x);
      y = LowerText(y);
    }
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot compare a ", a.TypeName(), " with a ", b.TypeName()));
}

namespace {

absl::StatusOr<Value> Arithmetic(Interpreter& in, const Node& node, const Value& l,
                                 const Value& r) {
  const std::string& op = node.text;
  const bool floats = l.IsFloat() || r.IsFloat();
  if (op == "**") {
    const double a = l.number(), b = r.number();
    if (a == 0 && b < 0) return in.Error(node, "0.0 cannot be raised to a negative power");
    const double p = std::pow(a, b);
    if (!std::isfinite(p)) return in.Error(node, "the power is not a finite real number");
    if (floats || b < 0) return Value::Float(p);
    if (std::fabs(p) >= 9.2e18) return in.Error(node, "integer overflow in **");
    // Exact integer power, by squaring.
    int64_t result = 1, base = l.int_value();
    for (uint64_t e = static_cast<uint64_t>(r.int_value()); e != 0;) {
      if ((e & 1) && __builtin_mul_overflow(result, base, &result)) {
        return in.Error(node, "integer overflow in **");
      }
      e >>= 1;
      if (e != 0 && __builtin_mul_overflow(base, base, &base)) {
        return in.Error(node, "integer overflow in **");
      }
    }
    return Value::Int(result);
  }
  if (op == "<" || op == ">" || op == "<=" || op == ">=") {
    const double a = l.number(), b = r.number();
    const bool v = op == "<" ? a < b : op == ">" ? a > b : op == "<=" ? a <= b : a >= b;
    return Value::Bool(v);
  }
  if (op == "/") {
    if (r.number() == 0) return in.Error(node, "division by zero");
    return Value::Float(l.number() / r.number());
  }
  if (floats) {
    const double a = l.number(), b = r.number();
    if (op == "+") return Value::Float(a + b);
    if (op == "-") return Value::Float(a - b);
    if (op == "*") return Value::Float(a * b);
    if (b == 0) return in.Error(node, "division by zero");
    if (op == "//") return Value::Float(std::floor(a / b));
    if (op == "%") return Value::Float(std::fmod(a, b));
  } else {
    const int64_t a = l.int_value(), b = r.int_value();
    int64_t v = 0;
    if (op == "+" || op == "-" || op == "*") {
      const bool overflow = op == "+"   ? __builtin_add_overflow(a, b, &v)
                            : op == "-" ? __builtin_sub_overflow(a, b, &v)
                                        : __builtin_mul_overflow(a, b, &v);
      if (overflow) return in.Error(node, absl::StrCat("integer overflow in ", op));
      return Value::Int(v);
    }
    if (b == 0) return in.Error(node, "division by zero");
    if (a == std::numeric_limits<int64_t>::min() && b == -1) {
      return in.Error(node, absl::StrCat("integer overflow in ", op));
    }
    if (op == "//") {
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return Value::Int(q);
    }
    if (op == "%") return Value::Int(a % b);  // JavaScript's sign: that of the dividend
  }
  return in.Error(node, absl::StrCat("unknown operator ", op));
}

}  // namespace

absl::StatusOr<Value> Interpreter::EvalBinary(const Node& node, const EnvPtr& env) {
  const std::string& op = node.text;
  EDGEQ_ASSIGN_OR_RETURN(Value l, Eval(*node.a, env));
  if (op == "and") return l.Truthy() ? Eval(*node.b, env) : l;
  if (op == "or") return l.Truthy() ? l : Eval(*node.b, env);
  EDGEQ_ASSIGN_OR_RETURN(Value r, Eval(*node.b, env));
  current_node_ = &node;
  if (op == "==" || op == "!=") {
    EDGEQ_RETURN_IF_ERROR(ChargeWalk(l.size() < r.size() ? l : r));
    return Value::Bool(LooseEquals(l, r) == (op == "=="));
  }
  const bool membership = op == "in" || op == "not in";
  if (l.IsUndefined() || r.IsUndefined()) {
    if (r.IsUndefined() && membership) return Value::Bool(op == "not in");
    return Error(node, absl::StrCat("cannot apply ", op, " to an undefined value"));
  }
  if (l.IsNull() || r.IsNull()) {
    return Error(node, absl::StrCat("cannot apply ", op, " to none"));
  }
  EDGEQ_RETURN_IF_ERROR(ChargeWalk(r));
  EDGEQ_RETURN_IF_ERROR(ChargeWalk(l));
  if (op == "~") {
    std::string s = Concat(l) + Concat(r);
    EDGEQ_RETURN_IF_ERROR(CheckSize(s.size(), "a string"));
    EDGEQ_RETURN_IF_ERROR(CountIterations(static_cast<int64_t>(s.size() >> 8)));
    return Value::String(std::move(s));
  }
  if (IsNumeric(l) && IsNumeric(r) && !(l.IsBool() && r.IsBool() && op != "**")) {
    if (op != "in" && op != "not in") {
      Value a = l.IsBool() ? Value::Int(l.bool_value()) : l;
      Value b = r.IsBool() ? Value::Int(r.bool_value()) : r;
      return Arithmetic(*this, node, a, b);
    }
  }
  if (l.IsArray() && r.IsArray() && op == "+") {
    EDGEQ_RETURN_IF_ERROR(CheckSize(l.array().size() + r.array().size(), "a list"));
    std::vector<Value> items = l.array();
    items.insert(items.end(), r.array().begin(), r.array().end());
    return Value::Array(std::move(items));
  }
  if (r.IsArray() && membership) {
    bool found = false;
    for (const Value& e : r.array()) {
      if (StrictEquals(e, l)) {
        found = true;
        break;
      }
    }
    return Value::Bool(found == (op == "in"));
  }
  if ((l.IsString() || r.IsString()) && op == "+") {
    std::string s = Concat(l) + Concat(r);
    EDGEQ_RETURN_IF_ERROR(CheckSize(s.size(), "a string"));
    EDGEQ_RETURN_IF_ERROR(CountIterations(static_cast<int64_t>(s.size() >> 8)));
    return Value::String(std::move(s));
  }
  if (l.IsString() && r.IsString()) {
    if (membership)
      return Value::Bool((r.str().find(l.str()) != std::string::npos) == (op == "in"));
    if (op == "<") return Value::Bool(l.str() < r.str());
    if (op == ">") return Value::Bool(l.str() > r.str());
    if (op == "<=") return Value::Bool(l.str() <= r.str());
    if (op == ">=") return Value::Bool(l.str() >= r.str());
  }
  if (l.IsString() && r.IsObject() && membership) {
    return Value::Bool((r.object().Find(l.str()) != nullptr) == (op == "in"));
  }
  return Error(node, absl::StrCat("unsupported operator '", op, "' between a ", l.TypeName(),
                                  " and a ", r.TypeName()));
}

}  // namespace jinja
}  // namespace edgeq
