// The op registry: every op a graph can hold (built-in or custom) is one OpDef registered under
// its name, and each built-in op is one file of runtime/ops/ (its name, typed attributes, type
// inference and kernel factory; README, "One op registry").
//
// Builders (graph/ops.h, ops::Op) look an op up by name, parse its attributes from an
// AttributeMap into the op's typed struct, infer its output types and add the node. The runtime
// creates a node's kernel through the same OpDef. The C API and Python list and build every op
// through this registry.
#ifndef EDGEQ_GRAPH_OP_H_
#define EDGEQ_GRAPH_OP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"

namespace edgeq {

struct ValueType;

namespace internal {
class OpKernel;     // runtime/internal/op_kernels.h
struct KernelArgs;  // runtime/internal/op_kernels.h
}  // namespace internal

// An attribute as callers spell it (C API, Python, graph/ops.h builders): an integer, a real, a
// string or a list of integers.
using AttributeValue = std::variant<int64_t, double, std::string, std::vector<int64_t>>;
using AttributeMap = std::map<std::string, AttributeValue, std::less<>>;

// The base of every op's typed attributes struct.
class OpAttributes {
 public:
  virtual ~OpAttributes() = default;
  // The attributes as Graph::ToString prints them ("epsilon=1e-05"), in order; empty: none.
  virtual std::vector<std::string> Describe() const { return {}; }
};

// What type inference sees: the input types and which inputs are graph constants.
struct InferInput {
  absl::Span<const ValueType> types;
  std::vector<bool> is_constant;
};

using InferFunction = std::function<absl::StatusOr<std::vector<ValueType>>(
    const InferInput& in, const OpAttributes& attrs)>;
using ParseAttributesFunction =
    std::function<absl::StatusOr<std::shared_ptr<const OpAttributes>>(const AttributeMap& map)>;
using KernelFactory = std::function<absl::StatusOr<std::unique_ptr<internal::OpKernel>>(
    const internal::KernelArgs& args)>;

struct OpDef {
  std::string name;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: any number
  // The attribute keys the op reads, for listings ("epsilon", "shape"); empty: none.
  std::vector<std::string> attribute_names;
  // Output types, or InvalidArgument with the reason only (the builder prefixes
  // "op(input types): ").
  InferFunction infer;
  // The typed struct from a map; InvalidArgument naming an unknown key or a value of the wrong
  // kind. Empty function: the op has no attributes (any key is refused).
  ParseAttributesFunction parse_attributes;
  KernelFactory create_kernel;
  bool custom = false;  // registered through CustomOpRegistry (runtime/custom_op.h)
  // A custom op's definition (its CustomOpDef), owned here: the registry is its only store.
  std::shared_ptr<const void> custom_state;
};

// The process-wide registry. Thread-safe; definitions are never removed, so pointers stay valid.
class OpRegistry {
 public:
  static OpRegistry& Global();

  // InvalidArgument on an empty name or a missing function; AlreadyExists if the name is taken.
  absl::Status Register(OpDef def);
  // NotFound naming the op and listing the registered names.
  absl::StatusOr<const OpDef*> Find(absl::string_view name) const;
  std::vector<std::string> Names() const;  // sorted
  std::vector<const OpDef*> Ops() const;   // sorted by name

  OpRegistry();
  ~OpRegistry();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Built-in ops (one per op file of runtime/ops/) are registered without static initializers:
// EDGEQ_REGISTER_OP (runtime/ops/op_util.h) keeps each definition as constant data and places a
// pointer to a function returning its OpDef in the linker section `edgeq_builtin_ops`;
// OpRegistry::Global() calls every one the first time it is used, so no code runs for them when
// the library is loaded (README, "Footprint"). A failure (a duplicate name: a build error) is
// printed to stderr and the first definition kept.
using BuiltinOpFactory = OpDef (*)();

// The typed attributes of an op without attributes.
struct NoAttributes : OpAttributes {};
// ParseAttributes for an op without attributes: InvalidArgument naming any key given.
absl::StatusOr<std::shared_ptr<const OpAttributes>> ParseNoAttributes(absl::string_view op,
                                                                      const AttributeMap& map);

// Attribute readers for parse functions: the value of `key` (or `fallback` if absent);
// InvalidArgument naming the op, the key and the expected kind otherwise.
absl::StatusOr<int64_t> GetIntAttribute(absl::string_view op, const AttributeMap& map,
                                        absl::string_view key, int64_t fallback);
absl::StatusOr<double> GetRealAttribute(absl::string_view op, const AttributeMap& map,
                                        absl::string_view key, double fallback);
absl::StatusOr<std::string> GetStringAttribute(absl::string_view op, const AttributeMap& map,
                                               absl::string_view key, std::string fallback);
absl::StatusOr<std::vector<int64_t>> GetIntsAttribute(absl::string_view op, const AttributeMap& map,
                                                      absl::string_view key);
// InvalidArgument naming the first key of `map` not in `known`.
absl::Status CheckAttributeKeys(absl::string_view op, const AttributeMap& map,
                                absl::Span<const char* const> known);

}  // namespace edgeq

#endif  // EDGEQ_GRAPH_OP_H_
