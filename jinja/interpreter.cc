#include "jinja/interpreter.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "jinja/text.h"

namespace edgeq {
namespace jinja {

using K = Node::Kind;

const Value* Env::Lookup(const std::string& name) const {
  for (const Env* e = this; e != nullptr; e = e->parent.get()) {
    auto it = e->vars.find(name);
    if (it != e->vars.end()) return &it->second;
  }
  return nullptr;
}

struct Interpreter::DepthGuard {
  explicit DepthGuard(Interpreter* in) : in(in) { ++in->depth_; }
  ~DepthGuard() { --in->depth_; }
  Interpreter* in;
};

absl::Status Interpreter::Error(const Node& node, absl::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat("template line ", node.line, ": ", what));
}

absl::Status Interpreter::CountIterations(int64_t n) {
  iterations_ += n;
  if (iterations_ > limits_.max_loop_iterations) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "template line ", current_node_ ? current_node_->line : 0, ": more than ",
        limits_.max_loop_iterations, " loop iterations (Limits::max_loop_iterations)"));
  }
  return absl::OkStatus();
}

absl::Status Interpreter::CheckSize(size_t n, absl::string_view what) const {
  if (n > limits_.max_output_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("template line ", current_node_ ? current_node_->line : 0, ": ", what,
                     " larger than ", limits_.max_output_bytes, " (Limits::max_output_bytes)"));
  }
  return absl::OkStatus();
}

absl::Status Interpreter::Exec(const std::vector<NodePtr>& body, const EnvPtr& env,
                               std::string* out) {
  for (const NodePtr& n : body) {
    const size_t before = out->size();
    EDGEQ_RETURN_IF_ERROR(ExecOne(*n, env, out));
    EDGEQ_RETURN_IF_ERROR(CheckSize(out->size(), "the output"));
    // Text written costs work too (a 16 MiB string rebuilt in a loop must not take forever).
    if (out->size() - before >= 256) {
      EDGEQ_RETURN_IF_ERROR(CountIterations(static_cast<int64_t>((out->size() - before) >> 8)));
    }
    if (flow_ != Flow::kNormal) break;
  }
  return absl::OkStatus();
}

absl::Status Interpreter::ExecOne(const Node& node, const EnvPtr& env, std::string* out) {
  DepthGuard guard(this);
  current_node_ = &node;
  if (depth_ > limits_.max_depth) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "template line ", node.line, ": rendering nests deeper than ", limits_.max_depth,
        " levels (Limits::max_depth; a macro calling itself without end?)"));
  }
  switch (node.kind) {
    case K::kText:
      out->append(node.text);
      return absl::OkStatus();
    case K::kOutput: {
      EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*node.a, env));
      EDGEQ_RETURN_IF_ERROR(ChargeWalk(v));
      out->append(Text(v));
      return absl::OkStatus();
    }
    case K::kSet:
      return ExecSet(node, env);
    case K::kIf: {
      EDGEQ_ASSIGN_OR_RETURN(Value test, Eval(*node.a, env));
      return Exec(test.Truthy() ? node.body : node.orelse, env, out);
    }
    case K::kFor:
      return ExecFor(node, env, out);
    case K::kMacro:
      return DefineMacro(node, env);
    case K::kCallBlock:
      return ExecCallBlock(node, env, out);
    case K::kFilterBlock: {
      std::string text;
      EDGEQ_RETURN_IF_ERROR(Exec(node.body, env, &text));
      CallArgs args;
      if (node.a->has_args) {
        EDGEQ_ASSIGN_OR_RETURN(args, EvalArgs(node.a->items, env));
      }
      EDGEQ_ASSIGN_OR_RETURN(Value v,
                             ApplyFilter(*this, node.a->text, Value::String(text), args, env));
      out->append(Text(v));
      return absl::OkStatus();
    }
    case K::kBreak:
    case K::kContinue:
      if (loop_depth_ == 0) {
        return Error(node, absl::StrCat(node.kind == K::kBreak ? "break" : "continue",
                                        " outside a for loop"));
      }
      flow_ = node.kind == K::kBreak ? Flow::kBreak : Flow::kContinue;
      return absl::OkStatus();
    default: {
      // An expression used as a statement prints its value.
      EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(node, env));
      out->append(Text(v));
      return absl::OkStatus();
    }
  }
}

absl::StatusOr<bool> Interpreter::Reaches(const Value& v, const void* target,
                                          std::vector<const void*>* visited) {
  const void* id = v.identity();
  if (id == nullptr) return false;
  if (id == target) return true;
  for (const void* seen : *visited) {
    if (seen == id) return false;
  }
  visited->push_back(id);
  EDGEQ_RETURN_IF_ERROR(CountIterations(1));
  if (v.IsArray()) {
    for (const Value& e : v.array()) {
      EDGEQ_ASSIGN_OR_RETURN(bool r, Reaches(e, target, visited));
      if (r) return true;
    }
  } else {
    for (const auto& kv : v.object().entries()) {
      EDGEQ_ASSIGN_OR_RETURN(bool r, Reaches(kv.second, target, visited));
      if (r) return true;
    }
  }
  return false;
}

absl::Status Interpreter::CheckValue(const Value& v, int line) const {
  // Lists nested without end (set x = [x] in a loop) would overflow the stack when freed, and
  // lists holding one list twice, again and again, would take forever to print.
  if (v.depth() > limits_.max_depth) {
    return absl::ResourceExhaustedError(
        absl::StrCat("template line ", line, ": a value nested deeper than ", limits_.max_depth,
                     " levels (Limits::max_depth)"));
  }
  if (v.size() > limits_.max_loop_iterations) {
    return absl::ResourceExhaustedError(
        absl::StrCat("template line ", line, ": a value holding more than ",
                     limits_.max_loop_iterations, " values (Limits::max_loop_iterations)"));
  }
  return absl::OkStatus();
}

absl::Status Interpreter::Assign(const Node& target, const Value& value, const EnvPtr& env) {
  EDGEQ_RETURN_IF_ERROR(CheckValue(value, target.line));
  if (target.kind == K::kName) {
    env->Set(target.text, value);
    return absl::OkStatus();
  }
  if (target.kind == K::kTuple) {
    if (!value.IsArray()) {
      return Error(target, absl::StrCat("cannot unpack a ", value.TypeName(), " into ",
                                        target.items.size(), " names"));
    }
    if (value.array().size() != target.items.size()) {
      return Error(target, absl::StrCat("cannot unpack ", value.array().size(), " values into ",
                                        target.items.size(), " names"));
    }
    for (size_t i = 0; i < target.items.size(); ++i) {
      if (target.items[i]->kind != K::kName) return Error(target, "can only unpack into names");
      env->Set(target.items[i]->text, value.array()[i]);
    }
    return absl::OkStatus();
  }
  if (target.kind == K::kMember && !target.computed) {
    EDGEQ_ASSIGN_OR_RETURN(Value object, Eval(*target.a, env));
    if (!object.IsNamespace()) {
      return Error(target, absl::StrCat("cannot set an attribute of a ", object.TypeName(),
                                        " (only of a namespace())"));
    }
    if (target.b->kind != K::kString) return Error(target, "expected an attribute name");
    // A namespace that held itself would never be freed (and print without end): refuse it.
    std::vector<const void*> visited;
    EDGEQ_ASSIGN_OR_RETURN(bool cycle, Reaches(value, object.identity(), &visited));
    if (cycle) {
      return Error(target, absl::StrCat("cannot store namespace in itself (ns.", target.b->text,
                                        " would contain ns)"));
    }
    object.mutable_object().Set(target.b->text, value);
    return absl::OkStatus();
  }
  return Error(target, "can only assign to a name, names separated by commas, or ns.attribute");
}

absl::Status Interpreter::ExecSet(const Node& node, const EnvPtr& env) {
  Value value;
  if (node.b) {
    EDGEQ_ASSIGN_OR_RETURN(value, Eval(*node.b, env));
  } else {
    std::string text;
    EDGEQ_RETURN_IF_ERROR(Exec(node.body, env, &text));
    value = Value::String(std::move(text));
  }
  return Assign(*node.a, value, env);
}

absl::Status Interpreter::ExecFor(const Node& node, const EnvPtr& env, std::string* out) {
  EnvPtr scope = std::make_shared<Env>(env);
  EDGEQ_ASSIGN_OR_RETURN(Value iterable, Eval(*node.b, scope));
  std::vector<Value> all;
  if (iterable.IsArray()) {
    all = iterable.array();
  } else if (iterable.IsDict()) {
    for (const auto& kv : iterable.object().entries()) all.push_back(Value::String(kv.first));
  } else if (iterable.IsString()) {
    for (uint32_t cp : CodePoints(iterable.str())) {
      std::string s;
      AppendUtf8(cp, &s);
      all.push_back(Value::String(std::move(s)));
    }
  } else {
    return Error(node, absl::StrCat("cannot loop over a ", iterable.TypeName()));
  }
  // Every item looped over (or tested by the loop's `if`) counts, whether or not the body runs.
  EDGEQ_RETURN_IF_ERROR(CountIterations(static_cast<int64_t>(all.size())));
  std::vector<Value> items;
  if (node.c) {
    for (const Value& v : all) {
      EnvPtr test_scope = std::make_shared<Env>(scope);
      EDGEQ_RETURN_IF_ERROR(Assign(*node.a, v, test_scope));
      EDGEQ_ASSIGN_OR_RETURN(Value keep, Eval(*node.c, test_scope));
      if (keep.Truthy()) items.push_back(v);
    }
  } else {
    items = std::move(all);
  }
  bool iterated = false;
  const int64_t n = static_cast<int64_t>(items.size());
  ++loop_depth_;
  for (int64_t i = 0; i < n; ++i) {
    Value loop = Value::MakeObject();
    Object& o = loop.mutable_object();
    o.Set("index", Value::Int(i + 1));
    o.Set("index0", Value::Int(i));
    o.Set("revindex", Value::Int(n - i));
    o.Set("revindex0", Value::Int(n - i - 1));
    o.Set("first", Value::Bool(i == 0));
    o.Set("last", Value::Bool(i == n - 1));
    o.Set("length", Value::Int(n));
    o.Set("previtem", i > 0 ? items[i - 1] : Value());
    o.Set("nextitem", i < n - 1 ? items[i + 1] : Value());
    scope->Set("loop", loop);
    absl::Status s = Assign(*node.a, items[i], scope);
    if (s.ok()) s = Exec(node.body, scope, out);
    if (!s.ok()) {
      --loop_depth_;
      return s;
    }
    const Flow flow = flow_;
    flow_ = Flow::kNormal;
    if (flow == Flow::kBreak) break;
    if (flow == Flow::kContinue) continue;
    iterated = true;
  }
  --loop_depth_;
  if (!iterated) return Exec(node.orelse, scope, out);
  return absl::OkStatus();
}

namespace {

bool UsesName(const Node& n, absl::string_view name) {
  if (n.kind == K::kName && n.text == name) return true;
  for (const Node* c : {n.a.get(), n.b.get(), n.c.get()}) {
    if (c != nullptr && UsesName(*c, name)) return true;
  }
  for (const auto* list : {&n.items, &n.body, &n.orelse}) {
    for (const NodePtr& c : *list) {
      if (c && UsesName(*c, name)) return true;
    }
  }
  return false;
}

bool BodyUses(const std::vector<NodePtr>& body, absl::string_view name) {
  for (const NodePtr& n : body) {
    if (n && UsesName(*n, name)) return true;
  }
  return false;
}

// Binds a macro's (or call block's) parameters in `scope`.
absl::Status BindParameters(Interpreter& in, const std::string& display,
                            const std::vector<NodePtr>& params, bool takes_kwargs,
                            bool takes_varargs, const CallArgs& args, const EnvPtr& scope) {
  for (const Value& v : args.positional) EDGEQ_RETURN_IF_ERROR(in.CheckValue(v, 0));
  for (const auto& kv : args.keyword) EDGEQ_RETURN_IF_ERROR(in.CheckValue(kv.second, 0));
  std::vector<std::pair<std::string, Value>> keyword = args.keyword;
  std::vector<const Node*> pending;
  for (size_t i = 0; i < params.size(); ++i) {
    const Node& p = *params[i];
    const std::string& name = p.text;
    Value v;
    bool bound = false;
    if (i < args.positional.size()) {
      v = args.positional[i];
      bound = true;
    } else {
      for (auto it = keyword.begin(); it != keyword.end(); ++it) {
        if (it->first == name) {
          v = it->second;
          keyword.erase(it);
          bound = true;
          break;
        }
      }
    }
    if (!bound && p.kind == K::kKeyword) pending.push_back(&p);
    scope->Set(name, v);
  }
  if (takes_kwargs) {
    Value kw = Value::MakeObject();
    for (auto& kv : keyword) kw.mutable_object().Set(kv.first, kv.second);
    scope->Set("kwargs", kw);
  } else if (!keyword.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("macro ", display, " takes no keyword argument '", keyword[0].first, "'"));
  }
  if (takes_varargs) {
    std::vector<Value> rest;
    for (size_t i = params.size(); i < args.positional.size(); ++i) {
      rest.push_back(args.positional[i]);
    }
    scope->Set("varargs", Value::Array(std::move(rest)));
  } else if (args.positional.size() > params.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("macro ", display, " takes not more than ", params.size(), " argument(s)"));
  }
  for (const Node* p : pending) {
    EDGEQ_ASSIGN_OR_RETURN(Value v, in.Eval(*p->a, scope));
    scope->Set(p->text, v);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Interpreter::DefineMacro(const Node& node, const EnvPtr& env) {
  const Node* macro = &node;
  const bool kwargs = BodyUses(node.body, "kwargs");
  const bool varargs = BodyUses(node.body, "varargs");
  env->Set(
      node.text,
      Value::MakeFunction(
          node.text,
          [macro, kwargs, varargs](Interpreter& in, const CallArgs& args) -> absl::StatusOr<Value> {
            EnvPtr scope = std::make_shared<Env>(in.call_env());
            EDGEQ_RETURN_IF_ERROR(BindParameters(in, absl::StrCat("'", macro->text, "'"),
                                                 macro->items, kwargs, varargs, args, scope));
            std::string out;
            EDGEQ_RETURN_IF_ERROR(in.Exec(macro->body, scope, &out));
            return Value::String(std::move(out));
          }));
  return absl::OkStatus();
}

absl::Status Interpreter::ExecCallBlock(const Node& node, const EnvPtr& env, std::string* out) {
  const Node* block = &node;
  std::weak_ptr<Env> weak_env = env;
  const bool kwargs = BodyUses(node.body, "kwargs");
  const bool varargs = BodyUses(node.body, "varargs");
  Value caller = Value::MakeFunction(
      "caller",
      [block, weak_env, kwargs, varargs](Interpreter& in,
                                         const CallArgs& args) -> absl::StatusOr<Value> {
        EnvPtr parent = weak_env.lock();
        if (!parent) {
          return absl::InvalidArgumentError(absl::StrCat(
              "template line ", block->line, ": caller() called after its {% call %} block ended"));
        }
        EnvPtr scope = std::make_shared<Env>(parent);
        EDGEQ_RETURN_IF_ERROR(
            BindParameters(in, "None", block->items, kwargs, varargs, args, scope));
        std::string text;
        EDGEQ_RETURN_IF_ERROR(in.Exec(block->body, scope, &text));
        return Value::String(std::move(text));
      });
  const Node& call = *node.a;
  EDGEQ_ASSIGN_OR_RETURN(CallArgs args, EvalArgs(call.items, env));
  EDGEQ_ASSIGN_OR_RETURN(Value fn, Eval(*call.a, env));
  EnvPtr with_caller = std::make_shared<Env>(env);
  with_caller->Set("caller", caller);
  EDGEQ_ASSIGN_OR_RETURN(Value v, Call(fn, args, with_caller));
  out->append(Text(v));
  return absl::OkStatus();
}

absl::StatusOr<Value> Interpreter::Call(const Value& fn, const CallArgs& args, const EnvPtr& env) {
  if (!fn.IsFunction()) {
    return absl::InvalidArgumentError(
        absl::StrCat("template line ", current_node_ ? current_node_->line : 0, ": cannot call a ",
                     fn.TypeName(), " (not a function or macro)"));
  }
  DepthGuard guard(this);
  if (depth_ > limits_.max_depth) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "template line ", current_node_ ? current_node_->line : 0, ": calls nest deeper than ",
        limits_.max_depth, " levels (Limits::max_depth)"));
  }
  EnvPtr saved = call_env_;
  const Node* saved_node = current_node_;
  call_env_ = env;
  const int saved_loops = loop_depth_;
  loop_depth_ = 0;  // break/continue do not cross a macro call
  absl::StatusOr<Value> r = fn.function()(*this, args);
  loop_depth_ = saved_loops;
  call_env_ = std::move(saved);
  current_node_ = saved_node;
  return r;
}

absl::StatusOr<CallArgs> Interpreter::EvalArgs(const std::vector<NodePtr>& items,
                                               const EnvPtr& env) {
  CallArgs args;
  for (const NodePtr& item : items) {
    if (item->kind == K::kKeyword || item->kind == K::kKeywordSpread) continue;
    if (item->kind == K::kSpread) {
      EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*item->a, env));
      if (!v.IsArray())
        return Error(*item, absl::StrCat("cannot unpack a ", v.TypeName(), " with *"));
      for (const Value& e : v.array()) args.positional.push_back(e);
      continue;
    }
    EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*item, env));
    args.positional.push_back(std::move(v));
  }
  auto add = [&](const std::string& key, Value v, const Node& where) -> absl::Status {
    if (args.Keyword(key) != nullptr) {
      return Error(where, absl::StrCat("keyword argument '", key, "' given twice"));
    }
    args.keyword.emplace_back(key, std::move(v));
    return absl::OkStatus();
  };
  for (const NodePtr& item : items) {
    if (item->kind == K::kKeyword) {
      EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*item->a, env));
      EDGEQ_RETURN_IF_ERROR(add(item->text, std::move(v), *item));
    } else if (item->kind == K::kKeywordSpread) {
      EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*item->a, env));
      if (!v.IsDict())
        return Error(*item, absl::StrCat("cannot unpack a ", v.TypeName(), " with **"));
      for (const auto& kv : v.object().entries()) {
        EDGEQ_RETURN_IF_ERROR(add(kv.first, kv.second, *item));
      }
    }
  }
  return args;
}

absl::StatusOr<Value> Interpreter::EvalCall(const Node& node, const EnvPtr& env) {
  EDGEQ_ASSIGN_OR_RETURN(CallArgs args, EvalArgs(node.items, env));
  EDGEQ_ASSIGN_OR_RETURN(Value fn, Eval(*node.a, env));
  current_node_ = &node;
  if (!fn.IsFunction()) {
    std::string what = node.a->kind == K::kName ? absl::StrCat("'", node.a->text, "'")
                       : node.a->kind == K::kMember && node.a->b->kind == K::kString
                           ? absl::StrCat("'", node.a->b->text, "'")
                           : std::string("the expression");
    return Error(node, absl::StrCat("cannot call ", what, ": it is ",
                                    fn.IsUndefined() ? "undefined" : fn.TypeName()));
  }
  return Call(fn, args, env);
}

absl::StatusOr<Value> Interpreter::EvalSlice(const Value& object, const Node& slice,
                                             const EnvPtr& env) {
  int64_t parts[3] = {0, 0, 1};
  bool given[3] = {false, false, false};
  const Node* nodes[3] = {slice.a.get(), slice.b.get(), slice.c.get()};
  for (int k = 0; k < 3; ++k) {
    if (nodes[k] == nullptr) continue;
    EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*nodes[k], env));
    if (v.IsUndefined() || v.IsNull()) continue;
    if (!v.IsInt()) return Error(slice, "slice indexes must be integers");
    parts[k] = v.int_value();
    given[k] = true;
  }
  const int64_t step = parts[2];
  if (step == 0) return Error(slice, "slice step cannot be zero");
  std::vector<uint32_t> cps;
  const bool is_string = object.IsString();
  if (is_string) cps = CodePoints(object.str());
  if (!is_string && !object.IsArray()) {
    return Error(slice, absl::StrCat("cannot slice a ", object.TypeName()));
  }
  const int64_t len =
      is_string ? static_cast<int64_t>(cps.size()) : static_cast<int64_t>(object.array().size());
  int64_t start, stop;
  if (step > 0) {
    start = !given[0]      ? 0
            : parts[0] < 0 ? std::max<int64_t>(len + parts[0], 0)
                           : std::min(parts[0], len);
    stop = !given[1]      ? len
           : parts[1] < 0 ? std::max<int64_t>(len + parts[1], 0)
                          : std::min(parts[1], len);
  } else {
    start = !given[0]      ? len - 1
            : parts[0] < 0 ? std::max<int64_t>(len + parts[0], -1)
                           : std::min(parts[0], len - 1);
    stop = !given[1]       ? -1
           : parts[1] < -1 ? std::max<int64_t>(len + parts[1], -1)
                           : std::min(parts[1], len - 1);
  }
  std::vector<Value> items;
  std::vector<uint32_t> chars;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (is_string) {
      chars.push_back(cps[i]);
    } else {
      items.push_back(object.array()[i]);
    }
  }
  if (is_string) return Value::String(FromCodePoints(chars, 0, chars.size()));
  return Value::Array(std::move(items));
}

absl::StatusOr<Value> Interpreter::EvalMember(const Node& node, const EnvPtr& env) {
  EDGEQ_ASSIGN_OR_RETURN(Value object, Eval(*node.a, env));
  if (node.computed && node.b->kind == K::kSlice) return EvalSlice(object, *node.b, env);
  EDGEQ_ASSIGN_OR_RETURN(Value key, Eval(*node.b, env));
  if (object.IsObject()) {
    if (!key.IsString()) {
      return Error(node, absl::StrCat("a ", object.TypeName(), " key must be a string, got a ",
                                      key.TypeName()));
    }
    if (const Value* v = object.object().Find(key.str())) return *v;
    if (object.IsDict()) return BuiltinMember(object, key.str());
    return Value();
  }
  if (object.IsArray() || object.IsString()) {
    if (key.IsInt()) {
      int64_t i = key.int_value();
      if (object.IsArray()) {
        const int64_t n = static_cast<int64_t>(object.array().size());
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value();
        return object.array()[i];
      }
      const std::vector<uint32_t> cps = CodePoints(object.str());
      const int64_t n = static_cast<int64_t>(cps.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return Value();
      return Value::String(FromCodePoints(cps, i, i + 1));
    }
    if (key.IsString()) return BuiltinMember(object, key.str());
    return Error(node,
                 absl::StrCat("cannot index a ", object.TypeName(), " with a ", key.TypeName()));
  }
  if (key.IsString()) return BuiltinMember(object, key.str());
  return Value();
}

absl::StatusOr<Value> Interpreter::Eval(const Node& node, const EnvPtr& env) {
  DepthGuard guard(this);
  current_node_ = &node;
  if (depth_ > limits_.max_depth) {
    return absl::ResourceExhaustedError(
        absl::StrCat("template line ", node.line, ": evaluation nests deeper than ",
                     limits_.max_depth, " levels (Limits::max_depth)"));
  }
  switch (node.kind) {
    case K::kString:
      return Value::String(node.text);
    case K::kInt:
      return Value::Int(node.i);
    case K::kFloat:
      return Value::Float(node.d);
    case K::kList:
    case K::kTuple: {
      std::vector<Value> items;
      for (const NodePtr& n : node.items) {
        EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*n, env));
        items.push_back(std::move(v));
      }
      Value list = Value::Array(std::move(items), node.kind == K::kTuple);
      EDGEQ_RETURN_IF_ERROR(CheckValue(list, node.line));
      return list;
    }
    case K::kDict: {
      Value d = Value::MakeObject();
      for (size_t i = 0; i + 1 < node.items.size(); i += 2) {
        EDGEQ_ASSIGN_OR_RETURN(Value k, Eval(*node.items[i], env));
        if (!k.IsString()) {
          return Error(node, absl::StrCat("dict keys must be strings, got a ", k.TypeName()));
        }
        EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*node.items[i + 1], env));
        d.mutable_object().Set(k.str(), std::move(v));
      }
      EDGEQ_RETURN_IF_ERROR(CheckValue(d, node.line));
      return d;
    }
    case K::kName: {
      const Value* v = env->Lookup(node.text);
      return v ? *v : Value();
    }
    case K::kMember:
      return EvalMember(node, env);
    case K::kCall:
      return EvalCall(node, env);
    case K::kUnary: {
      EDGEQ_ASSIGN_OR_RETURN(Value v, Eval(*node.a, env));
      if (node.text == "not") return Value::Bool(!v.Truthy());
      const bool neg = node.text == "-";
      if (v.IsFloat()) return Value::Float(neg ? -v.float_value() : v.float_value());
      if (v.IsInt() || v.IsBool()) {
        const int64_t i = v.IsBool() ? (v.bool_value() ? 1 : 0) : v.int_value();
        if (neg && i == std::numeric_limits<int64_t>::min()) return Value::Float(-v.number());
        return Value::Int(neg ? -i : i);
      }
      return Error(node,
                   absl::StrCat("unary ", node.text, " needs a number, got a ", v.TypeName()));
    }
    case K::kBinary:
      return EvalBinary(node, env);
    case K::kFilter: {
      EDGEQ_ASSIGN_OR_RETURN(Value operand, Eval(*node.a, env));
      CallArgs args;
      if (node.has_args) {
        EDGEQ_ASSIGN_OR_RETURN(args, EvalArgs(node.items, env));
      }
      current_node_ = &node;
      return ApplyFilter(*this, node.text, operand, args, env);
    }
    case K::kTest: {
      EDGEQ_ASSIGN_OR_RETURN(Value operand, Eval(*node.a, env));
      EDGEQ_ASSIGN_OR_RETURN(CallArgs args, EvalArgs(node.items, env));
      current_node_ = &node;
      EDGEQ_ASSIGN_OR_RETURN(bool r, ApplyTest(*this, node.text, operand, args.positional));
      return Value::Bool(node.negate ? !r : r);
    }
    case K::kTernary: {
      EDGEQ_ASSIGN_OR_RETURN(Value c, Eval(*node.a, env));
      return Eval(c.Truthy() ? *node.b : *node.c, env);
    }
    case K::kSelect: {
      EDGEQ_ASSIGN_OR_RETURN(Value c, Eval(*node.b, env));
      if (!c.Truthy()) return Value();
      return Eval(*node.a, env);
    }
    default:
      return Error(node, "this statement cannot be used as a value");
  }
}

}  // namespace jinja
}  // namespace edgeq
