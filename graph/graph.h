// Graph: a dataflow graph of tensor operations, built by a user and run by the runtime.
//
//   edgeq::Graph graph("qmatmul", {edgeq::TensorType(edgeq::DType::kFloat32, {32, 64})});
//   edgeq::Value qw = graph.Quantize(edgeq::Q4_0Encoding(), weights);
//   graph.Output(edgeq::ops::QMatmul(edgeq::Q4_0Encoding(), graph.Input(0), qw));
//   if (!graph.status().ok()) ...  // the first error any builder met, naming op and shapes
//
// Builders (Graph's methods and graph/ops.h) check dtypes, shapes and encodings as each node is
// added. They return a Value so that graphs read like straight-line code; when a check fails the
// graph records the FIRST error (Graph::status()), the builder returns an invalid Value, and every
// builder fed an invalid Value returns an invalid Value without recording a new error. The
// runtime refuses to load a graph whose status is not OK and reports that status.
//
// Nodes are kept in the order they were added, which is a topological order: a builder can only
// use values that already exist.
#ifndef EDGEQ_GRAPH_GRAPH_H_
#define EDGEQ_GRAPH_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "graph/op.h"
#include "quantization/encoding.h"

namespace edgeq {

namespace internal {
struct GraphData;
}  // namespace internal

// The type of a value in a graph: its storage type plus, for a quantized value (uint8 storage),
// the encoding's name and the logical (decoded) shape.
struct ValueType {
  TensorType type;
  std::string encoding;  // empty: a plain tensor
  Shape logical_shape;   // == type.shape for a plain tensor

  bool is_quantized() const { return !encoding.empty(); }
  // "f32[32, 64]" or "u8[32, 36] (q4_0 of [32, 64])".
  std::string ToString() const;
};

// A handle to a value of a graph (a graph input, a constant or a node's output). Cheap to copy.
// Only valid while its Graph is alive. A default-constructed Value, or one returned by a failed
// builder, is invalid (ok() is false).
class Value {
 public:
  Value() = default;

  bool ok() const { return graph_ != nullptr && id_ >= 0; }
  int id() const { return id_; }

  // Type accessors; require ok().
  const ValueType& value_type() const;
  const TensorType& type() const { return value_type().type; }
  DType dtype() const { return type().dtype; }
  const Shape& shape() const { return type().shape; }
  bool is_quantized() const { return value_type().is_quantized(); }
  // The logical shape (the decoded shape of a quantized value, the shape otherwise).
  const Shape& logical_shape() const { return value_type().logical_shape; }

  // For builders: the graph this value belongs to (null for a default-constructed Value).
  internal::GraphData* graph_data() const { return graph_; }
  Value(internal::GraphData* graph, int id) : graph_(graph), id_(id) {}

 private:
  internal::GraphData* graph_ = nullptr;
  int id_ = -1;
};

enum class NodeKind {
  kInput,     // graph input `input_index`
  kConstant,  // `constant`
  kOp,        // an op of the registry (graph/op.h)
};

// One node: a graph input, a constant or an op. `op` is "input", "constant" or the op's
// registered name; `def` its registry entry (null for inputs and constants, and for a custom op
// that was not registered when the graph was built: the runtime looks it up at Load).
struct Node {
  NodeKind kind = NodeKind::kOp;
  std::string op;
  const OpDef* def = nullptr;
  std::vector<int> inputs;   // value ids
  std::vector<int> outputs;  // value ids
  // The op's typed attributes (never null for an op); read with attributes<T>().
  std::shared_ptr<const OpAttributes> attrs;
  int input_index = 0;  // kInput
  Tensor constant;      // kConstant: the data

  // The attributes as the op's struct T (the type its OpDef parses into).
  template <typename T>
  const T& attributes() const {
    return static_cast<const T&>(*attrs);
  }
};

class Graph {
 public:
  // A graph with one input per type; inputs are named "input0", "input1", ... at run time.
  // Named inputs: Graph(name, {}), then AddInput("tokens", type), ...
  Graph(std::string name, std::vector<TensorType> input_types);
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  const std::string& name() const;

  // Input i (0-based). Records an error and returns an invalid Value if i is out of range.
  Value Input(int i);
  // The input named `name`. Records an error naming it and the inputs there are if none is.
  Value Input(absl::string_view name);
  // Appends an input (after the existing ones) named `name`, e.g. "tokens", "cache.0.k": the
  // runtime's Execute takes it by this name. Records an error and returns an invalid Value if
  // the name is empty or already an input's (the shape's error is recorded too).
  Value AddInput(std::string name, TensorType type);
  int num_inputs() const;
  // The run-time name of input i / output i ("input<i>" / "output<i>" unless named).
  const std::string& input_name(int i) const;
  const std::string& output_name(int i) const;

  // A constant tensor (shared, not copied: the tensor's buffer is kept alive by the graph).
  // A quantized tensor (Tensor::is_quantized()) becomes a quantized value; its bytes must pass
  // CheckQuantizedTensor (quantization/encoding.h), else the error is recorded.
  Value Constant(const Tensor& tensor);

  // Quantizes an f32 tensor with `encoding` and adds it as a constant:
  // Quantize(e, t) == Constant(*e.Quantize(t)). Errors (e.g. k not a multiple of the block) are
  // recorded with the op name "quantize".
  Value Quantize(const QuantizationEncoding& encoding, const Tensor& tensor);

  // Marks values as graph outputs, named "output0", "output1", ... in call order.
  void Output(Value value);
  void Output(absl::Span<const Value> values);
  // Marks `value` as an output named `name` (non-empty, unique among the outputs; else an error
  // is recorded). The runtime's Execute returns it under this name.
  void Output(std::string name, Value value);

  // OK, or the first error met while building.
  const absl::Status& status() const;

  // Read access for the runtime and tools.
  const std::vector<Node>& nodes() const;
  const std::vector<int>& outputs() const;  // value ids
  int num_values() const;
  const ValueType& value_type(int id) const;
  int producer(int value_id) const;  // index into nodes()

  // A readable dump, one node per line:
  //   graph "qmatmul" (1 inputs, 1 outputs)
  //     %0 = input0 : f32[32, 64]
  //     %1 = constant : u8[32, 36] (q4_0 of [32, 64])
  //     %2 = qmatmul(%0, %1) {encoding=q4_0} : f32[32, 32]
  //     output0 = %2
  std::string ToString() const;

  internal::GraphData* data() const { return data_.get(); }

 private:
  std::unique_ptr<internal::GraphData> data_;
};

namespace internal {

// The graph's storage; builders in graph/ops.cc add nodes through it.
struct GraphData {
  std::string name;
  std::vector<TensorType> input_types;
  std::vector<int> input_values;  // value id of input i
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<Node> nodes;
  std::vector<ValueType> values;
  std::vector<int> producers;  // value id -> node index
  std::vector<int> outputs;
  absl::Status status;

  // Records `status` if it is the first error; returns an invalid Value of this graph.
  Value Fail(absl::Status error);
  // Appends `node` (its outputs are set here) with the given output types; returns the Values
  // of its outputs.
  std::vector<Value> AddNode(Node node, std::vector<ValueType> output_types);
};

}  // namespace internal
}  // namespace edgeq

#endif  // EDGEQ_GRAPH_GRAPH_H_
