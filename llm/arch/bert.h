// Encoder architectures for embeddings, as llama.cpp's src/models/bert.cpp builds them: "bert"
// (bge, MiniLM: absolute position embeddings, token-type row 0 added, LayerNorm after the
// embeddings and after each sub-block, biased projections, GELU FFN) and "nomic-bert"
// (nomic-embed-text: the same post-norm layers with RoPE on halves instead of position
// embeddings, a fused attn_qkv and a SwiGLU FFN). Attention is bidirectional: every row sees
// every row of its own sequence, and no other (the graph's mask input). "gemma-embedding"
// (EmbeddingGemma, llm/arch/gemma_embedding.cc): gemma3 layers with bidirectional attention
// (the sliding-window layers see positions within half the window either side), then the
// output norm; its dense projections (dense_2, dense_3) apply after pooling (Encoder).
//
// The graph takes a block of t rows packing one or more sequences (llm/embed_encoder.h packs
// them); it keeps no cache.
#ifndef EDGEQ_LLM_ARCH_BERT_H_
#define EDGEQ_LLM_ARCH_BERT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "graph/graph.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

// The graph's inputs besides io::kTokens and io::kPositions (positions restart at 0 in each
// sequence): f32 [t, t], 0 where row i may attend to column j (same sequence), else a large
// negative number.
inline constexpr char kAttentionMask[] = "mask";
// gemma-embedding's sliding-window layers: the same within |position difference| <= window / 2.
inline constexpr char kAttentionMaskSwa[] = "mask_swa";

// The rows of EncoderArchitectures(), in this order.
enum class EncoderArch : uint8_t { kBert, kNomicBert, kGemmaEmbedding };

// The encoder architectures, one row each (as arch_table.h is for the decoders).
struct EncoderArchInfo {
  EncoderArch arch;
  const char* gguf_name;     // general.architecture
  bool sliding_window_mask;  // the graph also takes kAttentionMaskSwa (gemma-embedding)
};
absl::Span<const EncoderArchInfo> EncoderArchitectures();
const EncoderArchInfo& EncoderInfo(EncoderArch a);
// By general.architecture; nullptr if not an encoder.
const EncoderArchInfo* FindEncoder(absl::string_view name);

struct EncoderConfig {
  EncoderArch arch = EncoderArch::kBert;
  std::string architecture;  // general.architecture
  int64_t dim = 0, layers = 0, heads = 0, head_dim = 0, ffn = 0, vocab = 0, context = 0;
  float norm_eps = 1e-12f;
  float rope_base = 10000.0f;  // nomic-bert
  // <arch>.pooling_type as llama.cpp numbers it (0 none, 1 mean, 2 cls, 3 last); -1 if absent.
  int pooling_type = -1;
  // gemma-embedding: key/value heads, RMSNorm epsilon, the sliding window (0: none) and which
  // layers slide (sliding_window_pattern, default 6: layer l unless l % 6 == 5), their RoPE
  // base, and the dense projections after pooling (0: absent).
  int64_t kv_heads = 0;
  float rms_eps = 1e-6f;
  int64_t sliding_window = 0;
  std::vector<bool> sliding_layers;
  float rope_base_swa = 10000.0f;
  int64_t dense_2_out = 0, dense_3_in = 0;
};

// A row of EncoderArchitectures(): "bert", "nomic-bert" or "gemma-embedding".
bool IsEncoderArchitecture(absl::string_view name);

// From the GGUF metadata and tensor shapes: <arch>.embedding_length, .block_count,
// .feed_forward_length, .attention.head_count, .attention.layer_norm_epsilon, .context_length,
// .pooling_type, .rope.freq_base (nomic-bert); the vocabulary from token_embd.weight.
// InvalidArgument naming the key or tensor and the expected value.
absl::StatusOr<EncoderConfig> EncoderConfigFromMetadata(const checkpoint::TensorDict& d);

// The encoder over a block of t rows: inputs io::kTokens i32 [t], io::kPositions i32 [t],
// kAttentionMask f32 [t, t]; output io::kHidden f32 [t, dim] (after the last layer's output
// LayerNorm, as llama.cpp's t_embd). Weights may be f32 or quantized (the matrices and the
// embedding tables); norms and biases f32.
absl::StatusOr<std::unique_ptr<Graph>> BuildEncoderGraph(const WeightReader& w,
                                                         const EncoderConfig& c, int64_t t);

// gemma-embedding (gemma_embedding.cc): its keys into `c` (after the common ones), and its
// graph (inputs as BuildEncoderGraph's plus kAttentionMaskSwa f32 [t, t]).
absl::Status GemmaEmbeddingConfig(const checkpoint::TensorDict& d, EncoderConfig* c);
absl::StatusOr<std::unique_ptr<Graph>> BuildGemmaEmbeddingGraph(const WeightReader& w,
                                                                const EncoderConfig& c, int64_t t);
// The dense projections after pooling (dense_2 then dense_3): input io::kHidden f32 [1, dim],
// output the same shape; nullptr if the file has neither.
absl::StatusOr<std::unique_ptr<Graph>> BuildDenseGraph(const WeightReader& w,
                                                       const EncoderConfig& c);

}  // namespace arch
}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ARCH_BERT_H_
