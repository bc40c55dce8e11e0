// A Llama 2 decoder (the llama2.c / TinyStories architecture) and its weights.
//
//   EDGEQ_ASSIGN_OR_RETURN(LlamaWeights w, LoadLlama2cBin("stories260K.bin"));
//   EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<LlamaModel> m, LlamaModel::Create(w, {.num_threads =
//   2})); absl::Span<const float> logits = *m->Forward(token, pos);
//
// Architecture: token embedding; per layer RMSNorm (eps 1e-5) -> q, k, v projections -> RoPE on
// adjacent (even, odd) pairs with base 10000 -> grouped-query attention over a KV cache ->
// output projection + residual; RMSNorm -> SwiGLU feed-forward (w2(silu(w1 x) * w3 x)) + residual;
// final RMSNorm and a classifier that is either the embedding (shared) or its own matrix.
//
// Weights are kept by name (see the k*Name helpers). A weight may be f32 or quantized (a uint8
// tensor tagged with its encoding); quantized matrices are multiplied by the encoding's qmatmul
// kernel. The f32 path follows run.c's arithmetic order exactly, so greedy decoding reproduces
// llama2.c's tokens bit for bit.
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_LLAMA_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_LLAMA_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/tensor.h"

namespace edgeq {
namespace tinystories {

struct LlamaConfig {
  int dim = 0;         // model width
  int hidden_dim = 0;  // feed-forward width
  int n_layers = 0;
  int n_heads = 0;
  int n_kv_heads = 0;  // < n_heads: grouped-query attention
  int vocab_size = 0;
  int seq_len = 0;  // maximum context
  bool shared_classifier = true;
  float norm_eps = 1e-5f;
  float rope_theta = 10000.0f;

  int head_size() const { return n_heads > 0 ? dim / n_heads : 0; }
  int kv_dim() const { return n_heads > 0 ? dim * n_kv_heads / n_heads : 0; }
  // InvalidArgument naming the field if a value is out of range or inconsistent.
  absl::Status Validate() const;
  std::string ToString() const;
};

// Names of the weights (Meta's Llama 2 names, as llama2.c's export uses).
std::string TokenEmbeddingName();          // [vocab, dim]
std::string AttentionNormName(int layer);  // [dim]
std::string WqName(int layer);             // [dim, dim]   (out, in)
std::string WkName(int layer);             // [kv_dim, dim]
std::string WvName(int layer);             // [kv_dim, dim]
std::string WoName(int layer);             // [dim, dim]
std::string FfnNormName(int layer);        // [dim]
std::string W1Name(int layer);             // [hidden, dim]  gate
std::string W2Name(int layer);             // [dim, hidden]  down
std::string W3Name(int layer);             // [hidden, dim]  up
std::string FinalNormName();               // [dim]
std::string ClassifierName();              // [vocab, dim]  (absent when shared)

// All weight names of a config, in llama2.c file order, with their logical shapes.
std::vector<std::pair<std::string, Shape>> LlamaWeightShapes(const LlamaConfig& config);

struct LlamaWeights {
  LlamaConfig config;
  std::map<std::string, Tensor> tensors;

  // Checks that every weight of the config is present with its logical shape (any dtype or
  // encoding) and that norms are f32. InvalidArgument naming the tensor and both shapes.
  absl::Status Validate() const;
  // Sum of the tensors' byte sizes.
  int64_t SizeBytes() const;
};

// Reads a llama2.c checkpoint: legacy format (7 x int32 header dim, hidden_dim, n_layers,
// n_heads, n_kv_heads, vocab_size (negative = separate classifier), seq_len, then f32 weights).
// The file is memory-mapped and the tensors view it. InvalidArgument if the header is
// implausible or the file size does not match the shapes the header implies.
absl::StatusOr<LlamaWeights> LoadLlama2cBin(const std::string& path);

// Writes `weights` (all f32) as a llama2.c legacy checkpoint (zeroed RoPE tables included).
absl::Status SaveLlama2cBin(const LlamaWeights& weights, const std::string& path);

struct LlamaOptions {
  int num_threads = 1;
};

// One decoding stream: the weights (bound to kernels), a KV cache and scratch buffers.
class LlamaModel {
 public:
  static absl::StatusOr<std::unique_ptr<LlamaModel>> Create(const LlamaWeights& weights,
                                                            const LlamaOptions& options = {});
  ~LlamaModel();
  LlamaModel(const LlamaModel&) = delete;
  LlamaModel& operator=(const LlamaModel&) = delete;

  const LlamaConfig& config() const { return config_; }

  // Runs `token` at position `pos` (0 <= pos < seq_len, positions fed in order) and returns the
  // logits for the next token; they stay valid until the next call. InvalidArgument for an
  // out-of-range token or position.
  absl::StatusOr<absl::Span<float>> Forward(int token, int pos);

  // Names of the kernels used for each distinct weight encoding, e.g. {"f32", "q4_0_avx2_gemv"}.
  std::vector<std::string> KernelNames() const;

  struct Impl;  // Implementation detail (llama.cc).

 private:
  LlamaModel(const LlamaConfig& config, std::unique_ptr<Impl> impl);

  LlamaConfig config_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_LLAMA_H_
