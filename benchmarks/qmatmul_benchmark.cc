// qmatmul kernels: GFLOP/s and weight GB/s per encoding x kernel x shape x threads, beside
// XNNPACK's f32 fully-connected operator on the same shapes (the baseline of the ratios that
// benchmarks/qmatmul_table.py prints).
//
//   bazel run //benchmarks:qmatmul_benchmark -- --benchmark_format=json > /tmp/qmatmul.json
//   python3 benchmarks/qmatmul_table.py /tmp/qmatmul.json
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "pthreadpool.h"
#include "quantization/encoding.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/qmatmul.h"
#include "tests/util/random_data.h"
#include "xnnpack.h"

namespace edgeq {
namespace {

using kernels::internal::Encoding;
using kernels::internal::EncodingName;
using kernels::internal::KernelEntry;
using kernels::internal::Shape;

struct MatShape {
  int64_t n, k;
};
constexpr MatShape kShapes[] = {
    {4096, 4096},
    {288, 288},
    {768, 288},
    {288, 768},
    // The shapes real models have: classifiers (stories15M, SmolLM2-135M, Llama 3.2 1B), rows of
    // 896 (Qwen2.5-0.5B) and 640 (Gemma-3-270M), whose K-quant files fall back to 32-blocks, and
    // the widths 1536 and 2048.
    {32000, 288},
    {49152, 576},
    {128256, 2048},
    {896, 896},
    {4864, 896},
    {640, 640},
    {2048, 640},
    {1536, 1536},
    {2048, 2048}};
constexpr int64_t kMs[] = {1, 8, 64};
constexpr int kThreads[] = {1, 2};

using test_util::Gaussian;

using PoolPtr = std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)>;
PoolPtr MakePool(int threads) {
  return PoolPtr(threads > 1 ? pthreadpool_create(threads) : nullptr, pthreadpool_destroy);
}

void SetCounters(benchmark::State& state, int64_t m, int64_t n, int64_t k, double weight_bytes) {
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * m * n * k * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["weight_GBps"] =
      benchmark::Counter(weight_bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// Weights quantized once per (encoding, n, k) and shared by every kernel's benchmark.
const std::vector<uint8_t>& QuantizedWeights(Encoding e, int64_t n, int64_t k) {
  static auto* cache = new std::map<std::tuple<int, int64_t, int64_t>, std::vector<uint8_t>>();
  std::vector<uint8_t>& w = (*cache)[{static_cast<int>(e), n, k}];
  if (w.empty()) {
    const QuantizationEncoding& codec = *FindEncoding(EncodingName(e)).value();
    const std::vector<float> wf = Gaussian(n * k, 1);
    const int64_t row_bytes =
        codec.block_parameters().block_size * (k / codec.block_parameters().elements_per_block);
    w.resize(n * row_bytes);
    for (int64_t j = 0; j < n; ++j) {
      codec.QuantizeRow(wf.data() + j * k, w.data() + j * row_bytes, k);
    }
  }
  return w;
}

void BM_QMatmul(benchmark::State& state, const KernelEntry* entry, int64_t m, int64_t n, int64_t k,
                int threads) {
  const std::vector<uint8_t>& w = QuantizedWeights(entry->encoding, n, k);
  auto kernel = kernels::internal::CreateForEntry(entry, n, k, w);
  if (!kernel.ok()) {
    state.SkipWithError(std::string(kernel.status().message()).c_str());
    return;
  }
  const std::vector<float> x = Gaussian(m * k, 2);
  std::vector<float> y(m * n);
  std::vector<uint8_t> scratch((*kernel)->ScratchBytes(m) + 64);
  const uintptr_t a = reinterpret_cast<uintptr_t>(scratch.data());
  void* aligned = scratch.data() + ((a + 63) / 64 * 64 - a);
  PoolPtr pool = MakePool(threads);
  for (auto _ : state) {
    (*kernel)->Run(m, x.data(), k, y.data(), n, aligned, pool.get());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, m, n, k, static_cast<double>(w.size()));
}

void BM_XnnpackF32(benchmark::State& state, int64_t m, int64_t n, int64_t k, int threads) {
  const std::vector<float> w = Gaussian(n * k, 1);
  const std::vector<float> x = Gaussian(m * k, 2);
  std::vector<float> y(m * n);
  xnn_operator_t op = nullptr;
  if (xnn_create_fully_connected_nc_f32(k, n, k, n, w.data(), nullptr, -INFINITY, INFINITY, 0,
                                        &op) != xnn_status_success) {
    state.SkipWithError("xnn_create_fully_connected_nc_f32 failed");
    return;
  }
  PoolPtr pool = MakePool(threads);
  if (xnn_setup_fully_connected_nc_f32(op, m, x.data(), y.data(), pool.get()) !=
      xnn_status_success) {
    state.SkipWithError("xnn_setup_fully_connected_nc_f32 failed");
    xnn_delete_operator(op);
    return;
  }
  for (auto _ : state) {
    xnn_run_operator(op, pool.get());
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  xnn_delete_operator(op);
  SetCounters(state, m, n, k, static_cast<double>(n * k * sizeof(float)));
}

void RegisterAll() {
  for (const MatShape& s : kShapes) {
    for (int64_t m : kMs) {
      for (int t : kThreads) {
        // The f32 baseline up to 4096x4096 (the big classifiers would take 1 GiB of f32).
        if (s.n * s.k <= 4096 * 4096) {
          benchmark::RegisterBenchmark(
              absl::StrCat("xnnpack_f32/m:", m, "/n:", s.n, "/k:", s.k, "/threads:", t).c_str(),
              BM_XnnpackF32, m, s.n, s.k, t)
              ->UseRealTime()
              ->MinTime(0.05);
        }
        for (const KernelEntry* e : kernels::internal::AllKernels()) {
          if (!kernels::IsaSupported(e->isa)) continue;
          if ((m == 1) != (e->shape == Shape::kGemv)) continue;
          if (s.k % kernels::internal::EncodingBlockElems(e->encoding) != 0) continue;
          // The scalar reference is only timed on the small shapes (it is not a contender).
          if (e->isa == kernels::Isa::kGeneric && s.n * s.k > 768 * 288) continue;
          benchmark::RegisterBenchmark(
              absl::StrCat(e->name, "/m:", m, "/n:", s.n, "/k:", s.k, "/threads:", t).c_str(),
              BM_QMatmul, e, m, s.n, s.k, t)
              ->UseRealTime()
              ->MinTime(0.05);
        }
      }
    }
  }
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "xnn_initialize failed\n");
    return 1;
  }
  edgeq::RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
