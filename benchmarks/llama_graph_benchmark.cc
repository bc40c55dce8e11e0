// Prefill speed of the graph-built Llama 2 (examples/tinystories/graph) on a stories15M-shaped
// model with seeded random weights (tinystories::RandomLlama): tokens/s of a 64-token prompt fed
// in blocks of 1 (token by token, as decode), 16 and 64 tokens, f32 and q4_0 weights, 1 and 2
// threads. Compare rows of one run only; block 1 is the baseline. (Decode speed beside run.c:
// tinystories_benchmark.)
//
//   bazel run //benchmarks:llama_graph_benchmark
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "checkpoint/quantize_rules.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "examples/tinystories/random_llama.h"
#include "llm/model.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace {

constexpr int kVocab = 32000;

// The stories15M shape with matrices in `encoding` (nullptr: f32).
absl::StatusOr<checkpoint::TensorDict> MakeModel(const QuantizationEncoding* encoding) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict d, tinystories::RandomLlama());
  if (encoding == nullptr) return d;
  return checkpoint::QuantizeDict(d, {{"*", std::string(encoding->name())}});
}

// One iteration = a 64-token prompt prefilled at position 0 (blocks of state.range(1) tokens;
// 1 = token by token, as decode does).
void BM_Prefill(benchmark::State& state, const QuantizationEncoding* encoding) {
  absl::StatusOr<checkpoint::TensorDict> dict = MakeModel(encoding);
  if (!dict.ok()) {
    state.SkipWithError(std::string(dict.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::unique_ptr<llm::Model>> model =
      llm::Model::Load(*dict, {.num_threads = static_cast<int>(state.range(0)),
                               .prefill_block = static_cast<int>(state.range(1))});
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  std::vector<int> prompt(64);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int>((i * 7919) % kVocab);
  for (auto _ : state) {
    absl::StatusOr<absl::Span<const float>> logits = (*model)->Prefill(prompt, 0);
    if (!logits.ok()) {
      state.SkipWithError(std::string(logits.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(logits->data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(prompt.size()));
}

}  // namespace
}  // namespace edgeq

namespace edgeq {
namespace {
void PrefillArgs(benchmark::internal::Benchmark* b) {
  for (int threads : {1, 2}) {
    for (int block : {1, 16, 64}) b->Args({threads, block});
  }
  b->UseRealTime()->MinTime(1.0);
}
BENCHMARK_CAPTURE(BM_Prefill, f32, nullptr)->Apply(PrefillArgs);
BENCHMARK_CAPTURE(BM_Prefill, q4_0, &Q4_0Encoding())->Apply(PrefillArgs);
}  // namespace
}  // namespace edgeq
