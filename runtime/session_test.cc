#include "runtime/session.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/custom_op.h"

namespace edgeq {
namespace {

using ::testing::HasSubstr;

TensorType F32(Shape s) { return TensorType(DType::kFloat32, std::move(s)); }

std::string Message(const absl::Status& s) { return std::string(s.message()); }

// The f32 values of output `name` (empty if missing).
std::vector<float> Floats(const TensorMap& out, const std::string& name) {
  absl::StatusOr<Tensor> t = out.Get(name);
  if (!t.ok()) return {};
  absl::StatusOr<absl::Span<const float>> v = t->Values<float>();
  if (!v.ok()) return {};
  return std::vector<float>(v->begin(), v->end());
}

TEST(SessionTest, SeedExample) {
  Graph graph("qmatmul", {F32({32, 64})});
  Tensor w = *Tensor::Full({32, 64}, 0.15f);
  Value qw = graph.Quantize(Q4_0Encoding(), w);
  graph.Output(ops::QMatmul(Q4_0Encoding(), graph.Input(0), qw));
  InferenceSession session({.num_threads = 2});
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor input = *Tensor::Full({32, 64}, 0.5f);
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", input}});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<Tensor> y = out->Get("output0");
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), Shape({32, 32}));
  // 0.15 in Q4_0: d = 0.15 / -8, code 0 -> exactly 0.15 (fp16-rounded d). 64 * 0.5 * 0.15 = 4.8.
  absl::Span<const float> values = *y->Values<float>();
  for (float v : values) EXPECT_NEAR(v, 4.8f, 0.01f);
}

// Two graphs over the same quantized constant (a decoder's one-row and block graphs, say)
// prepare the weights once; results are unchanged, and a graph over other bytes is not confused
// with them.
TEST(SessionTest, ModelsShareQuantizedWeightsPreparedOnce) {
  std::vector<float> wv(48 * 64);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::sin(0.37f * static_cast<float>(i));
  const Tensor w = *Tensor::FromValues<float>({48, 64}, wv);
  const Tensor qw = *Q4_0Encoding().Quantize(w);
  InferenceSession session;
  auto load = [&](int64_t rows, const Tensor& weights) {
    Graph g("g", {F32({rows, 64})});
    g.Output(ops::QMatmul(Q4_0Encoding(), g.Input(0), g.Constant(weights)));
    return session.Load(g);
  };
  EXPECT_EQ(session.prepared_weight_bytes(), 0u);
  absl::StatusOr<CompiledGraph> one = load(1, qw);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(session.prepared_weight_reuses(), 0);
  // The repacked copy's bytes, as the kernel alone holds them (counted once when shared).
  absl::StatusOr<std::unique_ptr<kernels::QMatmulKernel>> alone = kernels::QMatmulKernel::Create(
      "q4_0", 48, 64,
      absl::MakeConstSpan(static_cast<const uint8_t*>(qw.raw_data()), qw.size_bytes()));
  ASSERT_TRUE(alone.ok()) << alone.status();
  const uint64_t copy = (*alone)->copy_bytes();
  EXPECT_EQ(session.prepared_weight_bytes(), copy);
  absl::StatusOr<CompiledGraph> block = load(8, qw);
  ASSERT_TRUE(block.ok()) << block.status();
  EXPECT_EQ(session.prepared_weight_reuses(), 1);
  EXPECT_EQ(session.prepared_weight_bytes(), copy);

  // Same values in another buffer: prepared again.
  const Tensor qw_copy = *qw.Clone();
  absl::StatusOr<CompiledGraph> other = load(1, qw_copy);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(session.prepared_weight_reuses(), 1);
  EXPECT_EQ(session.prepared_weight_bytes(), 2 * copy);

  std::vector<float> xv(8 * 64);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::cos(0.11f * static_cast<float>(i));
  const Tensor x8 = *Tensor::FromValues<float>({8, 64}, xv);
  const Tensor x1 = *Tensor::FromValues<float>({1, 64}, absl::MakeConstSpan(xv).first(64));
  const std::vector<float> y8 = Floats(*block->Execute({{"input0", x8}}), "output0");
  const std::vector<float> y1 = Floats(*one->Execute({{"input0", x1}}), "output0");
  const std::vector<float> y1_other = Floats(*other->Execute({{"input0", x1}}), "output0");
  ASSERT_EQ(y8.size(), 8u * 48);
  ASSERT_EQ(y1.size(), 48u);
  for (int j = 0; j < 48; ++j) {
    EXPECT_EQ(y1[j], y1_other[j]) << j;
    EXPECT_NEAR(y1[j], y8[j], 1e-4f * (1 + std::fabs(y1[j]))) << j;
  }

  // Once every CompiledGraph using them is gone, nothing is reused (the buffer may be gone too).
  *one = CompiledGraph(std::move(*other));
  block = absl::UnknownError("released");
  absl::StatusOr<CompiledGraph> again = load(8, qw);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(session.prepared_weight_reuses(), 1);
}

// f32 weights through XNNPACK: graphs of one session over the same constant share one packed
// operator (one packed copy), and give the same results as separate operators.
TEST(SessionTest, ModelsShareXnnpackPackedWeights) {
  InferenceSession session;
  if (!session.xnnpack_enabled()) GTEST_SKIP() << "XNNPACK is unavailable here";
  std::vector<float> wv(48 * 64);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::sin(0.37f * static_cast<float>(i));
  const Tensor w = *Tensor::FromValues<float>({48, 64}, wv);
  auto load = [&](InferenceSession& s, int64_t rows) {
    Graph g("g", {F32({rows, 64})});
    g.Output(ops::MatmulTransposed(g.Input(0), g.Constant(w)));
    return s.Load(g);
  };
  absl::StatusOr<CompiledGraph> one = load(session, 1);
  absl::StatusOr<CompiledGraph> block = load(session, 8);
  ASSERT_TRUE(one.ok() && block.ok());
  EXPECT_EQ(session.prepared_weight_reuses(), 1);
  EXPECT_TRUE(absl::StrContains(block->DebugString(), "matmul_f32_xnnpack"))
      << block->DebugString();
  InferenceSession alone;
  absl::StatusOr<CompiledGraph> separate = load(alone, 8);
  ASSERT_TRUE(separate.ok());
  std::vector<float> xv(8 * 64);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::cos(0.11f * static_cast<float>(i));
  const Tensor x8 = *Tensor::FromValues<float>({8, 64}, xv);
  const Tensor x1 = *Tensor::FromValues<float>({1, 64}, absl::MakeConstSpan(xv).first(64));
  const std::vector<float> y8 = Floats(*block->Execute({{"input0", x8}}), "output0");
  const std::vector<float> y1 = Floats(*one->Execute({{"input0", x1}}), "output0");
  const std::vector<float> y8_alone = Floats(*separate->Execute({{"input0", x8}}), "output0");
  ASSERT_EQ(y8.size(), 8u * 48);
  EXPECT_EQ(y8, y8_alone);
  for (int j = 0; j < 48; ++j) EXPECT_NEAR(y1[j], y8[j], 1e-5f * (1 + std::fabs(y1[j]))) << j;
}

TEST(SessionTest, XnnpackStatusIsReported) {
  InferenceSession session;
  for (const std::string& line : session.log()) fprintf(stderr, "session log: %s\n", line.c_str());
  if (session.xnnpack_enabled()) {
    EXPECT_TRUE(session.log().empty());
  } else {
    ASSERT_EQ(session.log().size(), 1u);
    EXPECT_THAT(session.log()[0], HasSubstr("f32 matmul uses the portable loop"));
  }
#if defined(__x86_64__)
  EXPECT_TRUE(session.xnnpack_enabled());
#endif
  InferenceSession off({.use_xnnpack = false});
  EXPECT_FALSE(off.xnnpack_enabled());
  ASSERT_EQ(off.log().size(), 1u);
  EXPECT_THAT(off.log()[0], HasSubstr("XNNPACK disabled by SessionOptions"));
}

TEST(SessionTest, NamedInputsAndOutputs) {
  Graph graph("g", {});
  graph.AddInput("a", F32({3}));
  graph.AddInput("b", F32({3}));
  graph.Output("sum", ops::Add(graph.Input("a"), graph.Input("b")));
  graph.Output("a_copy", graph.Input("a"));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor a = *Tensor::Full({3}, 1.5f);
  Tensor b = *Tensor::Full({3}, 2.0f);
  absl::StatusOr<TensorMap> r = model->Execute({{"b", b}, {"a", a}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(*r->Get("sum")->Values<float>(), ::testing::ElementsAre(3.5f, 3.5f, 3.5f));
  EXPECT_THAT(*r->Get("a_copy")->Values<float>(), ::testing::ElementsAre(1.5f, 1.5f, 1.5f));
  r = model->Execute({{"input0", a}, {"b", b}});
  EXPECT_THAT(Message(r.status()), HasSubstr("no input named \"input0\" (inputs: a, b)"));
}

TEST(SessionTest, InputErrorsAreClear) {
  Graph graph("g", {F32({2, 3}), F32({3})});
  graph.Output(ops::Add(graph.Input(0), graph.Input(1)));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor a = *Tensor::Full({2, 3}, 1.0f);
  Tensor b = *Tensor::Full({3}, 2.0f);
  Tensor wrong_shape = *Tensor::Full({4}, 2.0f);
  Tensor wrong_dtype = *Tensor::Create(DType::kInt32, {3});

  absl::StatusOr<TensorMap> r = model->Execute({{"input0", a}});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(r.status()), HasSubstr("1 inputs given, but graph \"g\" takes 2"));
  r = model->Execute({{"input0", a}, {"inptu1", b}});
  EXPECT_THAT(Message(r.status()), HasSubstr("no input named \"inptu1\" (inputs: input0, input1)"));
  r = model->Execute({{"input0", a}, {"input0", a}});
  EXPECT_THAT(Message(r.status()), HasSubstr("\"input0\" is given twice"));
  r = model->Execute({{"input0", a}, {"input1", wrong_shape}});
  EXPECT_THAT(Message(r.status()), HasSubstr("input \"input1\" must be f32[3], got f32[4]"));
  r = model->Execute({{"input1", wrong_dtype}, {"input0", a}});
  EXPECT_THAT(Message(r.status()), HasSubstr("input \"input1\" must be f32[3], got i32[3]"));

  r = model->Execute({{"input1", b}, {"input0", a}});
  ASSERT_TRUE(r.ok()) << r.status();
  for (float v : Floats(*r, "output0")) EXPECT_EQ(v, 3.0f);
  EXPECT_THAT(Message(r->Get("output1").status()), HasSubstr("no output named \"output1\""));
}

TEST(SessionTest, LoadFailsWithGraphStatus) {
  Graph graph("g", {F32({2, 3})});
  graph.Output(ops::Matmul(graph.Input(0), graph.Input(0)));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  EXPECT_EQ(model.status(), graph.status());
  EXPECT_THAT(Message(model.status()), HasSubstr("matmul(f32[2, 3], f32[2, 3])"));

  Graph empty("empty", {F32({1})});
  EXPECT_THAT(Message(session.Load(empty).status()), HasSubstr("has no outputs"));
}

TEST(SessionTest, UnregisteredCustomOpIsNamedAtLoad) {
  Graph graph("g", {F32({4})});
  graph.Output(ops::Custom("no_such_op", {graph.Input(0)}, {F32({4})}));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  EXPECT_EQ(model.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(model.status()), HasSubstr("custom op \"no_such_op\" is not registered"));
}

TEST(SessionTest, CustomOpRunsAndShapeFunctionIsChecked) {
  CustomOpDef def;
  def.name = "test_affine";
  def.shape_function =
      [](absl::Span<const ValueType> in) -> absl::StatusOr<std::vector<TensorType>> {
    if (in.size() != 1) return absl::InvalidArgumentError("needs one input");
    return std::vector<TensorType>{in[0].type};
  };
  def.kernel = [](absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                  pthreadpool_t) -> absl::Status {
    const int64_t n = in[0].shape().num_elements();
    for (int64_t i = 0; i < n; ++i) {
      out[0].mutable_values<float>()[i] = 2.0f * in[0].values<float>()[i] + 1.0f;
    }
    return absl::OkStatus();
  };
  ASSERT_TRUE(CustomOpRegistry::Global().Register(def).ok());
  EXPECT_EQ(CustomOpRegistry::Global().Register(def).code(), absl::StatusCode::kAlreadyExists);

  Graph graph("g", {F32({3})});
  Value y = ops::Custom("test_affine", {graph.Input(0)}, {F32({3})})[0];
  graph.Output(ops::Add(y, graph.Input(0)));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor x = *Tensor::FromValues<float>({3}, {1.0f, 2.0f, -1.0f});
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats(*out, "output0"), ::testing::ElementsAre(4.0f, 7.0f, -2.0f));

  Graph bad("bad", {F32({3})});
  bad.Output(ops::Custom("test_affine", {bad.Input(0)}, {F32({4})}));
  EXPECT_THAT(Message(session.Load(bad).status()),
              HasSubstr("declares outputs (f32[4]) but its shape function gives (f32[3])"));
}

TEST(SessionTest, OutputsThatAreInputsOrConstants) {
  Graph graph("g", {F32({2})});
  graph.Output(graph.Input(0));
  graph.Output(graph.Constant(*Tensor::FromValues<float>({2}, {5.0f, 6.0f})));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor x = *Tensor::FromValues<float>({2}, {1.0f, 2.0f});
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Floats(*out, "output0"), ::testing::ElementsAre(1.0f, 2.0f));
  EXPECT_THAT(Floats(*out, "output1"), ::testing::ElementsAre(5.0f, 6.0f));
}

TEST(SessionTest, ArenaReusesBuffers) {
  Graph graph("chain", {F32({256})});
  Value v = graph.Input(0);
  for (int i = 0; i < 10; ++i) v = ops::Add(v, v);
  graph.Output(v);
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok());
  // The first add has a buffer; each later one writes over its input (read by nothing after it).
  EXPECT_EQ(model->unplanned_bytes(), 1u * 1024);
  EXPECT_EQ(model->arena_bytes(), 1u * 1024);
  Tensor x = *Tensor::Full({256}, 1.0f);
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}});
  ASSERT_TRUE(out.ok());
  for (float f : Floats(*out, "output0")) EXPECT_EQ(f, 1024.0f);
}

// A reshape of a computed value is a view: no kernel and no buffer of its own, the same results
// (also as an output); a reshape of a graph input still copies it into the arena.
TEST(SessionTest, ReshapeOfAComputedValueIsAView) {
  Graph graph("views", {F32({4, 64})});
  const Value a = ops::Add(graph.Input(0), graph.Input(0));  // [4, 64]: 1 KiB
  const Value b = ops::Add(ops::Reshape(a, {64, 4}), ops::Reshape(a, {64, 4}));
  graph.Output("four", ops::Reshape(b, {256}));
  graph.Output("input", ops::Reshape(graph.Input(0), {256}));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  // Kernels: a, b and the input's copy; buffers a (steps 0-1), b (1-end), the copy (2-end).
  EXPECT_TRUE(absl::StrContains(model->DebugString(), "3 kernels")) << model->DebugString();
  EXPECT_EQ(model->unplanned_bytes(), 3u * 1024);
  EXPECT_EQ(model->arena_bytes(), 2u * 1024);
  std::vector<float> xv(256);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.5f * static_cast<float>(i);
  const Tensor x = *Tensor::FromValues<float>({4, 64}, xv);
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> four = Floats(*out, "four"), in = Floats(*out, "input");
  ASSERT_EQ(four.size(), 256u);
  ASSERT_EQ(in.size(), 256u);
  for (size_t i = 0; i < xv.size(); ++i) {
    EXPECT_EQ(four[i], 4 * xv[i]) << i;
    EXPECT_EQ(in[i], xv[i]) << i;
  }
  EXPECT_TRUE(out->Get("four")->shape() == Shape({256}));
}

// Row chunks of x [8, 64] (2 KiB): each chunk's rows (a slice: a view of x's bytes) plus 3 times
// them, the sum written over the rows (x is not read afterwards), the chunks' concatenation a
// view of x: buffers x and the two products (1 KiB each, one at a time), no kernel for the slices
// or the concatenation, and the values of the one-piece graph.
TEST(SessionTest, RowChunksAddInPlaceIntoViews) {
  Graph graph("rows", {F32({8, 64})});
  const Value x = ops::Add(graph.Input(0), graph.Input(0));
  const Value three = graph.Constant(*Tensor::Full({1}, 3.0f));
  std::vector<Value> parts;
  for (int64_t r0 : {0, 4}) {
    const Value rows = ops::Slice(x, {r0, 0}, {r0 + 4, 64});
    parts.push_back(ops::Add(rows, ops::Mul(rows, three)));
  }
  graph.Output(ops::Concat(parts, 0));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_TRUE(absl::StrContains(model->DebugString(), "5 kernels")) << model->DebugString();
  EXPECT_EQ(model->unplanned_bytes(), 4096u);  // was 10 KiB: slices, sums, concatenation
  EXPECT_EQ(model->arena_bytes(), 3072u);      // was 5 KiB
  std::vector<float> xv(512);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = 0.25f * static_cast<float>(i) - 7.0f;
  absl::StatusOr<TensorMap> out =
      model->Execute({{"input0", *Tensor::FromValues<float>({8, 64}, xv)}});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<float> y = Floats(*out, "output0");
  ASSERT_EQ(y.size(), 512u);
  for (size_t i = 0; i < xv.size(); ++i) {
    const float x2 = xv[i] + xv[i];
    EXPECT_EQ(y[i], x2 + x2 * 3.0f) << i;
  }
}

// Chain graph: x [n] doubled `steps` times (each step after the first over the previous one's
// buffer: one buffer).
Graph DoublingChain(const std::string& name, int64_t n, int steps) {
  Graph graph(name, {F32({n})});
  Value v = graph.Input(0);
  for (int i = 0; i < steps; ++i) v = ops::Add(v, v);
  graph.Output(v);
  return graph;
}

// Issue 29: two graphs in one ActivationArena hold the larger plan, not the sum, and give the
// results they give alone, also when the larger one is loaded after the smaller one ran (the
// arena moves; the smaller one re-points its buffers at its next Execute).
TEST(SessionTest, SharedArenaHoldsTheLargestPlanAndResultsAreUnchanged) {
  const Graph small = DoublingChain("small", 256, 10);  // plan 1 KiB
  const Graph large = DoublingChain("large", 8192, 4);  // plan 32 KiB
  InferenceSession session;
  auto arena = std::make_shared<ActivationArena>();
  absl::StatusOr<CompiledGraph> a = session.Load(small, arena);
  ASSERT_TRUE(a.ok()) << a.status();
  const Tensor xs = *Tensor::Full({256}, 1.0f), xl = *Tensor::Full({8192}, 0.5f);
  absl::StatusOr<TensorMap> out = a->Execute({{"input0", xs}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Floats(*out, "output0"), ::testing::Each(1024.0f));
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  EXPECT_EQ(arena->activation_bytes(), std::max<size_t>(page, 1024));

  absl::StatusOr<CompiledGraph> b = session.Load(large, arena);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->arena_bytes(), 32768u);
  EXPECT_EQ(arena->activation_bytes(), 32768u);  // the larger plan (page multiple), not a sum
  for (int round = 0; round < 2; ++round) {
    out = a->Execute({{"input0", xs}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(Floats(*out, "output0"), ::testing::Each(1024.0f));
    out = b->Execute({{"input0", xl}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_THAT(Floats(*out, "output0"), ::testing::Each(8.0f));
  }
  // Alone, each gives the same values and holds its own plan.
  absl::StatusOr<CompiledGraph> alone = session.Load(large);
  ASSERT_TRUE(alone.ok());
  out = alone->Execute({{"input0", xl}});
  ASSERT_TRUE(out.ok());
  EXPECT_THAT(Floats(*out, "output0"), ::testing::Each(8.0f));
}

// The block graph of attention with store_kv: q, k_new, v_new [t, 1, 32] inputs, caches
// [1, ctx, 32] inputs (or constants if `constant_caches`), positions [t].
Graph StoreKvGraph(int64_t t, int64_t ctx, bool constant_caches) {
  Graph g("store_kv", {});
  const Value q = g.AddInput("q", F32({t, 1, 32}));
  const Value k = g.AddInput("k", F32({t, 1, 32}));
  const Value v = g.AddInput("v", F32({t, 1, 32}));
  const Value pos = g.AddInput("positions", TensorType(DType::kInt32, {t}));
  Value kc, vc;
  if (constant_caches) {
    kc = g.Constant(*Tensor::Full({1, ctx, 32}, 0.0f));
    vc = g.Constant(*Tensor::Full({1, ctx, 32}, 0.0f));
  } else {
    kc = g.AddInput("k_cache", F32({1, ctx, 32}));
    vc = g.AddInput("v_cache", F32({1, ctx, 32}));
  }
  g.Output(ops::Attention(q, kc, vc, k, v, pos, 1.0f, 0, /*store_kv=*/true));
  return g;
}

// Issue 29: attention with store_kv writes the block's K/V rows into the caches (rows past the
// context are not written); caches must be graph inputs given as writable tensors.
TEST(SessionTest, AttentionStoresKvRowsInPlace) {
  const int64_t t = 3, ctx = 4;
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(StoreKvGraph(t, ctx, false));
  ASSERT_TRUE(model.ok()) << model.status();
  Tensor q = *Tensor::Full({t, 1, 32}, 0.1f);
  std::vector<float> kv(t * 32);
  for (size_t i = 0; i < kv.size(); ++i) kv[i] = static_cast<float>(i);
  Tensor k = *Tensor::FromValues<float>({t, 1, 32}, kv), v = k;
  Tensor positions = *Tensor::FromValues<int32_t>({t}, {2, 3, 4});  // row 2 is past the cache
  Tensor kc = *Tensor::Full({1, ctx, 32}, -1.0f), vc = *Tensor::Full({1, ctx, 32}, -2.0f);
  absl::StatusOr<TensorMap> out = model->Execute(
      {{"q", q}, {"k", k}, {"v", v}, {"positions", positions}, {"k_cache", kc}, {"v_cache", vc}});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::Span<const float> kcv = *kc.Values<float>(), vcv = *vc.Values<float>();
  for (int64_t p = 0; p < ctx; ++p) {
    for (int64_t d = 0; d < 32; ++d) {
      const float want_k = p < 2 ? -1.0f : kv[(p - 2) * 32 + d];
      const float want_v = p < 2 ? -2.0f : kv[(p - 2) * 32 + d];
      EXPECT_EQ(kcv[p * 32 + d], want_k) << "k row " << p << " dim " << d;
      EXPECT_EQ(vcv[p * 32 + d], want_v) << "v row " << p << " dim " << d;
    }
  }
  // A read-only cache tensor is refused, naming the input.
  auto keep = std::make_shared<Tensor>(kc);
  Tensor read_only = *Tensor::View(DType::kFloat32, kc.shape(), kc.raw_data(), kc.size_bytes(),
                                   keep, /*writable=*/false);
  out = model->Execute({{"q", q},
                        {"k", k},
                        {"v", v},
                        {"positions", positions},
                        {"k_cache", read_only},
                        {"v_cache", vc}});
  ASSERT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(out.status()),
              HasSubstr("input \"k_cache\" is written in place by the graph and must be a "
                        "writable tensor"));
  // Caches that are constants cannot be written: Load refuses the graph.
  absl::StatusOr<CompiledGraph> constant = session.Load(StoreKvGraph(t, ctx, true));
  ASSERT_EQ(constant.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(constant.status()), HasSubstr("attention writes its input 1 (%"));
  EXPECT_THAT(Message(constant.status()), HasSubstr("it must be a graph input"));
}

// Issue 27 F5: asking for more threads than the address space holds hung forever in
// pthreadpool_create (it ignores a failed pthread_create and waits for the missing worker).
// In a child process limited to its current address space + 64 MiB, 512 threads (each with a
// stack of at least 2 MiB) cannot be created: Load returns ResourceExhausted naming the count.
// (The child's alarm only turns the old hang into a failure instead of the test's timeout.)
TEST(SessionTest, ThreadsThatCannotBeCreatedAreAnErrorNotAHang) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ASan and TSan map terabytes of shadow memory: RLIMIT_AS cannot bound threads";
#endif
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(40);  // below the test timeout (small: 60 s)
    FILE* f = std::fopen("/proc/self/status", "r");
    long vm_kb = -1;
    char line[256];
    while (f != nullptr && std::fgets(line, sizeof(line), f) != nullptr) {
      if (std::sscanf(line, "VmSize: %ld kB", &vm_kb) == 1) break;
    }
    if (f != nullptr) std::fclose(f);
    if (vm_kb <= 0) _exit(10);
    const rlim_t limit = static_cast<rlim_t>(vm_kb + 64 * 1024) * 1024;
    struct rlimit rl = {limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(11);
    // qemu-user accepts RLIMIT_AS but does not apply it: 128 MiB must not be mappable now.
    void* probe = mmap(nullptr, size_t{128} << 20, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe != MAP_FAILED) _exit(20);
    Graph graph("g", {F32({4})});
    graph.Output(ops::Add(graph.Input(0), graph.Input(0)));
    InferenceSession session({.num_threads = 512});
    absl::StatusOr<CompiledGraph> model = session.Load(graph);
    if (model.ok()) _exit(12);
    if (model.status().code() != absl::StatusCode::kResourceExhausted) _exit(13);
    if (!absl::StrContains(model.status().message(),
                           "SessionOptions.num_threads = 512: cannot create 511 worker threads")) {
      _exit(14);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the child was killed by signal " << WTERMSIG(status);
  if (WEXITSTATUS(status) == 20) GTEST_SKIP() << "RLIMIT_AS is not enforced here (qemu-user)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: no VmSize, 11: setrlimit failed, 12: Load succeeded, "
                                       "13: another status code, 14: another message";
}

TEST(SessionTest, ThreadCountAboveTheCeilingIsRefused) {
  Graph graph("g", {F32({4})});
  graph.Output(ops::Add(graph.Input(0), graph.Input(0)));
  InferenceSession session({.num_threads = kMaxSessionThreads + 1});
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(model.status()), "SessionOptions.num_threads must be in [1, 1024], got 1025");
  InferenceSession two({.num_threads = 2});
  EXPECT_TRUE(two.Load(graph).ok());
}

// SessionOptions::on_constant_row_read: a gather from a constant table reports each row it read
// (its address and bytes), in order, repeats included; a computed table reports nothing.
TEST(SessionTest, GatherReportsTheConstantRowsItRead) {
  std::vector<float> values(10 * 4);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  const Tensor table = *Tensor::FromValues<float>({10, 4}, values);
  std::vector<std::pair<ptrdiff_t, size_t>> rows;
  SessionOptions options;
  options.on_constant_row_read = [&](const void* data, size_t bytes) {
    rows.emplace_back(static_cast<const char*>(data) - static_cast<const char*>(table.raw_data()),
                      bytes);
  };
  InferenceSession session(options);
  Graph graph("gather", {TensorType(DType::kInt32, {3}), F32({10, 4})});
  graph.Output(ops::Gather(graph.Constant(table), graph.Input(0)));
  graph.Output(ops::Gather(graph.Input(1), graph.Input(0)));
  absl::StatusOr<CompiledGraph> g = session.Load(graph);
  ASSERT_TRUE(g.ok()) << g.status();
  const Tensor idx = *Tensor::FromValues<int32_t>({3}, std::vector<int32_t>{3, 7, 3});
  absl::StatusOr<TensorMap> out = g->Execute({{"input0", idx}, {"input1", table}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats(*out, "output0")[4], 28.0f);
  const std::vector<std::pair<ptrdiff_t, size_t>> want = {{48, 16}, {112, 16}, {48, 16}};
  EXPECT_EQ(rows, want);
}

}  // namespace
}  // namespace edgeq
