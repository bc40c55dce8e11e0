#include "graph/graph.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace edgeq {

std::string ValueType::ToString() const {
  if (!is_quantized()) return type.ToString();
  return absl::StrFormat("%s (%s of %s)", type.ToString(), encoding, logical_shape.ToString());
}

const ValueType& Value::value_type() const { return graph_->values[id_]; }

namespace internal {

Value GraphData::Fail(absl::Status error) {
  if (status.ok()) status = std::move(error);
  return Value(this, -1);
}

std::vector<Value> GraphData::AddNode(Node node, std::vector<ValueType> output_types) {
  node.outputs.clear();
  std::vector<Value> result;
  const int node_index = static_cast<int>(nodes.size());
  for (ValueType& t : output_types) {
    const int id = static_cast<int>(values.size());
    values.push_back(std::move(t));
    producers.push_back(node_index);
    node.outputs.push_back(id);
    result.emplace_back(this, id);
  }
  nodes.push_back(std::move(node));
  return result;
}

}  // namespace internal

Graph::Graph(std::string name, std::vector<TensorType> input_types)
    : data_(std::make_unique<internal::GraphData>()) {
  data_->name = std::move(name);
  for (size_t i = 0; i < input_types.size(); ++i) {
    AddInput(absl::StrCat("input", i), std::move(input_types[i]));
  }
}

Value Graph::AddInput(std::string name, TensorType type) {
  const size_t i = data_->input_types.size();
  if (name.empty() || std::find(data_->input_names.begin(), data_->input_names.end(), name) !=
                          data_->input_names.end()) {
    return data_->Fail(absl::InvalidArgumentError(
        absl::StrFormat("graph \"%s\": input %d is named \"%s\"; expected a non-empty name no "
                        "other input has",
                        data_->name, i, name)));
  }
  absl::Status valid = type.shape.Validate();
  if (!valid.ok()) {
    data_->Fail(absl::InvalidArgumentError(absl::StrFormat(
        "graph \"%s\": %s has an invalid shape: %s", data_->name, name, valid.message())));
  }
  Node node;
  node.kind = NodeKind::kInput;
  node.op = "input";
  node.input_index = static_cast<int>(i);
  ValueType vt{type, "", type.shape};
  data_->input_types.push_back(std::move(type));
  data_->input_names.push_back(std::move(name));
  const Value v = data_->AddNode(std::move(node), {std::move(vt)})[0];
  data_->input_values.push_back(v.id());
  return v;
}

Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

const std::string& Graph::name() const { return data_->name; }
int Graph::num_inputs() const { return static_cast<int>(data_->input_values.size()); }

Value Graph::Input(int i) {
  if (i < 0 || i >= num_inputs()) {
    return data_->Fail(absl::InvalidArgumentError(
        absl::StrFormat("graph \"%s\": Input(%d) is out of range: the graph has %d inputs", name(),
                        i, num_inputs())));
  }
  return Value(data_.get(), data_->input_values[i]);
}

Value Graph::Input(absl::string_view name) {
  for (int i = 0; i < num_inputs(); ++i) {
    if (data_->input_names[i] == name) return Input(i);
  }
  return data_->Fail(absl::InvalidArgumentError(
      absl::StrFormat("graph \"%s\": no input named \"%s\"; expected one of: %s", this->name(),
                      name, absl::StrJoin(data_->input_names, ", "))));
}

const std::string& Graph::input_name(int i) const { return data_->input_names[i]; }
const std::string& Graph::output_name(int i) const { return data_->output_names[i]; }

Value Graph::Constant(const Tensor& tensor) {
  // A quantized constant's bytes must match its encoding and logical shape before any op (and
  // later any kernel) relies on them.
  if (absl::Status s = CheckQuantizedTensor(
          absl::StrFormat("constant (value %d of graph \"%s\")", num_values(), name()), tensor);
      !s.ok()) {
    return data_->Fail(std::move(s));
  }
  ValueType vt;
  vt.type = TensorType(tensor.dtype(), tensor.shape());
  vt.encoding = tensor.encoding();
  vt.logical_shape = tensor.logical_shape();
  Node node;
  node.kind = NodeKind::kConstant;
  node.op = "constant";
  node.constant = tensor;
  return data_->AddNode(std::move(node), {std::move(vt)})[0];
}

Value Graph::Quantize(const QuantizationEncoding& encoding, const Tensor& tensor) {
  absl::StatusOr<Tensor> q = encoding.Quantize(tensor);
  if (!q.ok()) {
    return data_->Fail(absl::Status(q.status().code(),
                                    absl::StrFormat("quantize(%s, %s): %s", encoding.name(),
                                                    tensor.DebugString(), q.status().message())));
  }
  return Constant(*q);
}

void Graph::Output(Value value) {
  if (value.graph_data() == nullptr) {
    data_->Fail(absl::InvalidArgumentError(
        absl::StrFormat("graph \"%s\": Output(output%d) got a default-constructed Value", name(),
                        data_->outputs.size())));
    return;
  }
  if (value.graph_data() != data_.get()) {
    data_->Fail(absl::InvalidArgumentError(
        absl::StrFormat("graph \"%s\": Output(output%d) got a Value of graph \"%s\"", name(),
                        data_->outputs.size(), value.graph_data()->name)));
    return;
  }
  if (!value.ok()) return;  // The builder that produced it already recorded the error.
  data_->outputs.push_back(value.id());
  data_->output_names.push_back(absl::StrCat("output", data_->outputs.size() - 1));
}

void Graph::Output(std::string name, Value value) {
  if (name.empty() || std::find(data_->output_names.begin(), data_->output_names.end(), name) !=
                          data_->output_names.end()) {
    data_->Fail(absl::InvalidArgumentError(
        absl::StrFormat("graph \"%s\": output %d is named \"%s\"; expected a non-empty name no "
                        "other output has",
                        this->name(), data_->outputs.size(), name)));
    return;
  }
  const size_t before = data_->outputs.size();
  Output(value);
  if (data_->outputs.size() > before) data_->output_names.back() = std::move(name);
}

void Graph::Output(absl::Span<const Value> values) {
  for (const Value& v : values) Output(v);
}

const absl::Status& Graph::status() const { return data_->status; }
const std::vector<Node>& Graph::nodes() const { return data_->nodes; }
const std::vector<int>& Graph::outputs() const { return data_->outputs; }
int Graph::num_values() const { return static_cast<int>(data_->values.size()); }
const ValueType& Graph::value_type(int id) const { return data_->values[id]; }
int Graph::producer(int value_id) const { return data_->producers[value_id]; }

namespace {

std::string AttributesToString(const Node& node) {
  std::vector<std::string> parts;
  if (node.attrs != nullptr) parts = node.attrs->Describe();
  if (node.def == nullptr || node.def->custom) parts.push_back("custom");
  if (parts.empty()) return "";
  return absl::StrCat(" {", absl::StrJoin(parts, ", "), "}");
}

}  // namespace

std::string Graph::ToString() const {
  std::string out = absl::StrFormat("graph \"%s\" (%d inputs, %d outputs)\n", name(), num_inputs(),
                                    data_->outputs.size());
  for (const Node& node : data_->nodes) {
    std::vector<std::string> outs;
    for (int id : node.outputs) outs.push_back(absl::StrCat("%", id));
    std::string lhs = absl::StrJoin(outs, ", ");
    std::string types;
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (i > 0) absl::StrAppend(&types, ", ");
      absl::StrAppend(&types, data_->values[node.outputs[i]].ToString());
    }
    if (node.kind == NodeKind::kInput) {
      absl::StrAppendFormat(&out, "  %s = %s : %s\n", lhs, data_->input_names[node.input_index],
                            types);
      continue;
    }
    if (node.kind == NodeKind::kConstant) {
      absl::StrAppendFormat(&out, "  %s = constant : %s\n", lhs, types);
      continue;
    }
    std::vector<std::string> ins;
    for (int id : node.inputs) ins.push_back(absl::StrCat("%", id));
    absl::StrAppendFormat(&out, "  %s = %s(%s)%s : %s\n", lhs, node.op, absl::StrJoin(ins, ", "),
                          AttributesToString(node), types);
  }
  for (size_t i = 0; i < data_->outputs.size(); ++i) {
    absl::StrAppendFormat(&out, "  %s = %%%d\n", data_->output_names[i], data_->outputs[i]);
  }
  if (!data_->status.ok()) {
    absl::StrAppendFormat(&out, "  error: %s\n", data_->status.ToString());
  }
  return out;
}

}  // namespace edgeq
