// Decode speed of the graph-built Llama 2 (examples/tinystories/graph) on a stories15M-shaped
// model (dim 288, hidden 768, 6 layers, 6 heads, vocab 32000, seq 256) with seeded random
// weights: decode tokens/s for f32 (XNNPACK), q8_0 and q4_0 weights (edgeq's qmatmul kernels),
// with 1 and 2 threads; prefill tokens/s of a 64-token prompt in blocks of 1, 16 and 64 tokens.
// Compare rows of one run only; f32 is the baseline.
//
//   bazel run //benchmarks:llama_graph_benchmark
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "examples/tinystories/graph/llama_graph.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace {

using checkpoint::MetadataValue;

constexpr int kDim = 288, kHidden = 768, kLayers = 6, kHeads = 6, kVocab = 32000, kSeq = 256;

Tensor Random(std::vector<int64_t> shape, std::mt19937& rng, float scale) {
  Tensor t = *Tensor::Create(DType::kFloat32, Shape(shape));
  std::normal_distribution<float> normal(0.0f, scale);
  absl::Span<float> values = *t.MutableValues<float>();
  for (float& v : values) v = normal(rng);
  return t;
}

// The stories15M shape; matrices in `encoding` (nullptr: f32), norms f32. (K-quants do not fit:
// their 256-value blocks need k % 256 == 0, and k is 288.)
absl::StatusOr<checkpoint::TensorDict> MakeModel(const QuantizationEncoding* encoding) {
  std::mt19937 rng(15);
  checkpoint::TensorDict d;
  absl::Status status;
  auto matrix = [&](const std::string& name, int64_t rows, int64_t cols) {
    Tensor t = Random({rows, cols}, rng, 0.02f);
    if (encoding == nullptr) {
      status.Update(d.Set(name, t));
      return;
    }
    absl::StatusOr<Tensor> q = encoding->Quantize(t);
    status.Update(q.ok() ? d.Set(name, *std::move(q)) : q.status());
  };
  matrix("token_embd.weight", kVocab, kDim);
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    status.Update(d.Set(p + "attn_norm.weight", *Tensor::Full({kDim}, 1.0f)));
    matrix(p + "attn_q.weight", kDim, kDim);
    matrix(p + "attn_k.weight", kDim, kDim);
    matrix(p + "attn_v.weight", kDim, kDim);
    matrix(p + "attn_output.weight", kDim, kDim);
    status.Update(d.Set(p + "ffn_norm.weight", *Tensor::Full({kDim}, 1.0f)));
    matrix(p + "ffn_gate.weight", kHidden, kDim);
    matrix(p + "ffn_down.weight", kDim, kHidden);
    matrix(p + "ffn_up.weight", kHidden, kDim);
  }
  status.Update(d.Set("output_norm.weight", *Tensor::Full({kDim}, 1.0f)));
  d.SetMetadata("general.architecture", MetadataValue::String("llama"));
  const auto u32 = MetadataValue::Width::kU32;
  d.SetMetadata("llama.embedding_length", MetadataValue::Int(kDim, u32));
  d.SetMetadata("llama.feed_forward_length", MetadataValue::Int(kHidden, u32));
  d.SetMetadata("llama.block_count", MetadataValue::Int(kLayers, u32));
  d.SetMetadata("llama.attention.head_count", MetadataValue::Int(kHeads, u32));
  d.SetMetadata("llama.attention.head_count_kv", MetadataValue::Int(kHeads, u32));
  d.SetMetadata("llama.context_length", MetadataValue::Int(kSeq, u32));
  d.SetMetadata("llama.vocab_size", MetadataValue::Int(kVocab, u32));
  d.SetMetadata("llama.rope.dimension_count", MetadataValue::Int(kDim / kHeads, u32));
  d.SetMetadata("llama2c.shared_classifier", MetadataValue::Bool(true));
  if (!status.ok()) return status;
  return d;
}

// One iteration = one decoded token; positions cycle through the context.
void BM_Decode(benchmark::State& state, const QuantizationEncoding* encoding) {
  absl::StatusOr<checkpoint::TensorDict> dict = MakeModel(encoding);
  if (!dict.ok()) {
    state.SkipWithError(std::string(dict.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::unique_ptr<tinystories::LlamaGraphModel>> model =
      tinystories::LlamaGraphModel::Create(*dict,
                                           {.num_threads = static_cast<int>(state.range(0))});
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  int pos = 0, token = 1;
  for (auto _ : state) {
    absl::StatusOr<absl::Span<const float>> logits = (*model)->Forward(token, pos);
    if (!logits.ok()) {
      state.SkipWithError(std::string(logits.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(logits->data());
    token = (token * 31 + 7) % kVocab;
    pos = (pos + 1) % kSeq;
  }
  state.SetItemsProcessed(state.iterations());  // items/s = tokens/s
}

// One iteration = a 64-token prompt prefilled at position 0 (blocks of state.range(1) tokens;
// 1 = token by token, as decode does).
void BM_Prefill(benchmark::State& state, const QuantizationEncoding* encoding) {
  absl::StatusOr<checkpoint::TensorDict> dict = MakeModel(encoding);
  if (!dict.ok()) {
    state.SkipWithError(std::string(dict.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::unique_ptr<tinystories::LlamaGraphModel>> model =
      tinystories::LlamaGraphModel::Create(*dict,
                                           {.num_threads = static_cast<int>(state.range(0)),
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

BENCHMARK_CAPTURE(BM_Decode, f32, nullptr)->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);
BENCHMARK_CAPTURE(BM_Decode, q8_0, &Q8_0Encoding())->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);
BENCHMARK_CAPTURE(BM_Decode, q4_0, &Q4_0Encoding())->Arg(1)->Arg(2)->UseRealTime()->MinTime(1.0);

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
