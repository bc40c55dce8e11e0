// The C API's graphs, sessions, models and checkpoint writer against the C++ API they wrap.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "checkpoint/formats.h"
#include "core/tensor.h"
#include "edgeq/edgeq.h"
#include "graph/graph.h"
#include "graph/op.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace {

edgeq_value& out_unused() {
  static edgeq_value v;
  return v;
}

std::string ToString(const edgeq_graph* g) {
  size_t length = 0;
  EXPECT_EQ(edgeq_graph_to_string(g, nullptr, 0, &length), EDGEQ_ERROR_BUFFER_TOO_SMALL);
  std::string s(length + 1, '\0');
  EXPECT_EQ(edgeq_graph_to_string(g, s.data(), s.size(), &length), EDGEQ_OK);
  s.resize(length);
  return s;
}

edgeq_tensor_type F32(std::vector<int64_t> dims) {
  edgeq_tensor_type t;
  std::memset(&t, 0, sizeof(t));
  t.dtype = "f32";
  t.rank = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) t.shape[i] = dims[i];
  return t;
}

// The seed's example, [32, 64] x Q4_0([32, 64])^T, through the C++ API.
std::vector<float> CppSeedExample(const std::vector<float>& w, const std::vector<float>& x) {
  edgeq::Graph graph("qmatmul", {edgeq::TensorType(edgeq::DType::kFloat32, {32, 64})});
  edgeq::Tensor wt = *edgeq::Tensor::FromValues<float>({32, 64}, w);
  edgeq::Value qw = graph.Quantize(edgeq::Q4_0Encoding(), wt);
  graph.Output(edgeq::ops::QMatmul(edgeq::Q4_0Encoding(), graph.Input(0), qw));
  edgeq::InferenceSession session;
  edgeq::CompiledGraph model = *session.Load(graph);
  edgeq::Tensor xt = *edgeq::Tensor::FromValues<float>({32, 64}, x);
  edgeq::Tensor y = *model.Execute({{"input0", xt}})->Get("output0");
  auto v = *y.Values<float>();
  return std::vector<float>(v.begin(), v.end());
}

TEST(CGraph, SeedQMatmulExampleEqualsCpp) {
  std::vector<float> w(32 * 64), x(32 * 64);
  for (size_t i = 0; i < w.size(); ++i) {
    w[i] = std::sin(0.37f * i);
    x[i] = std::cos(0.11f * i);
  }
  const edgeq_tensor_type in = F32({32, 64});
  const int64_t wshape[2] = {32, 64};
  edgeq_graph* g = nullptr;
  ASSERT_EQ(edgeq_graph_create("qmatmul", &in, 1, &g), EDGEQ_OK);
  edgeq_value x0 = -1, qw = -1, out = -1;
  ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_quantize(g, "q4_0", w.data(), 2, wshape, &qw), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_qmatmul(g, "q4_0", x0, qw, &out), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_output(g, out), EDGEQ_OK);
  EXPECT_EQ(x0, 0);
  EXPECT_EQ(qw, 1);
  EXPECT_EQ(out, 2);

  edgeq_tensor_type t;
  const char* encoding = nullptr;
  ASSERT_EQ(edgeq_graph_value_type(g, qw, &t, &encoding), EDGEQ_OK);
  EXPECT_STREQ(t.dtype, "u8");
  EXPECT_STREQ(encoding, "q4_0");
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(t.shape[0], 32);
  EXPECT_EQ(t.shape[1], 64);  // logical
  ASSERT_EQ(edgeq_graph_value_type(g, out, &t, &encoding), EDGEQ_OK);
  EXPECT_STREQ(t.dtype, "f32");
  EXPECT_STREQ(encoding, "");
  EXPECT_EQ(t.shape[0], 32);
  EXPECT_EQ(t.shape[1], 32);
  EXPECT_NE(ToString(g).find("qmatmul"), std::string::npos) << ToString(g);

  edgeq_session* session = nullptr;
  ASSERT_EQ(edgeq_session_create(2, &session), EDGEQ_OK);
  edgeq_model* model = nullptr;
  ASSERT_EQ(edgeq_session_load(session, g, &model), EDGEQ_OK);
  // The model outlives the graph and the session.
  edgeq_graph_free(g);
  edgeq_session_free(session);
  ASSERT_EQ(edgeq_model_input_count(model), 1u);
  ASSERT_EQ(edgeq_model_output_count(model), 1u);
  ASSERT_EQ(edgeq_model_output_type(model, 0, &t), EDGEQ_OK);
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(t.shape[1], 32);
  EXPECT_EQ(edgeq_model_output_type(model, 1, &t), EDGEQ_ERROR_OUT_OF_RANGE);

  std::vector<float> y(32 * 32, -1.0f);
  const void* inputs[] = {x.data()};
  void* outputs[] = {y.data()};
  ASSERT_EQ(edgeq_model_execute(model, inputs, 1, outputs, 1), EDGEQ_OK) << edgeq_last_error();
  const std::vector<float> want = CppSeedExample(w, x);
  EXPECT_EQ(std::memcmp(y.data(), want.data(), y.size() * sizeof(float)), 0);
  // Twice: the model's arena is reused, the result is the same.
  std::vector<float> y2(y.size());
  void* outputs2[] = {y2.data()};
  ASSERT_EQ(edgeq_model_execute(model, inputs, 1, outputs2, 1), EDGEQ_OK);
  EXPECT_EQ(y, y2);

  EXPECT_EQ(edgeq_model_execute(model, inputs, 2, outputs, 1), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("1 inputs and 1 outputs, got 2 and 1"),
            std::string::npos)
      << edgeq_last_error();
  const void* null_inputs[] = {nullptr};
  EXPECT_EQ(edgeq_model_execute(model, null_inputs, 1, outputs, 1), EDGEQ_ERROR_INVALID_ARGUMENT);
  edgeq_model_free(model);
}

TEST(CGraph, FailedCallLeavesTheGraphAsItWas) {
  const edgeq_tensor_type in = F32({4, 64});
  edgeq_graph* g = nullptr;
  ASSERT_EQ(edgeq_graph_create("g", &in, 1, &g), EDGEQ_OK);
  edgeq_value x0, qw, out;
  ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
  std::vector<float> w(8 * 32, 0.25f);
  const int64_t wshape[2] = {8, 32};  // k = 32 != 64
  ASSERT_EQ(edgeq_graph_quantize(g, "q8_0", w.data(), 2, wshape, &qw), EDGEQ_OK);
  const std::string before = ToString(g);
  EXPECT_EQ(edgeq_graph_qmatmul(g, "q8_0", x0, qw, &out), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("qmatmul"), std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(ToString(g), before);

  // Other refusals, each naming what was wrong.
  edgeq_value args[2] = {x0, 7};
  EXPECT_EQ(edgeq_graph_op(g, "add", args, 2, &out), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("value 7 is not a value of graph 'g'"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_graph_op(g, "conv2d", args, 1, &out), EDGEQ_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(edgeq_last_error()).find("unknown op 'conv2d' (known: add, attention"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_graph_op(g, "silu", args, 2, &out), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("takes 1 inputs, got 2"), std::string::npos);
  EXPECT_EQ(edgeq_graph_input(g, 1, &out), EDGEQ_ERROR_OUT_OF_RANGE);
  EXPECT_EQ(edgeq_graph_quantize(g, "q9_9", w.data(), 2, wshape, &out), EDGEQ_ERROR_NOT_FOUND);
  const int64_t ragged[2] = {8, 20};
  EXPECT_EQ(edgeq_graph_quantize(g, "q8_0", w.data(), 2, ragged, &out),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("quantize"), std::string::npos)
      << edgeq_last_error();
  const int64_t negative[2] = {8, -32};
  EXPECT_EQ(edgeq_graph_constant(g, w.data(), 2, negative, &out), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(edgeq_graph_constant(g, w.data(), 9, wshape, &out), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(edgeq_graph_quantized_constant(g, "q8_0", nullptr, 5, 2, wshape, &out),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("is 272 bytes, got 5"), std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(ToString(g), before);

  // Without outputs a graph does not load.
  edgeq_session* session = nullptr;
  ASSERT_EQ(edgeq_session_create(1, &session), EDGEQ_OK);
  edgeq_model* model = nullptr;
  EXPECT_NE(edgeq_session_load(session, g, &model), EDGEQ_OK);
  EXPECT_EQ(model, nullptr);

  // The graph still builds and runs after the refusals: x . W^T with a 64-wide W.
  std::vector<float> w64(8 * 64);
  for (size_t i = 0; i < w64.size(); ++i) w64[i] = 0.01f * static_cast<float>(i % 29) - 0.1f;
  const int64_t w64shape[2] = {8, 64};
  edgeq_value qw64, y;
  ASSERT_EQ(edgeq_graph_quantize(g, "q8_0", w64.data(), 2, w64shape, &qw64), EDGEQ_OK);
  EXPECT_EQ(qw64, 2);  // the failed calls made no values
  ASSERT_EQ(edgeq_graph_qmatmul(g, "q8_0", x0, qw64, &y), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_output(g, y), EDGEQ_OK);
  ASSERT_EQ(edgeq_session_load(session, g, &model), EDGEQ_OK) << edgeq_last_error();
  std::vector<float> x(4 * 64, 1.0f), out_y(4 * 8);
  const void* inputs[] = {x.data()};
  void* outputs[] = {out_y.data()};
  ASSERT_EQ(edgeq_model_execute(model, inputs, 1, outputs, 1), EDGEQ_OK);
  for (int j = 0; j < 8; ++j) {
    double ref = 0;
    for (int l = 0; l < 64; ++l) ref += w64[j * 64 + l];
    EXPECT_NEAR(out_y[j], ref, 0.02) << j;
  }
  edgeq_model_free(model);
  edgeq_session_free(session);
  edgeq_graph_free(g);
}

// Every op of the registry is listed and reachable by name: given min_inputs copies of an f32
// [2, 4] input, each call reaches the op (which builds it, or refuses the types or its missing
// attributes naming itself), never NOT_FOUND.
TEST(CGraph, EveryRegisteredOpIsListedAndReachable) {
  const std::vector<std::string> registry = edgeq::OpRegistry::Global().Names();
  std::vector<std::string> listed;
  for (size_t i = 0; i < edgeq_op_count(); ++i) {
    edgeq_op_info info;
    ASSERT_EQ(edgeq_op_get(i, &info), EDGEQ_OK);
    listed.push_back(info.name);
    if (std::string(info.name) == "rope") {
      EXPECT_STREQ(info.attributes, "mode,theta");
      EXPECT_EQ(info.min_inputs, 2);
      EXPECT_EQ(info.max_inputs, 3);
    }
  }
  EXPECT_EQ(listed, registry);
  for (const char* builtin : {"add",       "attention", "concat",
                              "div",       "gather",    "gelu",
                              "gelu_tanh", "matmul",    "matmul_transposed",
                              "mul",       "qmatmul",   "reshape",
                              "rms_norm",  "rope",      "silu",
                              "slice",     "softmax",   "sub",
                              "swiglu",    "tanh",      "transpose"}) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), builtin), listed.end()) << builtin;
  }
  edgeq_op_info info;
  EXPECT_EQ(edgeq_op_get(edgeq_op_count(), &info), EDGEQ_ERROR_OUT_OF_RANGE);

  const edgeq_tensor_type in = F32({2, 4});
  edgeq_graph* g = nullptr;
  ASSERT_EQ(edgeq_graph_create("all", &in, 1, &g), EDGEQ_OK);
  edgeq_value x0, out;
  ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
  for (size_t i = 0; i < edgeq_op_count(); ++i) {
    ASSERT_EQ(edgeq_op_get(i, &info), EDGEQ_OK);
    const std::vector<edgeq_value> args(std::max(1, info.min_inputs), x0);
    const edgeq_status s = edgeq_graph_op(g, info.name, args.data(), args.size(), &out);
    EXPECT_TRUE(s == EDGEQ_OK || s == EDGEQ_ERROR_INVALID_ARGUMENT) << info.name;
    if (s != EDGEQ_OK) {
      EXPECT_NE(std::string(edgeq_last_error()).find(info.name), std::string::npos)
          << edgeq_last_error();
    }
  }
  EXPECT_EQ(edgeq_graph_op(g, "silu", nullptr, 0, &out), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("op silu takes 1 inputs, got 0"),
            std::string::npos)
      << edgeq_last_error();
  edgeq_graph_free(g);
}

// Ops with attributes through the JSON form: x [2, 4] -> rms_norm(epsilon) -> reshape [4, 2]
// -> concat with itself on axis -1 -> gelu_tanh (half-precision table), against the C++ graph.
TEST(CGraph, OpsWithAttributesMatchCpp) {
  std::vector<float> x = {0.5f, -1.0f, 2.0f, 0.25f, -3.0f, 1.5f, 0.75f, -0.5f};
  std::vector<float> w = {1.0f, 0.5f, -1.0f, 2.0f};
  const edgeq_tensor_type in = F32({2, 4});
  edgeq_graph* g = nullptr;
  ASSERT_EQ(edgeq_graph_create("attrs", &in, 1, &g), EDGEQ_OK);
  edgeq_value x0, wv, n, r, c, y;
  const int64_t wshape[1] = {4};
  ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_constant(g, w.data(), 1, wshape, &wv), EDGEQ_OK);
  const edgeq_value nin[2] = {x0, wv};
  ASSERT_EQ(edgeq_graph_op_with_attributes(g, "rms_norm", nin, 2, "{\"epsilon\": 0.001}", &n),
            EDGEQ_OK)
      << edgeq_last_error();
  ASSERT_EQ(edgeq_graph_op_with_attributes(g, "reshape", &n, 1, "{\"shape\": [4, -1]}", &r),
            EDGEQ_OK)
      << edgeq_last_error();
  const edgeq_value cin[2] = {r, r};
  ASSERT_EQ(edgeq_graph_op_with_attributes(g, "concat", cin, 2, "{\"axis\": -1}", &c), EDGEQ_OK)
      << edgeq_last_error();
  ASSERT_EQ(
      edgeq_graph_op_with_attributes(g, "gelu_tanh", &c, 1, "{\"half_precision_table\": true}", &y),
      EDGEQ_OK)
      << edgeq_last_error();
  edgeq_tensor_type t;
  ASSERT_EQ(edgeq_graph_value_type(g, y, &t, nullptr), EDGEQ_OK);
  EXPECT_EQ(t.rank, 2);
  EXPECT_EQ(t.shape[0], 4);
  EXPECT_EQ(t.shape[1], 4);
  // Refusals: unknown key, wrong kind, not an object; the graph is unchanged.
  const std::string before = ToString(g);
  EXPECT_EQ(edgeq_graph_op_with_attributes(g, "rms_norm", nin, 2, "{\"eps\": 1}", &out_unused()),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("unknown attribute \"eps\" (expected epsilon)"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_graph_op_with_attributes(g, "reshape", &n, 1, "{\"shape\": 8}", &out_unused()),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("attribute shape must be a list of integers"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_graph_op_with_attributes(g, "rope", nin, 2, "[1]", &out_unused()),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("expected a JSON object"), std::string::npos);
  EXPECT_EQ(ToString(g), before);
  ASSERT_EQ(edgeq_graph_output(g, y), EDGEQ_OK);

  edgeq::Graph cpp("attrs", {edgeq::TensorType(edgeq::DType::kFloat32, {2, 4})});
  edgeq::Value cn = edgeq::ops::RmsNorm(
      cpp.Input(0), cpp.Constant(*edgeq::Tensor::FromValues<float>({4}, w)), 0.001f);
  edgeq::Value cr = edgeq::ops::Reshape(cn, {4, -1});
  cpp.Output(edgeq::ops::GeluTanh(edgeq::ops::Concat({cr, cr}, -1), true));
  ASSERT_TRUE(cpp.status().ok()) << cpp.status();
  edgeq::InferenceSession cpp_session;
  edgeq::CompiledGraph cpp_model = *cpp_session.Load(cpp);
  edgeq::Tensor want =
      *cpp_model.Execute({{"input0", *edgeq::Tensor::FromValues<float>({2, 4}, x)}})
           ->Get("output0");

  edgeq_session* session = nullptr;
  edgeq_model* model = nullptr;
  ASSERT_EQ(edgeq_session_create(1, &session), EDGEQ_OK);
  ASSERT_EQ(edgeq_session_load(session, g, &model), EDGEQ_OK) << edgeq_last_error();
  std::vector<float> got(16);
  const void* inputs[] = {x.data()};
  void* outputs[] = {got.data()};
  ASSERT_EQ(edgeq_model_execute(model, inputs, 1, outputs, 1), EDGEQ_OK) << edgeq_last_error();
  const auto want_values = *want.Values<float>();
  ASSERT_EQ(want_values.size(), got.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], want_values[i]) << i;
  EXPECT_NE(got[0], 0.0f);
  edgeq_model_free(model);
  edgeq_session_free(session);
  edgeq_graph_free(g);
}

TEST(CGraph, OpsByNameAndSeveralOutputs) {
  // out0 = silu(x . W^T + b), out1 = softmax(x . W^T), W and b f32 constants.
  const int m = 3, k = 5, n = 4;
  std::vector<float> x(m * k), w(n * k), b(n);
  for (int i = 0; i < m * k; ++i) x[i] = 0.1f * i - 0.7f;
  for (int i = 0; i < n * k; ++i) w[i] = 0.05f * (i % 7) - 0.1f;
  for (int i = 0; i < n; ++i) b[i] = 0.3f * i - 0.5f;
  const edgeq_tensor_type in = F32({m, k});
  edgeq_graph* g = nullptr;
  ASSERT_EQ(edgeq_graph_create("ops", &in, 1, &g), EDGEQ_OK);
  edgeq_value x0, wv, bv, mm, sum, act, sm;
  const int64_t wshape[2] = {n, k}, bshape[1] = {n};
  ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_constant(g, w.data(), 2, wshape, &wv), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_constant(g, b.data(), 1, bshape, &bv), EDGEQ_OK);
  edgeq_value a[2] = {x0, wv};
  ASSERT_EQ(edgeq_graph_op(g, "matmul_transposed", a, 2, &mm), EDGEQ_OK);
  edgeq_value c[2] = {mm, bv};
  ASSERT_EQ(edgeq_graph_op(g, "add", c, 2, &sum), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_op(g, "silu", &sum, 1, &act), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_op(g, "softmax", &mm, 1, &sm), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_output(g, act), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_output(g, sm), EDGEQ_OK);
  edgeq_session* session = nullptr;
  edgeq_model* model = nullptr;
  ASSERT_EQ(edgeq_session_create(1, &session), EDGEQ_OK);
  ASSERT_EQ(edgeq_session_load(session, g, &model), EDGEQ_OK) << edgeq_last_error();
  std::vector<float> y0(m * n), y1(m * n);
  const void* inputs[] = {x.data()};
  void* outputs[] = {y0.data(), y1.data()};
  ASSERT_EQ(edgeq_model_execute(model, inputs, 1, outputs, 2), EDGEQ_OK) << edgeq_last_error();
  for (int i = 0; i < m; ++i) {
    double row[n], total = 0;
    for (int j = 0; j < n; ++j) {
      double d = 0;
      for (int l = 0; l < k; ++l) d += double{x[i * k + l]} * w[j * k + l];
      row[j] = d;
      const double s = d + b[j];
      EXPECT_NEAR(y0[i * n + j], s / (1 + std::exp(-s)), 1e-5) << i << "," << j;
      total += std::exp(d);
    }
    for (int j = 0; j < n; ++j) EXPECT_NEAR(y1[i * n + j], std::exp(row[j]) / total, 1e-5);
  }
  edgeq_model_free(model);
  edgeq_session_free(session);
  edgeq_graph_free(g);
}

TEST(CGraph, QuantizedConstantEqualsQuantize) {
  std::vector<float> w(16 * 256);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.013f * i) * (1 + (i % 5));
  const int64_t wshape[2] = {16, 256};
  size_t bytes = 0;
  ASSERT_EQ(edgeq_quantized_size("q4_k", 16, 256, &bytes), EDGEQ_OK);
  std::vector<uint8_t> q(bytes);
  ASSERT_EQ(edgeq_quantize("q4_k", w.data(), 16, 256, q.data(), q.size()), EDGEQ_OK);
  const edgeq_tensor_type in = F32({2, 256});
  std::vector<float> x(2 * 256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::cos(0.07f * i);
  std::vector<float> ys[2];
  for (int variant = 0; variant < 2; ++variant) {
    edgeq_graph* g = nullptr;
    ASSERT_EQ(edgeq_graph_create("q", &in, 1, &g), EDGEQ_OK);
    edgeq_value x0, qw, y;
    ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
    if (variant == 0) {
      ASSERT_EQ(edgeq_graph_quantize(g, "q4_k", w.data(), 2, wshape, &qw), EDGEQ_OK);
    } else {
      ASSERT_EQ(edgeq_graph_quantized_constant(g, "q4_k", q.data(), q.size(), 2, wshape, &qw),
                EDGEQ_OK);
    }
    ASSERT_EQ(edgeq_graph_qmatmul(g, "q4_k", x0, qw, &y), EDGEQ_OK);
    ASSERT_EQ(edgeq_graph_output(g, y), EDGEQ_OK);
    edgeq_session* session = nullptr;
    edgeq_model* model = nullptr;
    ASSERT_EQ(edgeq_session_create(1, &session), EDGEQ_OK);
    ASSERT_EQ(edgeq_session_load(session, g, &model), EDGEQ_OK);
    ys[variant].resize(2 * 16);
    const void* inputs[] = {x.data()};
    void* outputs[] = {ys[variant].data()};
    ASSERT_EQ(edgeq_model_execute(model, inputs, 1, outputs, 1), EDGEQ_OK);
    edgeq_model_free(model);
    edgeq_session_free(session);
    edgeq_graph_free(g);
  }
  EXPECT_EQ(ys[0], ys[1]);
  // A qmatmul whose encoding is not the weight's is refused.
  edgeq_graph* g = nullptr;
  ASSERT_EQ(edgeq_graph_create("q", &in, 1, &g), EDGEQ_OK);
  edgeq_value x0, qw, y;
  ASSERT_EQ(edgeq_graph_input(g, 0, &x0), EDGEQ_OK);
  ASSERT_EQ(edgeq_graph_quantized_constant(g, "q4_k", q.data(), q.size(), 2, wshape, &qw),
            EDGEQ_OK);
  EXPECT_EQ(edgeq_graph_qmatmul(g, "q8_0", x0, qw, &y), EDGEQ_ERROR_INVALID_ARGUMENT);
  edgeq_graph_free(g);
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

TEST(CSave, RoundTripMaxAndGguf) {
  std::vector<float> w(4 * 64);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.21f * i);
  size_t bytes = 0;
  ASSERT_EQ(edgeq_quantized_size("q4_0", 4, 64, &bytes), EDGEQ_OK);
  std::vector<uint8_t> q(bytes);
  ASSERT_EQ(edgeq_quantize("q4_0", w.data(), 4, 64, q.data(), q.size()), EDGEQ_OK);
  const int32_t ids[3] = {7, -1, 40000};
  const int64_t wshape[2] = {4, 64}, ishape[1] = {3};

  edgeq_tensor_dict* dict = nullptr;
  ASSERT_EQ(edgeq_tensor_dict_create(&dict), EDGEQ_OK);
  ASSERT_EQ(edgeq_tensor_dict_set(dict, "w", "f32", nullptr, 2, wshape, w.data(), w.size() * 4),
            EDGEQ_OK);
  ASSERT_EQ(edgeq_tensor_dict_set(dict, "wq", "u8", "q4_0", 2, wshape, q.data(), q.size()),
            EDGEQ_OK);
  ASSERT_EQ(edgeq_tensor_dict_set(dict, "ids", "i32", "", 1, ishape, ids, sizeof(ids)), EDGEQ_OK);
  EXPECT_EQ(edgeq_tensor_dict_size(dict), 3u);

  // Refusals name the tensor and the expected value.
  EXPECT_EQ(edgeq_tensor_dict_set(dict, "bad", "f32", nullptr, 2, wshape, w.data(), 12),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("tensor 'bad': f32[4, 64] is 1024 bytes, got 12"),
            std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_tensor_dict_set(dict, "bad", "f32", "q4_0", 2, wshape, q.data(), q.size()),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("stored as u8, got dtype f32"), std::string::npos)
      << edgeq_last_error();
  EXPECT_EQ(edgeq_tensor_dict_set(dict, "bad", "f64", nullptr, 2, wshape, w.data(), 2048),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(edgeq_last_error()).find("f64"), std::string::npos);
  EXPECT_EQ(edgeq_tensor_dict_set(dict, "", "f32", nullptr, 2, wshape, w.data(), 1024),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(edgeq_tensor_dict_size(dict), 3u);

  for (const char* ext : {".max", ".gguf"}) {
    SCOPED_TRACE(ext);
    const std::string path = ::testing::TempDir() + "/c_save" + ext;
    std::remove(path.c_str());
    ASSERT_EQ(edgeq_save(dict, path.c_str(), 0), EDGEQ_OK) << edgeq_last_error();
    edgeq_checkpoint* c = nullptr;
    ASSERT_EQ(edgeq_checkpoint_open(path.c_str(), &c), EDGEQ_OK) << edgeq_last_error();
    ASSERT_EQ(edgeq_checkpoint_tensor_count(c), 3u);
    edgeq_tensor_info info;
    ASSERT_EQ(edgeq_checkpoint_tensor(c, "w", &info), EDGEQ_OK);
    EXPECT_STREQ(info.dtype, "f32");
    ASSERT_EQ(info.data_bytes, w.size() * 4);
    EXPECT_EQ(std::memcmp(info.data, w.data(), info.data_bytes), 0);
    ASSERT_EQ(edgeq_checkpoint_tensor(c, "wq", &info), EDGEQ_OK);
    EXPECT_STREQ(info.encoding, "q4_0");
    EXPECT_EQ(info.rank, 2);
    EXPECT_EQ(info.shape[1], 64);
    ASSERT_EQ(info.data_bytes, q.size());
    EXPECT_EQ(std::memcmp(info.data, q.data(), q.size()), 0);
    ASSERT_EQ(edgeq_checkpoint_tensor(c, "ids", &info), EDGEQ_OK);
    EXPECT_STREQ(info.dtype, "i32");
    ASSERT_EQ(info.data_bytes, sizeof(ids));
    EXPECT_EQ(std::memcmp(info.data, ids, sizeof(ids)), 0);
    edgeq_checkpoint_close(c);

    // An existing file is not overwritten unless asked.
    edgeq_tensor_dict* small = nullptr;
    ASSERT_EQ(edgeq_tensor_dict_create(&small), EDGEQ_OK);
    ASSERT_EQ(edgeq_tensor_dict_set(small, "ids", "i32", nullptr, 1, ishape, ids, sizeof(ids)),
              EDGEQ_OK);
    EXPECT_EQ(edgeq_save(small, path.c_str(), 0), EDGEQ_ERROR_FAILED_PRECONDITION);
    EXPECT_NE(std::string(edgeq_last_error()).find("exists; not overwritten"), std::string::npos)
        << edgeq_last_error();
    ASSERT_EQ(edgeq_checkpoint_open(path.c_str(), &c), EDGEQ_OK);
    EXPECT_EQ(edgeq_checkpoint_tensor_count(c), 3u);
    edgeq_checkpoint_close(c);
    ASSERT_EQ(edgeq_save(small, path.c_str(), EDGEQ_SAVE_OVERWRITE), EDGEQ_OK);
    ASSERT_EQ(edgeq_checkpoint_open(path.c_str(), &c), EDGEQ_OK);
    EXPECT_EQ(edgeq_checkpoint_tensor_count(c), 1u);
    edgeq_checkpoint_close(c);
    edgeq_tensor_dict_free(small);
  }
  // Unknown extension: refused, nothing written.
  const std::string odd = ::testing::TempDir() + "/c_save.npz";
  EXPECT_NE(edgeq_save(dict, odd.c_str(), 0), EDGEQ_OK);
  EXPECT_FALSE(Exists(odd));
  edgeq_tensor_dict_free(dict);
}

}  // namespace
