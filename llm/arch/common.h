// The pieces every architecture's file (llm/arch/<name>.cc) is built from, as llama.cpp's
// llm_graph_context: metadata readers with the ceilings every count is checked against, the
// weights as graph constants (WeightReader records which were read), and LayerGraph, the state of
// one body graph being built, with the attention and feed-forward sub-blocks the architecture's
// row (llm/arch/arch_table.h) configures.
#ifndef EDGEQ_LLM_ARCH_COMMON_H_
#define EDGEQ_LLM_ARCH_COMMON_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "llm/arch/model_config.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace llm {

// ---- metadata (llm/arch/config.cc) ----
namespace arch {

// Ceilings of every hyperparameter (above every released model), checked against the tensors
// actually present before anything proportional to it is allocated, so that a file declaring
// 2^30 layers or a 2^30-wide head is refused at once with little memory.
inline constexpr int64_t kMaxLayers = 4096;
inline constexpr int64_t kMaxEmbedding = int64_t{1} << 20;
inline constexpr int64_t kMaxFeedForward = int64_t{1} << 22;
inline constexpr int64_t kMaxHeads = int64_t{1} << 14;
inline constexpr int64_t kMaxHeadDim = int64_t{1} << 14;
inline constexpr int64_t kMaxVocab = int64_t{1} << 24;
inline constexpr int64_t kMaxContext = int64_t{1} << 30;

// "<arch>.<name>".
std::string Key(const std::string& arch, absl::string_view name);
// A positive integer at most `max` (an integer type: a bool or a string is refused, naming the
// key and the stored type); OptionalInt: `dflt` when the key is absent.
absl::StatusOr<int64_t> RequiredInt(const checkpoint::TensorDict& d, const std::string& key,
                                    int64_t max = kMaxContext);
absl::StatusOr<int64_t> OptionalInt(const checkpoint::TensorDict& d, const std::string& key,
                                    int64_t dflt, int64_t max = kMaxContext);
// A finite number (positive unless `positive` is false), `dflt` when the key is absent.
absl::StatusOr<double> OptionalFloat(const checkpoint::TensorDict& d, const std::string& key,
                                     double dflt, bool positive = true);

// Bytes of one head_dim-long KV cache row in q8_0 (GGML block_q8_0: 34 per 32 values).
inline int64_t Q8_0RowBytes(int64_t head_dim) { return head_dim / 32 * 34; }

// One layer's K (or V) cache, [kv heads, ctx, head dim] in `type`: f32, f16, or q8_0 rows (u8
// [kv heads, ctx, Q8_0RowBytes(head dim)]).
TensorType KvCacheTensorType(KvCacheType type, int64_t kv_heads, int64_t ctx, int64_t head_dim);

}  // namespace arch

// ---- the graphs' inputs and outputs, by name (llm/arch/common.cc) ----
namespace io {

inline constexpr char kTokens[] = "tokens";        // body input: i32 [t]
inline constexpr char kPositions[] = "positions";  // body input: i32 [t], pos..pos+t-1
inline constexpr char kHidden[] = "hidden";  // body output [t, dim]; the head's input [1, dim]
// Body input of an output-row graph (BodyRows::kOutputRow): i32 [1], the row of the block whose
// hidden state is the output [1, dim].
inline constexpr char kOutputRow[] = "output_row";
inline constexpr char kLogits[] = "logits";  // head output [1, vocab]
// Body input: layer `layer`'s K or V cache, "cache.<layer>.k" / "cache.<layer>.v". The layer's
// attention writes the block's new rows into it in place (ops::Attention with store_kv).
std::string KCache(int layer);
std::string VCache(int layer);

}  // namespace io

// ---- graph building (llm/arch/common.cc) ----

// The weights the graphs are built from. Records every tensor a builder reads, so that Load can
// refuse a file with tensors it would silently ignore (a sixth layer behind block_count = 5, a
// misspelt name).
class WeightReader {
 public:
  WeightReader(const checkpoint::TensorDict& dict, std::set<std::string>* used)
      : dict_(dict), used_(used) {}
  absl::StatusOr<const Tensor*> Get(const std::string& name) const {
    absl::StatusOr<const Tensor*> t = dict_.Get(name);
    if (t.ok()) used_->insert(name);
    return t;
  }
  bool Contains(const std::string& name) const { return dict_.Contains(name); }

 private:
  const checkpoint::TensorDict& dict_;
  std::set<std::string>* used_;
};

// The feed-forward of a prefill block of t rows runs in row chunks (LayerGraph::FeedForward) when
// its [t, ffn]-wide intermediates (gate, up, their product: 12 bytes per row and ffn unit) would
// take more than kFfnOnePieceBytes (the 1B shape's ffn 8192 at the ubatch 512: 48 MiB), so that
// they take at most kFfnChunkBytes; the same values. Narrower blocks stay in one piece (each chunk
// streams the weights again: ffn 2816 at 512 rows, 16.5 MiB, ran 0.9x in 128-row chunks).
// FfnChunkRows(ffn, t): 0 (one piece), or the largest power of two of rows within the chunk
// budget, at least kFfnChunkRows (1B shape: 64).
inline constexpr int64_t kFfnChunkRows = 64;
inline constexpr int64_t kFfnChunkBytes = int64_t{6} << 20;
inline constexpr int64_t kFfnOnePieceBytes = int64_t{24} << 20;
int64_t FfnChunkRows(int64_t ffn, int64_t t);
// The attention half of a prefill block (LayerGraph::NormAttentionAdd) runs its norm, projections
// and residual add in row chunks of kFfnChunkRows where its one-piece rows (the norm, q, k and v:
// `row_bytes` per row) would take more than kAttentionOnePieceBytes (the 1B shape at the ubatch
// 512: 10 MiB; the 166M shape's 4 MiB stay in one piece); the attention itself runs on the whole
// block. AttentionChunkRows(row_bytes, t): 0 (one piece) or kFfnChunkRows.
inline constexpr int64_t kAttentionOnePieceBytes = int64_t{8} << 20;
int64_t AttentionChunkRows(int64_t row_bytes, int64_t t);
// LayerGraph::set_ffn_chunk_rows's default, kFfnChunkAuto (model_config.h): FfnChunkRows of
// each layer's width.

// A weight matrix added once as a graph constant, applied to any number of row blocks (x · W^T:
// QMatmul for a quantized weight, MatmulTransposed for f32).
struct LinearWeight {
  const QuantizationEncoding* encoding = nullptr;  // null: f32
  Value w;
  Value Apply(Value x) const;
};

// One body graph being built: what an architecture's layer function (ArchInfo::build_layer)
// reads and the sub-blocks it composes. The attention sub-block reads the layer's caches (graph
// inputs io::KCache/VCache) and writes its new K and V rows into them (store_kv).
class LayerGraph {
 public:
  LayerGraph(Graph& g, const WeightReader& dict, const ModelConfig& c, int64_t t)
      : g_(g), dict_(dict), c_(c), t_(t) {}

  Graph& graph() { return g_; }
  const ModelConfig& config() const { return c_; }
  const WeightReader& weights() const { return dict_; }
  int64_t t() const { return t_; }  // the block's rows
  // FeedForward's and NormAttentionAdd's row chunk (kFfnChunkAuto by default: FfnChunkRows and
  // AttentionChunkRows; 0: the whole block at once).
  void set_ffn_chunk_rows(int64_t rows) { ffn_chunk_rows_ = rows; }
  // Keeps a layer's new K and V rows [t, kv heads, head dim] for the shared-KV layers reading
  // that cache (KvRows); the layer's attention stores them in the cache (store_kv).
  void AddKvRows(int layer, Value k, Value v);
  // The rows AddKvRows added for `layer`; FailedPrecondition naming the layer if none.
  absl::StatusOr<std::pair<Value, Value>> KvRows(int layer) const;

  // RMSNorm of x [.., n] by blk.<layer>.<name> (f32 [n]; n = embedding_length if 0).
  absl::StatusOr<Value> Norm(int layer, const char* name, Value x, int64_t n = 0);
  // Self-attention of the normed h [t, dim]: projections (attn_qkv, or attn_q/k/v, with their
  // biases when present; config().gated_q: attn_q also gives the output gate, applied as
  // sigmoid(gate) to the attention's output), q/k head norms (config().qk_norm), RoPE unless the
  // layer is one of no_rope_layer_step's, the fused attention over the KV cache (within the sliding
  // window on sliding-window layers) and attn_output (+ bias): [t, dim].
  absl::StatusOr<Value> Attention(int layer, Value h);
  // Gated FFN of h [t, dim]: ffn_gate/ffn_up (or the fused ffn_up), config().ffn_activation,
  // ffn_down: [t, dim]; on an MoE layer (ModelConfig::IsMoeLayer), arch::MoeFeedForward.
  absl::StatusOr<Value> FeedForward(int layer, Value h);
  // x + FeedForward(Norm(layer, norm, x)): where FeedForward runs in row chunks, each chunk's norm,
  // feed-forward and residual add run together, so that the normed block [t, dim] never exists
  // whole (same values: every step is row by row).
  absl::StatusOr<Value> NormFeedForwardAdd(int layer, const char* norm, Value x);
  // x + Attention(Norm(layer, norm, x)): in row chunks (separate q/k/v projections, no output
  // gate), each chunk's norm, q/k/v projections (biases, head norms, RoPE) and, after the whole
  // block's attention, its attn_output and residual add; the same values (every step but the
  // attention is row by row), with the block's normed rows and projections never whole at once
  // beside q, k and v.
  absl::StatusOr<Value> NormAttentionAdd(int layer, const char* norm, Value x);

  // Recurrent layers (llm/arch/recurrent_state.h): the index in config().recurrent_states of
  // the `k`-th state of `layer` (-1 if none), its value before the block (a graph input) and
  // its value after it (a graph output; every state must be set).
  int StateSlot(int layer, int k = 0) const;
  Value StateInput(int slot);
  void SetStateOutput(int slot, Value v);
  bool state_set(int slot) const {
    return slot < static_cast<int>(states_set_.size()) && states_set_[slot];
  }
  // The number of tokens in the block (rows past it are padding): i32 [1]; set when the model
  // has recurrent states (cleared by KeepOutputRow).
  Value real_rows;

  // Every layer function calls this on its residual stream x [t, dim] right after the mixer
  // sub-block's residual add (before anything row by row that follows: feed-forward, post-norms,
  // per-layer inputs). In the last layer of a BodyRows::kOutputRow graph (output_row set) it
  // returns x's row output_row, [1, dim] (llama.cpp's get_rows with inp_out_ids; the add is
  // row by row, so selecting after it gives the values of selecting both of its operands), and
  // from then on t() is 1: per_layer_inputs are that row's, real_rows is cleared (the one row is
  // a real token). Otherwise x. BuildBodyGraph refuses an output-row graph whose last layer did
  // not call it.
  absl::StatusOr<Value> KeepOutputRow(int layer, Value x);
  bool output_row_kept() const { return output_row_kept_; }
  // The row to keep, i32 [1] (set by BuildBodyGraph for BodyRows::kOutputRow).
  Value output_row;

  // Set by BuildBody before the layers.
  Value positions, freqs, freqs_swa;
  absl::StatusOr<Value> attn_factor = absl::NotFoundError("no attn_factor");
  // gemma4: every layer's extra embedding input [t, layers, embedding_length_per_layer]
  // (arch::Gemma4PerLayerInputs).
  Value per_layer_inputs;

 private:
  // The attention sub-block's q/k/v weights (attn_qkv, or attn_q/k/v), added once as constants.
  struct QkvWeights {
    bool fused = false;  // attn_qkv (Phi-3): [q_dim + 2 kv_dim, dim], q rows first
    LinearWeight qkv, q, k, v;
  };
  // Its per-row steps on n rows at positions `pos` (i32 [n]; h their normed input [n, dim]).
  struct QkvRows {
    Value q;     // [n, heads, hs], after head norms and RoPE
    Value k;     // [n, kv heads, hs], likewise
    Value v;     // [n, kv_dim]
    Value gate;  // config().gated_q: the output gate [n, q_dim]
  };
  absl::StatusOr<QkvWeights> AddQkvWeights(int layer);
  // Projections with their biases, the output gate's split, the heads, the q/k head norms and
  // RoPE (unless the layer is one of no_rope_layer_step's); every step row by row.
  absl::StatusOr<QkvRows> ProjectQkv(int layer, const QkvWeights& w, Value h, int64_t n, Value pos);
  absl::StatusOr<Value> ChunkedAttentionAdd(int layer, const char* norm, Value x,
                                            const std::vector<std::pair<int64_t, int64_t>>& ranges);

  Graph& g_;
  const WeightReader& dict_;
  const ModelConfig& c_;
  int64_t t_;
  int64_t ffn_chunk_rows_ = kFfnChunkAuto;
  bool output_row_kept_ = false;
  std::vector<bool> states_set_;
  std::map<int, std::pair<Value, Value>> kv_rows_;
};

namespace arch {
// gemma4 (llm/arch/gemma4.cc): the per-layer inputs [t, layers, per-layer width] from the
// tokens and the scaled embeddings x [t, dim], built before the layers when
// embedding_length_per_layer > 0.
absl::StatusOr<Value> Gemma4PerLayerInputs(LayerGraph& b, Value tokens, Value x);
// Mixture of experts (llm/arch/moe.cc): the expert keys (ModelConfig::expert_*) and the routed
// SwiGLU FFN of an MoE layer (ffn_gate_inp, ffn_gate/up/down_exps, exp_probs_b.bias): [t, dim].
absl::Status ReadExpertConfig(const checkpoint::TensorDict& d, ModelConfig* c);
absl::StatusOr<Value> MoeFeedForward(LayerGraph& b, int layer, Value h);
}  // namespace arch

// The weight `name`, whose logical shape must be [rows, cols], as a LinearWeight.
absl::StatusOr<LinearWeight> AddLinearWeight(Graph& g, const WeightReader& dict,
                                             const std::string& name, int64_t rows, int64_t cols);
// The weight `name` (logical shape [rows, cols]) as a constant: x · W^T (QMatmul for a
// quantized weight, MatmulTransposed for f32).
absl::StatusOr<Value> Linear(Graph& g, const WeightReader& dict, const std::string& name,
                             int64_t rows, int64_t cols, Value x);
// RMSNorm of x by the f32 [dim] weight `name`.
absl::StatusOr<Value> Norm(Graph& g, const WeightReader& dict, const std::string& name, int64_t dim,
                           float eps, Value x);
// A [1] f32 constant.
absl::StatusOr<Value> Scalar(Graph& g, float v);

// The decoder body for a block of `t` consecutive tokens at positions pos..pos+t-1, after
// positions 0..pos-1 are in the caches. Inputs (by name, io::): tokens i32 [t], positions i32 [t]
// (pos..pos+t-1; the attention reads the caches' first pos rows), then each attention layer's K
// and V caches (KvCacheTensorType(cache_type, ...); recurrent layers have none), with recurrent
// layers each of c.recurrent_states (io::State) and the block's real token count (io::kRealRows,
// i32 [1]), and with `rows` = BodyRows::kOutputRow the row to output (io::kOutputRow, i32 [1], in
// [0, t): Execute fails with OutOfRange otherwise). Each attention layer writes the block's K and V
// rows into its caches (in place, at pos..). Outputs: each recurrent state's new value
// (io::NewState), and "hidden", the hidden states after the last block: [t, dim], or [1, dim] for
// kOutputRow (the last layer's feed-forward runs for that row only). `inv_freq` is the RoPE angle
// table of the global layers, `inv_freq_swa` that of the sliding-window layers. Each layer is the
// architecture's ArchInfo::build_layer. gemma4: only the first ModelConfig::CachedLayers() have
// caches and new rows (head dim: ModelConfig::LayerHeadDim); the shared layers read their
// KvLayer's. `ffn_chunk_rows`: LayerGraph::set_ffn_chunk_rows.
absl::StatusOr<std::unique_ptr<Graph>> BuildBodyGraph(
    const WeightReader& dict, const ModelConfig& c, int64_t ctx, KvCacheType cache_type,
    const Tensor& inv_freq, const Tensor& inv_freq_swa, int64_t t,
    int64_t ffn_chunk_rows = kFfnChunkAuto, BodyRows rows = BodyRows::kAll);
// Output norm and classifier (+ final logit soft-capping): input "hidden" [1, dim] -> output
// "logits" [1, vocab].
absl::StatusOr<std::unique_ptr<Graph>> BuildHeadGraph(const WeightReader& dict,
                                                      const ModelConfig& c);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ARCH_COMMON_H_
