// Helpers shared by the op files of runtime/ops/ (one file per op: its name, typed attributes,
// type inference and kernel factories, registered with EDGEQ_REGISTER_OP).
#ifndef EDGEQ_RUNTIME_OPS_OP_UTIL_H_
#define EDGEQ_RUNTIME_OPS_OP_UTIL_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "runtime/internal/op_kernels.h"
#include "sdk/selection.h"

// Registers the definition (a constant op_util::BuiltinOpDef expression after `id`) in the op
// registry without a static initializer: the definition is constant data, and a pointer to a
// function returning its OpDef goes into the linker section `edgeq_builtin_ops`, which
// OpRegistry::Global() walks on first use (graph/op.h). A selective build (sdk/selection.bzl,
// kOps) keeps only the ops its architectures or graph API need: the pointer is then null, and the
// linker drops the op's definition and code. `id` must be the op's registered name.
#define EDGEQ_REGISTER_OP(id, ...)                                                           \
  constexpr ::edgeq::op_util::BuiltinOpDef edgeq_builtin_op_##id = __VA_ARGS__;              \
  ::edgeq::OpDef EdgeqBuiltinOp_##id() {                                                     \
    return ::edgeq::op_util::ToOpDef(edgeq_builtin_op_##id);                                 \
  }                                                                                          \
  [[gnu::used, gnu::retain,                                                                  \
    gnu::section(                                                                            \
        "edgeq_builtin_ops")]] const ::edgeq::BuiltinOpFactory edgeq_builtin_op_entry_##id = \
      ::edgeq::selection::Selected(::edgeq::selection::kOps, #id) ? &EdgeqBuiltinOp_##id : nullptr

namespace edgeq {
namespace op_util {

// Four f32 lanes (the GCC/Clang vector extension: one NEON or SSE register), for element-wise
// loops that GCC's -O2 leaves scalar (it vectorizes no loop that needs a run-time alias check).
// Lane-wise the same IEEE operations as the scalar code.
typedef float F4 __attribute__((vector_size(16)));
inline F4 LoadF4(const float* p) {
  F4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void StoreF4(float* p, F4 v) { std::memcpy(p, &v, sizeof(v)); }

using internal::ExecContext;
using internal::KernelArgs;
using internal::OpKernel;
using KernelOr = absl::StatusOr<std::unique_ptr<OpKernel>>;
using TypesOr = absl::StatusOr<std::vector<ValueType>>;
using AttributesOr = absl::StatusOr<std::shared_ptr<const OpAttributes>>;

// A built-in op's definition as constant data (EDGEQ_REGISTER_OP): the fields of its OpDef, with
// plain functions for the type inference, attribute parser and kernel factory.
struct BuiltinOpDef {
  using Infer = TypesOr (*)(const InferInput& in, const OpAttributes& attrs);
  using ParseAttributes = AttributesOr (*)(const AttributeMap& map);
  using CreateKernel = KernelOr (*)(const KernelArgs& args);

  const char* name = nullptr;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: any number
  absl::Span<const char* const> attribute_names;
  Infer infer = nullptr;
  ParseAttributes parse_attributes = nullptr;  // nullptr: no attributes
  CreateKernel create_kernel = nullptr;
};

// The OpDef of a built-in op's definition.
OpDef ToOpDef(const BuiltinOpDef& def);

// The buffer of value `id` at Execute.
template <typename T = float>
T* Data(const ExecContext& ctx, int id) {
  return static_cast<T*>(ctx.slots[id]);
}

inline ValueType Plain(DType dtype, Shape shape) {
  ValueType t;
  t.type = TensorType(dtype, shape);
  t.logical_shape = std::move(shape);
  return t;
}
inline TypesOr One(ValueType t) { return std::vector<ValueType>{std::move(t)}; }

inline bool IsPlainF32(const ValueType& v) {
  return v.type.dtype == DType::kFloat32 && !v.is_quantized();
}
inline bool IsIndex(const ValueType& v) {
  return (v.type.dtype == DType::kInt32 || v.type.dtype == DType::kInt64) && !v.is_quantized();
}

// InvalidArgument with the reason (the builder prefixes "op(input types): ").
inline absl::Status Invalid(absl::string_view why) { return absl::InvalidArgumentError(why); }

inline KernelOr Make(OpKernel* kernel) { return std::unique_ptr<OpKernel>(kernel); }

// "activation_avx512" -> "avx512", "delta_rule_neon" -> "neon" (the text after the last "_").
inline std::string SuffixOf(const char* name) {
  const std::string n = name;
  const size_t u = n.rfind('_');
  return u == std::string::npos ? n : n.substr(u + 1);
}

// Rows of the last axis: (elements / d, d), with 0 rows when d is 0.
inline std::pair<int64_t, int64_t> RowsOf(const Shape& s) {
  const int64_t d = s.rank() == 0 ? 1 : s.dim(-1);
  return {d == 0 ? 0 : s.num_elements() / d, d};
}

// The output type of an element-wise op of one plain f32 input: the input's.
TypesOr InferUnaryF32(const InferInput& in, const OpAttributes& attrs);

// The definition of an element-wise op of one plain f32 input (output of the same type) without
// attributes, whose kernel `create` makes.
constexpr BuiltinOpDef UnaryF32OpDef(const char* name, BuiltinOpDef::CreateKernel create) {
  BuiltinOpDef def;
  def.name = name;
  def.infer = InferUnaryF32;
  def.create_kernel = create;
  return def;
}

}  // namespace op_util
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_OPS_OP_UTIL_H_
