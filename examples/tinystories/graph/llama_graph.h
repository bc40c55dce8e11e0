// Llama 2 as an edgeq Graph: the decoder built from ops (Gather, RmsNorm, MatmulTransposed or
// QMatmul, Rope, Softmax, Silu, ...) and run by an InferenceSession, one token per Execute.
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
// The KV cache is the caller's memory, not the graph's: per layer, K and V caches
// [kv_heads, seq_len, head_size] are graph inputs (zero copy), and the step's new K and V rows
// are graph outputs that Forward writes into the caches at `pos`. Attention over the cache uses
// a mask input (0 for positions < pos, -inf after) and the new row is attended to separately,
// so one graph with static shapes serves every position.
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

  const checkpoint::Llama2cConfig& config() const { return config_; }
  // The graph's text dump and the kernel chosen per node.
  std::string DebugString() const;

 private:
  LlamaGraphModel() = default;

  checkpoint::Llama2cConfig config_;
  int head_size_ = 0;
  std::unique_ptr<Graph> graph_;
  std::unique_ptr<InferenceSession> session_;
  std::unique_ptr<Model> model_;
  // Inputs: token [1] i32, pos [1] i32, mask [1, seq_len], then K and V cache per layer.
  Tensor token_, pos_, mask_;
  std::vector<Tensor> k_cache_, v_cache_;
  std::vector<NamedTensor> inputs_;
  std::vector<std::string> input_names_;
};

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_GRAPH_LLAMA_GRAPH_H_
