// Execute performs no heap allocation after the first call: this binary replaces the global
// operator new with a counting one. Also: two CompiledGraphs on two threads give the results of
// one.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/custom_op.h"
#include "runtime/session.h"

namespace {
std::atomic<int64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == nullptr) std::abort();  // Out of memory in a test binary.
  return p;
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace edgeq {
namespace {

TensorType F32(Shape s) { return TensorType(DType::kFloat32, std::move(s)); }

Tensor Ramp(const Shape& shape, float scale) {
  std::vector<float> v(shape.num_elements());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * static_cast<float>((i * 37) % 101) / 101.0f - 0.3f;
  return *Tensor::FromValues<float>(shape, v);
}

// A small decoder-like block touching every kernel kind.
Graph BuildBlock() {
  static const bool registered = [] {
    CustomOpDef def;
    def.name = "alloc_test_negate";
    def.shape_function =
        [](absl::Span<const ValueType> in) -> absl::StatusOr<std::vector<TensorType>> {
      return std::vector<TensorType>{in[0].type};
    };
    def.kernel = [](absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                    pthreadpool_t) {
      for (int64_t i = 0; i < in[0].shape().num_elements(); ++i) {
        out[0].mutable_values<float>()[i] = -in[0].values<float>()[i];
      }
      return absl::OkStatus();
    };
    return CustomOpRegistry::Global().Register(std::move(def)).ok();
  }();
  (void)registered;
  Graph g("block", {F32({4, 64}), TensorType(DType::kInt32, {4})});
  Value x = g.Input(0);
  Value pos = g.Input(1);
  Value h = ops::RmsNorm(x, g.Constant(Ramp({64}, 1.0f)));
  Value q = ops::QMatmul(Q4_0Encoding(), h, g.Quantize(Q4_0Encoding(), Ramp({64, 64}, 0.5f)));
  Value k = ops::QMatmul(Q6_KEncoding(), ops::Concat({h, h, h, h}, 1),
                         g.Quantize(Q6_KEncoding(), Ramp({64, 256}, 0.2f)));
  q = ops::Rope(ops::Reshape(q, {4, 8, 8}), pos);
  k = ops::Rope(ops::Reshape(k, {4, 8, 8}), pos);
  Value att = ops::Softmax(ops::MatmulTransposed(ops::Transpose(q, {1, 0, 2}),
                                                 ops::Transpose(k, {1, 0, 2})));  // [8, 4, 4]
  Value v = ops::Matmul(att, ops::Transpose(k, {1, 0, 2}));                       // [8, 4, 8]
  Value o = ops::Reshape(ops::Transpose(v, {1, 0, 2}), {4, 64});
  Value f = ops::MatmulTransposed(o, g.Constant(Ramp({96, 64}, 0.1f)));  // XNNPACK
  Value gate = ops::Mul(ops::Silu(f), ops::Gelu(f));
  Value down = ops::Matmul(gate, g.Constant(Ramp({96, 64}, 0.1f)));
  Value emb = ops::Gather(g.Quantize(Q8_0Encoding(), Ramp({16, 64}, 1.0f)), pos);
  Value y = ops::Add(ops::Add(x, down), ops::Div(emb, g.Constant(*Tensor::Full({1}, 4.0f))));
  y = ops::Sub(ops::Custom("alloc_test_negate", {y}, {F32({4, 64})})[0],
               ops::Slice(x, {0, 0}, {1, 64}));
  g.Output(y);
  g.Output(att);
  return g;
}

TEST(ExecuteAllocTest, NoAllocationAfterFirstCall) {
  for (int threads : {1, 2}) {
    Graph g = BuildBlock();
    ASSERT_TRUE(g.status().ok()) << g.status();
    InferenceSession session({.num_threads = threads});
    absl::StatusOr<CompiledGraph> model = session.Load(g);
    ASSERT_TRUE(model.ok()) << model.status();
    Tensor x = Ramp({4, 64}, 2.0f);
    Tensor pos = *Tensor::FromValues<int32_t>({4}, {0, 1, 2, 3});
    const std::vector<NamedTensor> inputs = {{"input0", x}, {"input1", pos}};
    ASSERT_TRUE(model->Execute(inputs).ok());
    const int64_t before = g_allocations.load();
    for (int i = 0; i < 5; ++i) {
      absl::StatusOr<TensorMap> out = model->Execute(inputs);
      ASSERT_TRUE(out.ok()) << out.status();
    }
    EXPECT_EQ(g_allocations.load() - before, 0) << "threads=" << threads;
  }
}

TEST(ExecuteAllocTest, CountingWorks) {
  const int64_t before = g_allocations.load();
  // Through a volatile pointer so that the compiler cannot elide the new/delete pair.
  std::vector<int>* volatile p = new std::vector<int>(3);
  delete p;
  EXPECT_GE(g_allocations.load() - before, 2);
}

TEST(ConcurrencyTest, TwoModelsOnTwoThreadsMatchOneThread) {
  Graph g = BuildBlock();
  Tensor x = Ramp({4, 64}, 2.0f);
  Tensor pos = *Tensor::FromValues<int32_t>({4}, {3, 1, 4, 1});
  const std::vector<NamedTensor> inputs = {{"input0", x}, {"input1", pos}};

  InferenceSession single;
  absl::StatusOr<CompiledGraph> reference_model = single.Load(g);
  ASSERT_TRUE(reference_model.ok());
  absl::StatusOr<TensorMap> ref = reference_model->Execute(inputs);
  ASSERT_TRUE(ref.ok());
  const Tensor want = *ref->Get("output0")->Clone();

  InferenceSession session({.num_threads = 2});
  absl::StatusOr<CompiledGraph> a = session.Load(g);
  absl::StatusOr<CompiledGraph> b = session.Load(g);
  ASSERT_TRUE(a.ok() && b.ok());
  std::atomic<int> mismatches{0};
  auto run = [&](CompiledGraph* model) {
    for (int i = 0; i < 50; ++i) {
      absl::StatusOr<TensorMap> out = model->Execute(inputs);
      if (!out.ok() || out->Get("output0")->bytes() != want.bytes()) ++mismatches;
    }
  };
  std::thread t1(run, &*a);
  std::thread t2(run, &*b);
  t1.join();
  t2.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace edgeq
