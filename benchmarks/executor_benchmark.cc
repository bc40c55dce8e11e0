// Executor overhead: a graph of 1000 tiny adds (4 floats each), Execute vs the same adds as a
// plain C++ loop over the same buffers (the baseline, measured in the same run).
//   bazel run //benchmarks:executor_benchmark
// Per-node overhead = (Execute time - baseline time) / 1000; counters report both per node.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace edgeq {
namespace {

constexpr int kNodes = 1000;
constexpr int64_t kWidth = 4;

void BM_Execute1000TinyAdds(benchmark::State& state) {
  Graph graph("adds", {TensorType(DType::kFloat32, {kWidth})});
  Value one = graph.Constant(*Tensor::Full({kWidth}, 1.0f));
  Value v = graph.Input(0);
  for (int i = 0; i < kNodes; ++i) v = ops::Add(v, one);
  graph.Output(v);
  InferenceSession session({.num_threads = static_cast<int>(state.range(0))});
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  if (!model.ok()) {
    state.SkipWithError(model.status().ToString().c_str());
    return;
  }
  Tensor x = *Tensor::Full({kWidth}, 0.0f);
  const std::vector<NamedTensor> inputs = {{"input0", x}};
  for (auto _ : state) {
    absl::StatusOr<TensorMap> out = model->Execute(inputs);
    benchmark::DoNotOptimize(out);
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kNodes,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Execute1000TinyAdds)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// Baseline: the same 1000 adds, hand-written, over buffers of the same size.
void BM_Baseline1000TinyAddsLoop(benchmark::State& state) {
  std::vector<float> buffers(2 * kWidth, 0.0f);
  const float one[kWidth] = {1.0f, 1.0f, 1.0f, 1.0f};
  for (auto _ : state) {
    const float* in = buffers.data();
    for (int i = 0; i < kNodes; ++i) {
      float* out = buffers.data() + ((i + 1) % 2) * kWidth;
      for (int j = 0; j < kWidth; ++j) out[j] = in[j] + one[j];
      benchmark::ClobberMemory();
      in = out;
    }
    benchmark::DoNotOptimize(buffers.data());
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kNodes,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert, benchmark::Counter::kIs1000);
}
BENCHMARK(BM_Baseline1000TinyAddsLoop)->Unit(benchmark::kMicrosecond);

// Load cost of the same graph (plan + kernels), for reference.
void BM_Load1000TinyAdds(benchmark::State& state) {
  Graph graph("adds", {TensorType(DType::kFloat32, {kWidth})});
  Value one = graph.Constant(*Tensor::Full({kWidth}, 1.0f));
  Value v = graph.Input(0);
  for (int i = 0; i < kNodes; ++i) v = ops::Add(v, one);
  graph.Output(v);
  InferenceSession session;
  for (auto _ : state) {
    absl::StatusOr<CompiledGraph> model = session.Load(graph);
    benchmark::DoNotOptimize(model);
  }
}
BENCHMARK(BM_Load1000TinyAdds)->Unit(benchmark::kMillisecond);

// The seed graph end to end (32x64 x 32x64^T, Q4_0), Execute only.
void BM_ExecuteSeedQMatmul(benchmark::State& state) {
  Graph graph("qmatmul", {TensorType(DType::kFloat32, {32, 64})});
  Value qw = graph.Quantize(Q4_0Encoding(), *Tensor::Full({32, 64}, 0.15f));
  graph.Output(ops::QMatmul(Q4_0Encoding(), graph.Input(0), qw));
  InferenceSession session({.num_threads = static_cast<int>(state.range(0))});
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  if (!model.ok()) {
    state.SkipWithError(model.status().ToString().c_str());
    return;
  }
  Tensor x = *Tensor::Full({32, 64}, 0.5f);
  const std::vector<NamedTensor> inputs = {{"input0", x}};
  for (auto _ : state) {
    absl::StatusOr<TensorMap> out = model->Execute(inputs);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_ExecuteSeedQMatmul)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace edgeq
