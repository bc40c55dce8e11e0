#include "graph/ops.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace edgeq {
namespace ops {
namespace {

using internal::GraphData;

// Finds the graph of `inputs`, checking they all belong to one graph and are valid. Returns null
// if the caller must return an invalid Value (`*failed` is then set to that Value).
GraphData* CommonGraph(absl::string_view op, absl::Span<const Value> inputs, Value* failed) {
  GraphData* g = nullptr;
  for (const Value& v : inputs) {
    if (v.graph_data() == nullptr) continue;
    if (g == nullptr) {
      g = v.graph_data();
    } else if (v.graph_data() != g) {
      *failed = g->Fail(absl::InvalidArgumentError(
          absl::StrFormat("%s: inputs come from two graphs, \"%s\" and \"%s\"", op, g->name,
                          v.graph_data()->name)));
      return nullptr;
    }
  }
  if (g == nullptr) {
    *failed = Value();
    return nullptr;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].graph_data() == nullptr) {
      *failed = g->Fail(absl::InvalidArgumentError(
          absl::StrFormat("%s: input %d is a default-constructed Value", op, i)));
      return nullptr;
    }
    if (!inputs[i].ok()) {  // An earlier builder failed and recorded why.
      *failed = Value(g, -1);
      return nullptr;
    }
  }
  return g;
}

std::string TypesString(absl::Span<const Value> inputs) {
  std::vector<std::string> parts;
  for (const Value& v : inputs) parts.push_back(v.value_type().ToString());
  return absl::StrJoin(parts, ", ");
}

Value Fail(GraphData* g, absl::string_view op, absl::Span<const Value> inputs,
           const absl::Status& why) {
  return g->Fail(absl::Status(
      why.code(), absl::StrFormat("%s(%s): %s", op, TypesString(inputs), why.message())));
}

// The node's outputs as its OpDef infers them, or the recorded error.
absl::StatusOr<std::vector<ValueType>> Infer(GraphData* g, const OpDef& def,
                                             absl::Span<const Value> inputs,
                                             const OpAttributes& attrs) {
  std::vector<ValueType> types;
  InferInput in;
  for (const Value& v : inputs) {
    types.push_back(v.value_type());
    in.is_constant.push_back(g->nodes[g->producers[v.id()]].kind == NodeKind::kConstant);
  }
  in.types = types;
  return def.infer(in, attrs);
}

std::vector<Value> Build(absl::string_view name, absl::Span<const Value> inputs,
                         const AttributeMap& attributes) {
  Value failed;
  GraphData* g = CommonGraph(name, inputs, &failed);
  if (g == nullptr) return {failed};
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(name);
  if (!def.ok()) return {g->Fail(def.status())};
  const int n = static_cast<int>(inputs.size());
  if (n < (*def)->min_inputs || ((*def)->max_inputs >= 0 && n > (*def)->max_inputs)) {
    const std::string want =
        (*def)->max_inputs == (*def)->min_inputs ? absl::StrCat((*def)->min_inputs)
        : (*def)->max_inputs < 0                 ? absl::StrCat("at least ", (*def)->min_inputs)
                                 : absl::StrCat((*def)->min_inputs, " to ", (*def)->max_inputs);
    return {Fail(g, name, inputs,
                 absl::InvalidArgumentError(absl::StrFormat("takes %s inputs, got %d", want, n)))};
  }
  absl::StatusOr<std::shared_ptr<const OpAttributes>> attrs =
      (*def)->parse_attributes ? (*def)->parse_attributes(attributes)
                               : ParseNoAttributes(name, attributes);
  if (!attrs.ok()) return {g->Fail(attrs.status())};
  absl::StatusOr<std::vector<ValueType>> outs = Infer(g, **def, inputs, **attrs);
  if (!outs.ok()) return {Fail(g, name, inputs, outs.status())};
  Node node;
  node.op = (*def)->name;
  node.def = *def;
  node.attrs = *std::move(attrs);
  for (const Value& v : inputs) node.inputs.push_back(v.id());
  return g->AddNode(std::move(node), *std::move(outs));
}

}  // namespace

std::vector<Value> OpOutputs(absl::string_view name, absl::Span<const Value> inputs,
                             const AttributeMap& attributes) {
  return Build(name, inputs, attributes);
}

Value Op(absl::string_view name, absl::Span<const Value> inputs, const AttributeMap& attributes) {
  std::vector<Value> outs = Build(name, inputs, attributes);
  return outs.empty() ? Value() : outs[0];
}

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = a.rank() - rank + i;
    const int ib = b.rank() - rank + i;
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrFormat("shapes %s and %s do not broadcast (dimension %d: %d vs %d)",
                          a.ToString(), b.ToString(), i, da, db));
    }
    dims[i] = da == 1 ? db : da;
  }
  return Shape(std::move(dims));
}

Value Matmul(Value lhs, Value rhs) { return Op("matmul", {lhs, rhs}); }
Value MatmulTransposed(Value lhs, Value rhs) { return Op("matmul_transposed", {lhs, rhs}); }
Value QMatmul(const QuantizationEncoding& encoding, Value lhs, Value rhs) {
  return Op("qmatmul", {lhs, rhs}, {{"encoding", std::string(encoding.name())}});
}
Value Add(Value a, Value b) { return Op("add", {a, b}); }
Value Sub(Value a, Value b) { return Op("sub", {a, b}); }
Value Mul(Value a, Value b) { return Op("mul", {a, b}); }
Value Div(Value a, Value b) { return Op("div", {a, b}); }
Value RmsNorm(Value x, Value weight, float epsilon) {
  return Op("rms_norm", {x, weight}, {{"epsilon", static_cast<double>(epsilon)}});
}
Value Softmax(Value x) { return Op("softmax", {x}); }
Value Silu(Value x) { return Op("silu", {x}); }
Value SwiGlu(Value gate, Value up) { return Op("swiglu", {gate, up}); }
Value Gelu(Value x) { return Op("gelu", {x}); }
Value GeluTanh(Value x, bool half_precision_table) {
  return Op("gelu_tanh", {x}, {{"half_precision_table", int64_t{half_precision_table}}});
}
Value Tanh(Value x) { return Op("tanh", {x}); }

Value Rope(Value x, Value positions, float theta) {
  return Op("rope", {x, positions}, {{"theta", static_cast<double>(theta)}});
}
Value Rope(Value x, Value positions, Value inv_freq, RopeMode mode) {
  return Op("rope", {x, positions, inv_freq},
            {{"mode", std::string(mode == RopeMode::kNeox ? "neox" : "norm")}});
}

Value Attention(Value q, Value k_cache, Value v_cache, Value k_new, Value v_new, Value positions,
                float scale, int64_t window, bool store_kv) {
  // The caches' dtype says their type: u8 rows are q8_0 blocks, f16 rows halves.
  const char* cache_type = "f32";
  if (k_cache.ok() && !k_cache.is_quantized()) {
    if (k_cache.dtype() == DType::kUInt8) cache_type = "q8_0";
    if (k_cache.dtype() == DType::kFloat16) cache_type = "f16";
  }
  AttributeMap attributes = {{"scale", static_cast<double>(scale)},
                             {"window", window},
                             {"kv_cache", std::string(cache_type)}};
  if (store_kv) attributes["store_kv"] = int64_t{1};
  return Op("attention", {q, k_cache, v_cache, k_new, v_new, positions}, std::move(attributes));
}

Value Gather(Value table, Value indices) { return Op("gather", {table, indices}); }
Value Reshape(Value x, std::vector<int64_t> shape) {
  return Op("reshape", {x}, {{"shape", std::move(shape)}});
}
Value Transpose(Value x, std::vector<int64_t> perm) {
  return Op("transpose", {x}, {{"perm", std::move(perm)}});
}
Value Slice(Value x, std::vector<int64_t> starts, std::vector<int64_t> ends) {
  return Op("slice", {x}, {{"starts", std::move(starts)}, {"ends", std::move(ends)}});
}
Value Concat(absl::Span<const Value> values, int64_t axis) {
  return Op("concat", values, {{"axis", axis}});
}

std::vector<Value> Custom(absl::string_view name, absl::Span<const Value> inputs,
                          std::vector<TensorType> output_types) {
  const std::string op = absl::StrCat("custom ", name);
  Value failed;
  GraphData* g = CommonGraph(op, inputs, &failed);
  auto fail_all = [&](Value v) { return std::vector<Value>(output_types.size(), v); };
  if (g == nullptr) return fail_all(failed);
  if (name.empty() || output_types.empty()) {
    return fail_all(Fail(g, op, inputs,
                         absl::InvalidArgumentError("needs a name and at least one output type")));
  }
  std::vector<ValueType> outs;
  for (const TensorType& t : output_types) {
    absl::Status s = t.shape.Validate();
    if (!s.ok()) return fail_all(Fail(g, op, inputs, absl::InvalidArgumentError(s.message())));
    ValueType v;
    v.type = t;
    v.logical_shape = t.shape;
    outs.push_back(std::move(v));
  }
  // Resolved now if registered (a built-in's attributes take their defaults), else at Load
  // (CustomOpRegistry::Register may come after the graph is built). The runtime checks the
  // declared output types against the op's inference at Load.
  Node node;
  node.op = std::string(name);
  absl::StatusOr<const OpDef*> def = OpRegistry::Global().Find(name);
  node.attrs = std::make_shared<NoAttributes>();
  if (def.ok()) {
    node.def = *def;
    if ((*def)->parse_attributes) {
      absl::StatusOr<std::shared_ptr<const OpAttributes>> attrs = (*def)->parse_attributes({});
      if (!attrs.ok()) return fail_all(Fail(g, op, inputs, attrs.status()));
      node.attrs = *std::move(attrs);
    }
  }
  for (const Value& v : inputs) node.inputs.push_back(v.id());
  return g->AddNode(std::move(node), std::move(outs));
}

}  // namespace ops
}  // namespace edgeq
