// The C API's graphs, sessions and models (edgeq_graph_*, edgeq_session_*, edgeq_model_*) over
// edgeq::Graph, InferenceSession and CompiledGraph.
//
// A C graph keeps the calls that built it (a tape) beside the C++ Graph. The C++ builder records
// its first error and then refuses every later op; a C caller (or Python at a prompt) expects a
// failed call to change nothing. So when a call leaves the C++ graph in error, the graph is
// rebuilt from the tape without that call, and the call returns the error.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "c_api/internal.h"
#include "core/bounded_input.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "edgeq/edgeq.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "graph/ops.h"
#include "nlohmann/json.hpp"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace {

using edgeq::c_api::Encoding;
using edgeq::c_api::Fail;
using edgeq::c_api::FromStatus;

// One builder call of a C graph.
struct Step {
  enum class Kind { kInput, kConstant, kOp, kQMatmul, kOutput };
  Kind kind = Kind::kConstant;
  int index = 0;                   // kInput: the input index
  edgeq::Tensor tensor;            // kConstant (plain or quantized)
  std::string name;                // kOp: op name; kQMatmul: encoding name
  std::vector<int> args;           // C value ids (kOp, kQMatmul, kOutput)
  edgeq::AttributeMap attributes;  // kOp
};

std::string OpNames() { return absl::StrJoin(edgeq::OpRegistry::Global().Names(), ", "); }

// A JSON object of attributes -> AttributeMap (integers, reals, strings, lists of integers;
// booleans as 0/1).
absl::StatusOr<edgeq::AttributeMap> ParseAttributes(const char* op, const char* text) {
  edgeq::AttributeMap map;
  if (text == nullptr || *text == '\0') return map;
  const std::string what = absl::StrCat("edgeq_graph_op_with_attributes: ", op, " attributes");
  if (absl::Status s = edgeq::CheckJsonDepth(text, 2, what); !s.ok()) return s;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a JSON object, got ", edgeq::QuoteForError(text)));
  }
  for (const auto& [key, v] : j.items()) {
    if (v.is_boolean()) {
      map[key] = int64_t{v.get<bool>()};
    } else if (v.is_number_integer()) {
      map[key] = v.get<int64_t>();
    } else if (v.is_number_float()) {
      map[key] = v.get<double>();
    } else if (v.is_string()) {
      map[key] = v.get<std::string>();
    } else if (v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) {
                 return e.is_number_integer();
               })) {
      map[key] = v.get<std::vector<int64_t>>();
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": ", key, " must be an integer, a number, a string or a list of integers"));
    }
  }
  return map;
}

// The attribute keys of each op, joined (the strings edgeq_op_get hands out).
const char* AttributeList(const edgeq::OpDef* def) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* lists = new std::map<const edgeq::OpDef*, std::string>();
  absl::MutexLock lock(&mu);
  auto it = lists->find(def);
  if (it == lists->end()) {
    it = lists->emplace(def, absl::StrJoin(def->attribute_names, ",")).first;
  }
  return it->second.c_str();
}

absl::StatusOr<edgeq::Shape> ShapeOf(int32_t rank, const int64_t* dims, const char* what) {
  if (rank < 0 || rank > EDGEQ_MAX_RANK) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": rank ", rank, " is not in [0, ", EDGEQ_MAX_RANK, "]"));
  }
  if (rank > 0 && dims == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": shape is NULL"));
  }
  std::vector<int64_t> d(dims, dims + rank);
  edgeq::Shape shape(d);
  absl::Status s = shape.Validate();
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
  return shape;
}

absl::StatusOr<edgeq::TensorType> TypeOf(const edgeq_tensor_type& t, const char* what) {
  edgeq::DType dtype = edgeq::DType::kFloat32;
  if (t.dtype != nullptr) {
    auto d = edgeq::DTypeFromName(t.dtype);
    if (!d.ok()) return absl::InvalidArgumentError(absl::StrCat(what, ": ", d.status().message()));
    dtype = *d;
  }
  auto shape = ShapeOf(t.rank, t.shape, what);
  if (!shape.ok()) return shape.status();
  return edgeq::TensorType(dtype, *shape);
}

// Fills a C type; the dtype string is static (DTypeName's).
void ToCType(edgeq::DType dtype, const edgeq::Shape& shape, edgeq_tensor_type* out) {
  std::memset(out, 0, sizeof(*out));
  out->dtype = edgeq::DTypeName(dtype).data();
  out->rank = static_cast<int32_t>(shape.rank());
  for (int i = 0; i < shape.rank() && i < EDGEQ_MAX_RANK; ++i) out->shape[i] = shape.dims()[i];
}

}  // namespace

struct edgeq_graph {
  std::string name;
  std::vector<edgeq::TensorType> input_types;
  std::vector<Step> tape;
  std::unique_ptr<edgeq::Graph> graph;
  std::vector<edgeq::Value> values;  // by C value id

  // Runs one step on the current C++ graph; appends the value it makes (if any).
  void Apply(const Step& step) {
    switch (step.kind) {
      case Step::Kind::kInput:
        values.push_back(graph->Input(step.index));
        break;
      case Step::Kind::kConstant:
        values.push_back(graph->Constant(step.tensor));
        break;
      case Step::Kind::kOp: {
        std::vector<edgeq::Value> args;
        for (int id : step.args) args.push_back(values[id]);
        values.push_back(edgeq::ops::Op(step.name, args, step.attributes));
        break;
      }
      case Step::Kind::kQMatmul: {
        const edgeq::QuantizationEncoding* enc = *edgeq::FindEncoding(step.name);
        values.push_back(edgeq::ops::QMatmul(*enc, values[step.args[0]], values[step.args[1]]));
        break;
      }
      case Step::Kind::kOutput:
        graph->Output(values[step.args[0]]);
        break;
    }
  }

  void Rebuild() {
    graph = std::make_unique<edgeq::Graph>(name, input_types);
    values.clear();
    for (const Step& step : tape) Apply(step);
  }

  // Adds a step; on a builder error, rebuilds without it and returns the error.
  absl::Status Add(Step step) {
    Apply(step);
    if (!graph->status().ok()) {
      absl::Status error = graph->status();
      Rebuild();
      return error;
    }
    tape.push_back(std::move(step));
    return absl::OkStatus();
  }

  absl::Status CheckValue(edgeq_value v) const {
    if (v < 0 || static_cast<size_t>(v) >= values.size()) {
      return absl::InvalidArgumentError(absl::StrCat("value ", v, " is not a value of graph '",
                                                     name, "' (it has ", values.size(), ")"));
    }
    return absl::OkStatus();
  }
};

struct edgeq_session {
  std::unique_ptr<edgeq::InferenceSession> session;
};

struct edgeq_model {
  edgeq::CompiledGraph model;
  std::vector<edgeq::TensorType> inputs;
  std::vector<std::string> input_names;
  std::vector<edgeq::TensorType> outputs;  // storage types
};

namespace {

edgeq_status AddValue(edgeq_graph* graph, Step step, edgeq_value* out) {
  absl::Status s = graph->Add(std::move(step));
  if (!s.ok()) return FromStatus(s);
  *out = static_cast<edgeq_value>(graph->values.size() - 1);
  return EDGEQ_OK;
}

}  // namespace

extern "C" {

edgeq_status edgeq_graph_create(const char* name, const edgeq_tensor_type* inputs, size_t n_inputs,
                                edgeq_graph** out) {
  EDGEQ_C_CHECK_ARG(out != nullptr, "out is NULL");
  *out = nullptr;
  EDGEQ_C_CHECK_ARG(name != nullptr, "name is NULL");
  EDGEQ_C_CHECK_ARG(n_inputs == 0 || inputs != nullptr, "inputs is NULL");
  auto g = std::make_unique<edgeq_graph>();
  g->name = name;
  for (size_t i = 0; i < n_inputs; ++i) {
    const std::string what = absl::StrCat("edgeq_graph_create: input ", i);
    auto type = TypeOf(inputs[i], what.c_str());
    if (!type.ok()) return FromStatus(type.status());
    g->input_types.push_back(*type);
  }
  g->Rebuild();
  *out = g.release();
  return EDGEQ_OK;
}

void edgeq_graph_free(edgeq_graph* graph) { delete graph; }

edgeq_status edgeq_graph_input(edgeq_graph* graph, size_t index, edgeq_value* out) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && out != nullptr, "graph or out is NULL");
  if (index >= graph->input_types.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("edgeq_graph_input: graph '", graph->name, "' has ",
                             graph->input_types.size(), " inputs, asked for input ", index));
  }
  Step step;
  step.kind = Step::Kind::kInput;
  step.index = static_cast<int>(index);
  return AddValue(graph, std::move(step), out);
}

edgeq_status edgeq_graph_constant(edgeq_graph* graph, const float* data, int32_t rank,
                                  const int64_t* shape, edgeq_value* out) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && out != nullptr, "graph or out is NULL");
  auto s = ShapeOf(rank, shape, "edgeq_graph_constant");
  if (!s.ok()) return FromStatus(s.status());
  EDGEQ_C_CHECK_ARG(data != nullptr || s->num_elements() == 0, "data is NULL");
  auto t = edgeq::Tensor::Create(edgeq::DType::kFloat32, *s);
  if (!t.ok()) return FromStatus(t.status());
  if (t->size_bytes() > 0) std::memcpy(t->raw_mutable_data(), data, t->size_bytes());
  Step step;
  step.tensor = std::move(*t);
  return AddValue(graph, std::move(step), out);
}

edgeq_status edgeq_graph_quantize(edgeq_graph* graph, const char* encoding, const float* data,
                                  int32_t rank, const int64_t* shape, edgeq_value* out) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && out != nullptr, "graph or out is NULL");
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  auto s = ShapeOf(rank, shape, "edgeq_graph_quantize");
  if (!s.ok()) return FromStatus(s.status());
  EDGEQ_C_CHECK_ARG(data != nullptr || s->num_elements() == 0, "data is NULL");
  auto view = edgeq::Tensor::View(edgeq::DType::kFloat32, *s, data,
                                  static_cast<size_t>(s->num_elements()) * sizeof(float), nullptr);
  if (!view.ok()) return FromStatus(view.status());
  // Graph::Quantize(e, t) == Constant(e.Quantize(t)); quantizing here keeps the tape's tensor
  // quantized once, however often the graph is rebuilt.
  auto q = (*enc)->Quantize(*view);
  if (!q.ok()) {
    return FromStatus(
        absl::Status(q.status().code(), absl::StrCat("quantize: ", q.status().message())));
  }
  Step step;
  step.tensor = std::move(*q);
  return AddValue(graph, std::move(step), out);
}

edgeq_status edgeq_graph_quantized_constant(edgeq_graph* graph, const char* encoding,
                                            const uint8_t* data, size_t data_bytes, int32_t rank,
                                            const int64_t* shape, edgeq_value* out) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && out != nullptr, "graph or out is NULL");
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  auto logical = ShapeOf(rank, shape, "edgeq_graph_quantized_constant");
  if (!logical.ok()) return FromStatus(logical.status());
  auto stored = (*enc)->QuantizedShape(*logical);
  if (!stored.ok()) return FromStatus(stored.status());
  const size_t need = static_cast<size_t>(stored->num_elements());
  if (data_bytes != need) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat("edgeq_graph_quantized_constant: ", (*enc)->name(), " of ",
                             logical->ToString(), " is ", need, " bytes, got ", data_bytes));
  }
  EDGEQ_C_CHECK_ARG(data != nullptr || need == 0, "data is NULL");
  auto t = edgeq::Tensor::Create(edgeq::DType::kUInt8, *stored);
  if (!t.ok()) return FromStatus(t.status());
  if (need > 0) std::memcpy(t->raw_mutable_data(), data, need);
  t->SetQuantization(std::string((*enc)->name()), *logical);
  Step step;
  step.tensor = std::move(*t);
  return AddValue(graph, std::move(step), out);
}

edgeq_status edgeq_graph_qmatmul(edgeq_graph* graph, const char* encoding, edgeq_value lhs,
                                 edgeq_value rhs, edgeq_value* out) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && out != nullptr, "graph or out is NULL");
  auto enc = Encoding(encoding);
  if (!enc.ok()) return FromStatus(enc.status());
  for (edgeq_value v : {lhs, rhs}) {
    absl::Status s = graph->CheckValue(v);
    if (!s.ok()) return FromStatus(s);
  }
  Step step;
  step.kind = Step::Kind::kQMatmul;
  step.name = std::string((*enc)->name());
  step.args = {lhs, rhs};
  return AddValue(graph, std::move(step), out);
}

edgeq_status edgeq_graph_op_with_attributes(edgeq_graph* graph, const char* op,
                                            const edgeq_value* inputs, size_t n_inputs,
                                            const char* attributes_json, edgeq_value* out) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && out != nullptr, "graph or out is NULL");
  EDGEQ_C_CHECK_ARG(op != nullptr, "op is NULL");
  EDGEQ_C_CHECK_ARG(n_inputs == 0 || inputs != nullptr, "inputs is NULL");
  absl::StatusOr<const edgeq::OpDef*> def = edgeq::OpRegistry::Global().Find(op);
  if (!def.ok()) {
    return Fail(EDGEQ_ERROR_NOT_FOUND,
                absl::StrCat("edgeq_graph_op: unknown op ", edgeq::QuoteForError(op),
                             " (known: ", OpNames(), ")"));
  }
  const size_t lo = std::max(1, (*def)->min_inputs);  // a graph op needs an input of the graph
  if (n_inputs < lo ||
      ((*def)->max_inputs >= 0 && n_inputs > static_cast<size_t>((*def)->max_inputs))) {
    return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                absl::StrCat("edgeq_graph_op: op ", op, " takes ",
                             (*def)->max_inputs < 0 ? absl::StrCat("at least ", lo)
                             : lo == static_cast<size_t>((*def)->max_inputs)
                                 ? absl::StrCat(lo)
                                 : absl::StrCat(lo, " to ", (*def)->max_inputs),
                             " inputs, got ", n_inputs));
  }
  absl::StatusOr<edgeq::AttributeMap> attributes = ParseAttributes(op, attributes_json);
  if (!attributes.ok()) return FromStatus(attributes.status());
  Step step;
  step.kind = Step::Kind::kOp;
  step.name = op;
  step.attributes = *std::move(attributes);
  for (size_t i = 0; i < n_inputs; ++i) {
    absl::Status s = graph->CheckValue(inputs[i]);
    if (!s.ok()) return FromStatus(s);
    step.args.push_back(inputs[i]);
  }
  return AddValue(graph, std::move(step), out);
}

edgeq_status edgeq_graph_op(edgeq_graph* graph, const char* op, const edgeq_value* inputs,
                            size_t n_inputs, edgeq_value* out) {
  return edgeq_graph_op_with_attributes(graph, op, inputs, n_inputs, nullptr, out);
}

size_t edgeq_op_count(void) { return edgeq::OpRegistry::Global().Ops().size(); }

edgeq_status edgeq_op_get(size_t index, edgeq_op_info* info) {
  EDGEQ_C_CHECK_ARG(info != nullptr, "info is NULL");
  const std::vector<const edgeq::OpDef*> ops = edgeq::OpRegistry::Global().Ops();
  if (index >= ops.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("op index ", index, " not below ", ops.size()));
  }
  info->name = ops[index]->name.c_str();
  info->min_inputs = ops[index]->min_inputs;
  info->max_inputs = ops[index]->max_inputs;
  info->attributes = AttributeList(ops[index]);
  return EDGEQ_OK;
}

edgeq_status edgeq_graph_output(edgeq_graph* graph, edgeq_value value) {
  EDGEQ_C_CHECK_ARG(graph != nullptr, "graph is NULL");
  absl::Status s = graph->CheckValue(value);
  if (!s.ok()) return FromStatus(s);
  Step step;
  step.kind = Step::Kind::kOutput;
  step.args = {value};
  return FromStatus(graph->Add(std::move(step)));
}

edgeq_status edgeq_graph_value_type(const edgeq_graph* graph, edgeq_value value,
                                    edgeq_tensor_type* type, const char** encoding) {
  EDGEQ_C_CHECK_ARG(graph != nullptr, "graph is NULL");
  absl::Status s = graph->CheckValue(value);
  if (!s.ok()) return FromStatus(s);
  const edgeq::Value& v = graph->values[value];
  const edgeq::ValueType& vt = v.value_type();
  if (vt.logical_shape.rank() > EDGEQ_MAX_RANK) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("value ", value, " has rank ", vt.logical_shape.rank()));
  }
  if (type != nullptr) ToCType(vt.type.dtype, vt.logical_shape, type);
  if (encoding != nullptr) *encoding = vt.encoding.c_str();
  return EDGEQ_OK;
}

edgeq_status edgeq_graph_to_string(const edgeq_graph* graph, char* text, size_t capacity,
                                   size_t* length) {
  EDGEQ_C_CHECK_ARG(graph != nullptr && length != nullptr, "graph or length is NULL");
  const std::string s = graph->graph->ToString();
  *length = s.size();
  if (text == nullptr || capacity < s.size() + 1) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL,
                absl::StrCat("edgeq_graph_to_string: ", s.size() + 1, " bytes needed"));
  }
  std::memcpy(text, s.c_str(), s.size() + 1);
  return EDGEQ_OK;
}

edgeq_status edgeq_session_create(int32_t num_threads, edgeq_session** out) {
  EDGEQ_C_CHECK_ARG(out != nullptr, "out is NULL");
  EDGEQ_C_CHECK_ARG(num_threads <= edgeq::kMaxSessionThreads,
                    absl::StrCat("num_threads is ", num_threads, "; expected at most ",
                                 edgeq::kMaxSessionThreads, " (<= 0: 1)"));
  edgeq::SessionOptions options;
  options.num_threads = num_threads <= 0 ? 1 : num_threads;
  auto s = std::make_unique<edgeq_session>();
  s->session = std::make_unique<edgeq::InferenceSession>(options);
  *out = s.release();
  return EDGEQ_OK;
}

void edgeq_session_free(edgeq_session* session) { delete session; }

edgeq_status edgeq_session_load(edgeq_session* session, const edgeq_graph* graph,
                                edgeq_model** out) {
  EDGEQ_C_CHECK_ARG(session != nullptr && graph != nullptr && out != nullptr,
                    "session, graph or out is NULL");
  *out = nullptr;
  auto model = session->session->Load(*graph->graph);
  if (!model.ok()) return FromStatus(model.status());
  auto m = std::unique_ptr<edgeq_model>(new edgeq_model{std::move(*model), {}, {}, {}});
  m->inputs = graph->input_types;
  for (size_t i = 0; i < m->inputs.size(); ++i) m->input_names.push_back(absl::StrCat("input", i));
  for (int id : graph->graph->outputs()) m->outputs.push_back(graph->graph->value_type(id).type);
  *out = m.release();
  return EDGEQ_OK;
}

void edgeq_model_free(edgeq_model* model) { delete model; }

size_t edgeq_model_input_count(const edgeq_model* model) {
  return model ? model->inputs.size() : 0;
}

size_t edgeq_model_output_count(const edgeq_model* model) {
  return model ? model->outputs.size() : 0;
}

edgeq_status edgeq_model_input_type(const edgeq_model* model, size_t index,
                                    edgeq_tensor_type* type) {
  EDGEQ_C_CHECK_ARG(model != nullptr && type != nullptr, "model or type is NULL");
  if (index >= model->inputs.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("input ", index, " not below ", model->inputs.size()));
  }
  ToCType(model->inputs[index].dtype, model->inputs[index].shape, type);
  return EDGEQ_OK;
}

edgeq_status edgeq_model_output_type(const edgeq_model* model, size_t index,
                                     edgeq_tensor_type* type) {
  EDGEQ_C_CHECK_ARG(model != nullptr && type != nullptr, "model or type is NULL");
  if (index >= model->outputs.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE,
                absl::StrCat("output ", index, " not below ", model->outputs.size()));
  }
  ToCType(model->outputs[index].dtype, model->outputs[index].shape, type);
  return EDGEQ_OK;
}

edgeq_status edgeq_model_execute(edgeq_model* model, const void* const* inputs, size_t n_inputs,
                                 void* const* outputs, size_t n_outputs) {
  EDGEQ_C_CHECK_ARG(model != nullptr, "model is NULL");
  if (n_inputs != model->inputs.size() || n_outputs != model->outputs.size()) {
    return Fail(
        EDGEQ_ERROR_INVALID_ARGUMENT,
        absl::StrCat("edgeq_model_execute: the model has ", model->inputs.size(), " inputs and ",
                     model->outputs.size(), " outputs, got ", n_inputs, " and ", n_outputs));
  }
  EDGEQ_C_CHECK_ARG(n_inputs == 0 || inputs != nullptr, "inputs is NULL");
  EDGEQ_C_CHECK_ARG(n_outputs == 0 || outputs != nullptr, "outputs is NULL");
  std::vector<edgeq::Tensor> views;
  views.reserve(n_inputs);
  for (size_t i = 0; i < n_inputs; ++i) {
    const edgeq::TensorType& t = model->inputs[i];
    const size_t bytes = static_cast<size_t>(t.shape.num_elements()) * edgeq::DTypeSize(t.dtype);
    if (inputs[i] == nullptr && bytes > 0) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_model_execute: input ", i, " is NULL"));
    }
    auto v = edgeq::Tensor::View(t.dtype, t.shape, inputs[i], bytes, nullptr);
    if (!v.ok()) return FromStatus(v.status());
    views.push_back(std::move(*v));
  }
  std::vector<edgeq::NamedTensor> named;
  for (size_t i = 0; i < n_inputs; ++i) named.emplace_back(model->input_names[i], views[i]);
  auto result = model->model.Execute(named);
  if (!result.ok()) return FromStatus(result.status());
  for (size_t i = 0; i < n_outputs; ++i) {
    auto y = result->Get(absl::StrCat("output", i));
    if (!y.ok()) return FromStatus(y.status());
    if (outputs[i] == nullptr && y->size_bytes() > 0) {
      return Fail(EDGEQ_ERROR_INVALID_ARGUMENT,
                  absl::StrCat("edgeq_model_execute: output ", i, " is NULL"));
    }
    if (y->size_bytes() > 0) std::memcpy(outputs[i], y->raw_data(), y->size_bytes());
  }
  return EDGEQ_OK;
}

}  // extern "C"
