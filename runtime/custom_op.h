// Custom ops: user code the runtime runs for ops::Custom(name, ...) nodes.
//
//   edgeq::CustomOpDef def;
//   def.name = "my_scale";
//   def.shape_function = [](absl::Span<const edgeq::ValueType> in)
//       -> absl::StatusOr<std::vector<edgeq::TensorType>> { return {{in[0].type}}; };
//   def.kernel = [](absl::Span<const edgeq::TensorRef> in, absl::Span<const edgeq::TensorRef> out,
//                   pthreadpool_t pool) -> absl::Status { ...; return absl::OkStatus(); };
//   EDGEQ_RETURN_IF_ERROR(edgeq::CustomOpRegistry::Global().Register(std::move(def)));
//
// A custom op is registered like a built-in: CustomOpRegistry::Register adds an OpDef (graph/op.h)
// to the one op registry, whose type inference is the shape function and whose kernel factory
// wraps the kernel. At Load the runtime looks the name up (NotFound naming it if it is not
// registered), calls the shape function with the input types and checks that it returns the
// output types the graph declared. At Execute the kernel is called with views of the inputs and
// of the (preallocated) outputs; it must not allocate if the model is to stay allocation-free,
// must not keep the pointers, and may use `pool` (null when the session has one thread).
#ifndef EDGEQ_RUNTIME_CUSTOM_OP_H_
#define EDGEQ_RUNTIME_CUSTOM_OP_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "pthreadpool.h"

namespace edgeq {

// A view of one tensor handed to a custom kernel: its type (with encoding and logical shape for
// a quantized input) and its data. Outputs are writable.
struct TensorRef {
  const ValueType* type = nullptr;
  void* data = nullptr;

  const Shape& shape() const { return type->type.shape; }
  DType dtype() const { return type->type.dtype; }
  template <typename T>
  const T* values() const {
    return static_cast<const T*>(data);
  }
  template <typename T>
  T* mutable_values() const {
    return static_cast<T*>(data);
  }
};

using CustomShapeFunction =
    std::function<absl::StatusOr<std::vector<TensorType>>(absl::Span<const ValueType> inputs)>;
using CustomKernel = std::function<absl::Status(
    absl::Span<const TensorRef> inputs, absl::Span<const TensorRef> outputs, pthreadpool_t pool)>;

struct CustomOpDef {
  std::string name;
  CustomShapeFunction shape_function;
  CustomKernel kernel;
};

// The custom ops of the process-wide op registry (OpRegistry::Global()): a custom op is one
// OpDef there (OpDef::custom, owning its CustomOpDef); this class keeps no map of its own.
// Thread-safe.
class CustomOpRegistry {
 public:
  static CustomOpRegistry& Global();

  // InvalidArgument on an empty name or a missing function; AlreadyExists if the name is taken
  // (by a custom or a built-in op).
  absl::Status Register(CustomOpDef def);
  // NotFound naming the op and listing the registered names. The pointer stays valid for the
  // life of the process (ops are never unregistered).
  absl::StatusOr<const CustomOpDef*> Find(absl::string_view name) const;
  std::vector<std::string> Names() const;  // sorted; custom ops only
};

}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_CUSTOM_OP_H_
