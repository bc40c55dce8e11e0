// Quantization speed: GB/s of f32 input through QuantizationEncoding::Quantize (and Dequantize,
// GB/s of f32 output) per built-in encoding, with 1 and 2 threads, beside a memcpy of the same
// input in the same run (the baseline the ratios are taken against).
//
//   bazel run -c opt //benchmarks:quantize_benchmark
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/tensor.h"
#include "pthreadpool.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace {

constexpr int64_t kRows = 256;
constexpr int64_t kCols = 4096;  // a multiple of every block size; 4 MiB of f32

const Tensor& Input() {
  static const Tensor* input = [] {
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 0.02f);
    std::vector<float> v(kRows * kCols);
    for (float& x : v) x = dist(rng);
    return new Tensor(*Tensor::FromValues<float>(Shape{kRows, kCols}, v));
  }();
  return *input;
}

using PoolPtr = std::unique_ptr<pthreadpool, decltype(&pthreadpool_destroy)>;
PoolPtr MakePool(int threads) {
  return PoolPtr(threads > 1 ? pthreadpool_create(threads) : nullptr, pthreadpool_destroy);
}

void BM_Memcpy(benchmark::State& state) {
  const Tensor& in = Input();
  std::vector<uint8_t> out(in.size_bytes());
  for (auto _ : state) {
    std::memcpy(out.data(), in.raw_data(), in.size_bytes());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * in.size_bytes());
}
BENCHMARK(BM_Memcpy)->UseRealTime();

void BM_Quantize(benchmark::State& state, const QuantizationEncoding* enc) {
  const Tensor& in = Input();
  PoolPtr pool = MakePool(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::StatusOr<Tensor> q = enc->Quantize(in, pool.get());
    if (!q.ok()) {
      state.SkipWithError(std::string(q.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(q->raw_data());
  }
  state.SetBytesProcessed(state.iterations() * in.size_bytes());
}

void BM_Dequantize(benchmark::State& state, const QuantizationEncoding* enc) {
  const Tensor& in = Input();
  PoolPtr pool = MakePool(static_cast<int>(state.range(0)));
  const Tensor q = *enc->Quantize(in);
  for (auto _ : state) {
    absl::StatusOr<Tensor> y = enc->Dequantize(q, pool.get());
    if (!y.ok()) {
      state.SkipWithError(std::string(y.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(y->raw_data());
  }
  state.SetBytesProcessed(state.iterations() * in.size_bytes());
}

#define EDGEQ_ENCODING_BENCHMARKS(id, encoding)     \
  BENCHMARK_CAPTURE(BM_Quantize, id, &encoding())   \
      ->Arg(1)                                      \
      ->Arg(2)                                      \
      ->UseRealTime()                               \
      ->ArgName("threads");                         \
  BENCHMARK_CAPTURE(BM_Dequantize, id, &encoding()) \
      ->Arg(1)                                      \
      ->Arg(2)                                      \
      ->UseRealTime()                               \
      ->ArgName("threads")

EDGEQ_ENCODING_BENCHMARKS(q4_0, Q4_0Encoding);
EDGEQ_ENCODING_BENCHMARKS(q8_0, Q8_0Encoding);
EDGEQ_ENCODING_BENCHMARKS(q4_k, Q4_KEncoding);
EDGEQ_ENCODING_BENCHMARKS(q5_k, Q5_KEncoding);
EDGEQ_ENCODING_BENCHMARKS(q6_k, Q6_KEncoding);
EDGEQ_ENCODING_BENCHMARKS(bf16, BFloat16Encoding);

}  // namespace
}  // namespace edgeq
