// Llama 2 as an edgeq Graph: the decoder built from ops (Gather, RmsNorm, MatmulTransposed or
// QMatmul, Rope, Softmax, Silu, ...) and run by an InferenceSession: one graph for one token
// (decode) and one for a block of prompt tokens (prefill, matrix-matrix kernels), both over the
// same weights (quantized weights are prepared once for both).
//
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::TensorDict dict, edgeq::checkpoint::Load("m.max"));
//   EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<edgeq::tinystories::LlamaGraphModel> model,
//                          edgeq::tinystories::LlamaGraphModel::Create(dict, {.num_threads = 2}));
//   EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model->Forward(token, pos));
//
// The weights come from a TensorDict with GGUF/llama.cpp names and `llama.*` metadata (what
// checkpoint::ReadLlama2c, the GGUF reader and .max files give). Each matrix may be f32 (run by
// XNNPACK's fully-connected operator) or quantized with any built-in encoding (run by the
// qmatmul kernels); the token embedding may be quantized too (Gather decodes its rows).
//
// The KV cache is this class's memory, not the graph's: per layer, K and V caches
// [kv_heads, seq_len, head_size] are graph inputs (zero copy), and a step's new K and V rows are
// graph outputs that are written into the caches at their positions. Attention over the cache
// uses a mask input (0 before the step's first position, -inf after) and the step's own rows
// are attended to separately (causally within a block), so a graph with static shapes serves
// every position. The model keeps the weights alive (a checkpoint's mapping included).
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_GRAPH_LLAMA_GRAPH_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_GRAPH_LLAMA_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "runtime/session.h"

namespace edgeq {
namespace tinystories {

struct LlamaGraphOptions {
  int num_threads = 1;
  kernels::Isa isa_cap = kernels::Isa::kBest;
  // Prompt tokens per prefill Execute (0 or 1: one at a time). The block graph's activations
  // grow with it; f32 weights are packed once per graph by XNNPACK.
  int prefill_block = 16;
};

class LlamaGraphModel {
 public:
  // Builds and loads the decoder graph. InvalidArgument naming the tensor or metadata key that is
  // missing or has the wrong shape; errors of the graph builder and of Load as they are.
  static absl::StatusOr<std::unique_ptr<LlamaGraphModel>> Create(
      const checkpoint::TensorDict& dict, const LlamaGraphOptions& options = {});

  // Logits [vocab] for `token` at position `pos`, after the tokens at positions 0..pos-1 were
  // given in order. The span stays valid until the next call. OutOfRange naming the value if
  // token is not in [0, vocab) or pos not in [0, seq_len).
  absl::StatusOr<absl::Span<const float>> Forward(int token, int pos);
  // Tokens at positions pos..pos+size-1 (blocks of prefill_block, the rest one by one); the
  // logits of the last one. Same errors as Forward; InvalidArgument if `tokens` is empty.
  absl::StatusOr<absl::Span<const float>> Prefill(absl::Span<const int> tokens, int pos);

  const checkpoint::Llama2cConfig& config() const { return config_; }
  // The graphs' text dumps and the kernel chosen per node.
  std::string DebugString() const;
  // The distinct kernels the decode graph's matrix products use, e.g. {"q4_0_avx512vnni_gemv",
  // "matmul_f32"}, in order of first use.
  std::vector<std::string> MatmulKernels() const;

 private:
  // One loaded graph for blocks of t tokens, with its token and position inputs.
  struct Block {
    int64_t t = 0;
    std::unique_ptr<Graph> graph;
    std::unique_ptr<Model> model;
    Tensor tokens, positions;
  };

  LlamaGraphModel() = default;
  absl::StatusOr<Block> LoadBlock(const checkpoint::TensorDict& dict, int64_t t);
  // Runs b on exactly b.t tokens at pos..pos+b.t-1 and stores their K/V rows.
  absl::StatusOr<absl::Span<const float>> Run(Block& b, absl::Span<const int> tokens, int pos);

  checkpoint::Llama2cConfig config_;
  int head_size_ = 0;
  std::unique_ptr<InferenceSession> session_;
  Block decode_;
  std::unique_ptr<Block> prefill_;
  Tensor mask_;  // [1, seq_len]: 0 for cached positions, -inf for the rest
  std::vector<Tensor> k_cache_, v_cache_;
  std::vector<std::string> input_names_;   // the caches' input names, K and V per layer
  std::vector<std::string> output_names_;  // the new rows' output names, K and V per layer
  std::vector<NamedTensor> inputs_;        // reused by every Run
};

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_GRAPH_LLAMA_GRAPH_H_
