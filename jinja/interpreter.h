// The tree-walking evaluator behind Template::Render (internal to //jinja).
#ifndef EDGEQ_JINJA_INTERPRETER_H_
#define EDGEQ_JINJA_INTERPRETER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "jinja/ast.h"
#include "jinja/template.h"
#include "jinja/value.h"

namespace edgeq {
namespace jinja {

// The text `~` and string `+` write as @huggingface/jinja does (floats in JavaScript's form:
// 1.0 -> "1"; lists comma-joined).
std::string ConcatText(const Value& v);

// A scope: for-loop bodies and macro calls get their own, `if` does not.
struct Env {
  explicit Env(std::shared_ptr<Env> p) : parent(std::move(p)) {}
  const Value* Lookup(const std::string& name) const;
  void Set(const std::string& name, Value v) { vars[name] = std::move(v); }

  std::unordered_map<std::string, Value> vars;
  std::shared_ptr<Env> parent;
};
using EnvPtr = std::shared_ptr<Env>;

class Interpreter {
 public:
  Interpreter(const Limits& limits, const RenderOptions& options)
      : limits_(limits), options_(options) {}

  // Renders `body` in `env` into *out.
  absl::Status Exec(const std::vector<NodePtr>& body, const EnvPtr& env, std::string* out);
  absl::StatusOr<Value> Eval(const Node& node, const EnvPtr& env);

  // Calls a function value with arguments (in the environment of the caller, as
  // @huggingface/jinja's macros see it).
  absl::StatusOr<Value> Call(const Value& fn, const CallArgs& args, const EnvPtr& env);

  // The text `{{ v }}` writes (RenderOptions::python_printing picks Python's or
  // @huggingface/jinja's form); Concat: the form `~` and join use.
  std::string Text(const Value& v) const {
    return options_.python_printing ? v.PyStr() : v.ToString();
  }
  std::string Concat(const Value& v) const {
    return options_.python_printing ? v.PyStr() : ConcatText(v);
  }

  // Budget checks; each returns ResourceExhausted naming the limit.
  // A value kept (assigned, bound to a parameter, built as a literal) may hold at most
  // max_loop_iterations values and nest max_depth deep; walking it costs its size.
  absl::Status CheckValue(const Value& v, int line) const;
  absl::Status ChargeWalk(const Value& v) {
    return v.size() > 1 ? CountIterations(v.size()) : absl::OkStatus();
  }
  absl::Status CountIterations(int64_t n);
  absl::Status CheckSize(size_t bytes_or_items, absl::string_view what) const;

  // An error "template line N: what" (InvalidArgument).
  absl::Status Error(const Node& node, absl::string_view what) const;

  const Limits& limits() const { return limits_; }
  const RenderOptions& options() const { return options_; }
  // The environment of the innermost call (macros evaluate their bodies in a child of it).
  const EnvPtr& call_env() const { return call_env_; }
  const Node* current_node() const { return current_node_; }

 private:
  struct DepthGuard;
  absl::Status ExecOne(const Node& node, const EnvPtr& env, std::string* out);
  absl::Status ExecFor(const Node& node, const EnvPtr& env, std::string* out);
  absl::Status ExecSet(const Node& node, const EnvPtr& env);
  absl::Status Assign(const Node& target, const Value& value, const EnvPtr& env);
  // Whether `v` holds (at any depth) the list or object `target`.
  absl::StatusOr<bool> Reaches(const Value& v, const void* target,
                               std::vector<const void*>* visited);
  absl::Status DefineMacro(const Node& node, const EnvPtr& env);
  absl::Status ExecCallBlock(const Node& node, const EnvPtr& env, std::string* out);
  absl::StatusOr<Value> EvalBinary(const Node& node, const EnvPtr& env);
  absl::StatusOr<Value> EvalMember(const Node& node, const EnvPtr& env);
  absl::StatusOr<Value> EvalCall(const Node& node, const EnvPtr& env);
  absl::StatusOr<CallArgs> EvalArgs(const std::vector<NodePtr>& items, const EnvPtr& env);
  absl::StatusOr<Value> EvalSlice(const Value& object, const Node& slice, const EnvPtr& env);

  Limits limits_;
  RenderOptions options_;
  int depth_ = 0;
  int64_t iterations_ = 0;
  enum class Flow { kNormal, kBreak, kContinue } flow_ = Flow::kNormal;
  int loop_depth_ = 0;
  EnvPtr call_env_;
  const Node* current_node_ = nullptr;
};

// Builtins (builtins.cc).
// The filter `name` applied to `operand`.
absl::StatusOr<Value> ApplyFilter(Interpreter& in, const std::string& name, const Value& operand,
                                  const CallArgs& args, const EnvPtr& env);
// The test `name` (`x is name(args)`); NotFound for an unknown test.
absl::StatusOr<bool> ApplyTest(Interpreter& in, const std::string& name, const Value& operand,
                               const std::vector<Value>& args);
// `object.name` for the built-in attributes and methods of strings, lists and dicts
// (undefined when there is none).
Value BuiltinMember(const Value& object, const std::string& name);
// namespace, range, dict, raise_exception, strftime_now, true/false/none (and capitalized).
void AddGlobals(Env* env);
// a == b as @huggingface/jinja compares (numbers across int/float/bool, strings, none with
// undefined, lists and dicts item by item).
bool LooseEquals(const Value& a, const Value& b);
// Ordering for sort/dictsort: numbers (and booleans) with numbers, strings with strings;
// InvalidArgument for other pairs.
absl::StatusOr<int> CompareValues(const Value& a, const Value& b, bool case_sensitive);

}  // namespace jinja
}  // namespace edgeq

#endif  // EDGEQ_JINJA_INTERPRETER_H_
