// The values a Jinja template computes with: undefined, none, booleans, 64-bit integers,
// doubles, UTF-8 strings, arrays (lists and tuples), ordered objects (dicts, namespaces) and
// callables (macros, globals, methods).
//
// Arrays and objects are shared by reference, as in Python and JavaScript: a namespace()
// assigned to two variables is one namespace, `ns.x = 1` is seen through both.
//
// Printing and truthiness follow @huggingface/jinja (the engine transformers.js runs chat
// templates with), so that a template renders byte for byte as it does there:
//   - `{{ none }}` and `{{ undefined }}` print nothing; true/false print "true"/"false";
//   - integers print in decimal, doubles with ".0" when integral ("1.0", "-0.0"), otherwise in
//     the shortest form that reads back (JavaScript's Number#toString);
//   - lists, dicts and namespaces print as JSON with Python's json.dumps spacing (", ", ": ");
//   - empty strings, lists and dicts, 0, 0.0, none and undefined are false.
#ifndef EDGEQ_JINJA_VALUE_H_
#define EDGEQ_JINJA_VALUE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace jinja {

class Value;
class Interpreter;

// Arguments of a call: positional values, then keyword arguments in the order written.
struct CallArgs {
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keyword;
  // The keyword argument `name`, or nullptr.
  const Value* Keyword(absl::string_view name) const;
};

using Function = std::function<absl::StatusOr<Value>(Interpreter&, const CallArgs&)>;

// An insertion-ordered string-keyed map (dict order is the order keys were first set).
class Object {
 public:
  const Value* Find(absl::string_view key) const;
  Value* Find(absl::string_view key);
  void Set(const std::string& key, Value value);
  size_t size() const { return entries_.size(); }
  // The deepest nesting of any value ever set here (see Value::depth()).
  int max_child_depth() const { return max_child_depth_; }
  // The number of values ever set here, counted through nested lists and objects (saturating).
  int64_t total_child_size() const { return total_child_size_; }
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, Value>> entries_;
  int max_child_depth_ = 0;
  int64_t total_child_size_ = 0;
};

struct JsonOptions {
  int indent = -1;  // < 0: one line
  bool ensure_ascii = false;
  bool sort_keys = false;
  // Item and key separators; default ", " / ": " (one line) or "," / ": " (indented).
  const char* item_separator = nullptr;
  const char* key_separator = nullptr;
};

class Value {
 public:
  enum class Kind {
    kUndefined,
    kNull,
    kBool,
    kInt,
    kFloat,
    kString,
    kArray,   // a list, or a tuple (IsTuple())
    kObject,  // a dict; a namespace (IsNamespace()) has no dict methods
    kFunction
  };

  Value() = default;  // undefined
  static Value Null();
  static Value Bool(bool b);
  static Value Int(int64_t i);
  static Value Float(double d);
  static Value String(std::string s);
  static Value Array(std::vector<Value> items = {}, bool tuple = false);
  static Value MakeObject(bool namespace_object = false);
  static Value MakeFunction(std::string name, Function fn);
  // Recursive: check the JSON's depth first (RenderChat does).
  // null -> none, numbers -> int (when integral and in range) or float, arrays, objects (in
  // the json's key order).
  static Value FromJson(const nlohmann::ordered_json& j);
  // The same for nlohmann::json, whose objects keep their keys sorted (so does the Value).
  static Value FromJson(const nlohmann::json& j);

  Kind kind() const { return kind_; }
  bool IsUndefined() const { return kind_ == Kind::kUndefined; }
  bool IsNull() const { return kind_ == Kind::kNull; }
  bool IsBool() const { return kind_ == Kind::kBool; }
  bool IsInt() const { return kind_ == Kind::kInt; }
  bool IsFloat() const { return kind_ == Kind::kFloat; }
  bool IsNumber() const { return kind_ == Kind::kInt || kind_ == Kind::kFloat; }
  bool IsString() const { return kind_ == Kind::kString; }
  bool IsArray() const { return kind_ == Kind::kArray; }
  bool IsTuple() const { return kind_ == Kind::kArray && tuple_; }
  bool IsObject() const { return kind_ == Kind::kObject; }
  bool IsNamespace() const { return kind_ == Kind::kObject && namespace_; }
  bool IsDict() const { return kind_ == Kind::kObject && !namespace_; }
  bool IsFunction() const { return kind_ == Kind::kFunction; }

  bool bool_value() const { return b_; }
  int64_t int_value() const { return i_; }
  double float_value() const { return d_; }
  // Int, float or bool as a double.
  double number() const;
  const std::string& str() const { return *s_; }
  const std::vector<Value>& array() const { return *a_; }
  std::vector<Value>& mutable_array() { return *a_; }
  const Object& object() const { return *o_; }
  Object& mutable_object() { return *o_; }
  const Function& function() const { return fn_->fn; }
  const std::string& function_name() const { return fn_->name; }

  // The shared list or object this value refers to (nullptr for other kinds): two values
  // with the same identity are one list or object.
  const void* identity() const {
    return a_ ? static_cast<const void*>(a_.get()) : static_cast<const void*>(o_.get());
  }

  // Nesting: 0 for a scalar, 1 + the deepest item for a list or object (an upper bound for
  // objects, whose items may have been replaced).
  int depth() const;
  // The values a walk of this one visits (a list shared twice counts twice): 1 for a scalar.
  // Bounded walks (printing, comparing) cost this much.
  int64_t size() const;

  bool Truthy() const;
  // The text `{{ value }}` writes (see the top of this file). Functions print as "[function]".
  std::string ToString() const;
  // Python's str() / repr(), as Jinja2 prints: None, True, 1.0, 1e-05, [1, 'a'], {'k': (1,)}.
  std::string PyStr() const;
  std::string PyRepr() const;
  // JSON text as the tojson filter writes it; InvalidArgument for a function, or past
  // `max_depth` nested containers.
  absl::StatusOr<std::string> ToJson(const JsonOptions& options = {}, int max_depth = 512) const;
  // The type name used in error messages ("string", "list", "dict", ...).
  const char* TypeName() const;
  // Same kind and equal contents (lists and dicts compared item by item); int 1 == float 1.0 ==
  // true, as in Python and JavaScript.
  bool Equals(const Value& other) const;

 private:
  bool EqualsAtDepth(const Value& other, int depth) const;
  struct FunctionHolder {
    std::string name;
    Function fn;
  };
  Kind kind_ = Kind::kUndefined;
  bool b_ = false;
  bool tuple_ = false;
  bool namespace_ = false;
  int depth_ = 0;     // lists: 1 + the deepest item
  int64_t size_ = 1;  // lists: 1 + the items' sizes (saturating)
  int64_t i_ = 0;
  double d_ = 0;
  std::shared_ptr<const std::string> s_;
  std::shared_ptr<std::vector<Value>> a_;
  std::shared_ptr<Object> o_;
  std::shared_ptr<const FunctionHolder> fn_;
};

// JavaScript's Number#toString for a double (shortest round-trip digits, exponent past 1e21).
std::string FormatJsNumber(double d);
// A JSON string literal of `s` (UTF-8); ensure_ascii escapes every code point >= 0x7f as
// \uXXXX (UTF-16 surrogate pairs above U+FFFF).
std::string JsonQuote(absl::string_view s, bool ensure_ascii);

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_VALUE_H_
