// The configuration of a decoder read from GGUF metadata (ModelConfig::FromMetadata, in
// llm/arch/config.cc): the common `<arch>.*` keys, then what the architecture's row of
// llm/arch/arch_table.h and its own file add.
#ifndef EDGEQ_LLM_ARCH_MODEL_CONFIG_H_
#define EDGEQ_LLM_ARCH_MODEL_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"
#include "llm/arch/arch_table.h"

namespace edgeq {
namespace llm {

// The KV cache's element type. kQ8_0: every cached K and V row is stored as GGML q8_0 blocks (34
// bytes per 32 values, 3.76x less memory than f32; llama.cpp's `-ctk q8_0 -ctv q8_0`), needs a
// head dimension that is a multiple of 32. kF16: GGML's fp16 (half of f32; llama.cpp's default
// cache type). Encoded rows are decoded as attention reads them (arch::KvCacheTensorType).
enum class KvCacheType { kF32, kQ8_0, kF16 };
// The cache type of every entry point that is not told one (llm::ModelOptions, so the C API and
// Python, and the CLI's -ctk/-ctv): f16, as llama.cpp's. Half the memory and half the bytes read
// per step of an f32 cache (`edgeq perplexity -c 128` of the README's random-weight 166M Q4_K_M
// and Q8_0 files: within 1e-3 of the f32 cache's); parity tests against logits llama.cpp computed
// with -ctk f32 ask for kF32.
inline constexpr KvCacheType kDefaultKvCacheType = KvCacheType::kF16;
// "f32", "q8_0", "f16".
constexpr const char* KvCacheTypeName(KvCacheType type) {
  return type == KvCacheType::kQ8_0 ? "q8_0" : type == KvCacheType::kF16 ? "f16" : "f32";
}

// Architectures Model::Load runs: the GGUF names of llm/arch/arch_table.h ("llama", "qwen2", ...).
std::vector<std::string> SupportedArchitectures();

// One recurrent state tensor of a layer: f32 of `shape` (lfm2: the last k - 1 conv inputs,
// [k - 1, dim]).
struct RecurrentStateSpec {
  int layer = 0;
  std::vector<int64_t> shape;
};

// <arch>.rope.scaling.type, as its GGUF value names it (RopeScalingName).
enum class RopeScaling : uint8_t { kNone, kLinear, kLlama3 };
// "none", "linear", "llama3".
inline const char* RopeScalingName(RopeScaling s) {
  return s == RopeScaling::kLinear ? "linear" : s == RopeScaling::kLlama3 ? "llama3" : "none";
}

// The FFN row chunk chosen by the graph builder (ModelOptions::ffn_chunk_rows' default,
// LayerGraph::set_ffn_chunk_rows': FfnChunkRows of each layer's width, llm/arch/common.h).
inline constexpr int64_t kFfnChunkAuto = -1;

// The rows a body graph computes through its last layer.
enum class BodyRows : uint8_t {
  // Every row: output io::kHidden [t, dim] (PrefillAll, embeddings, decode).
  kAll,
  // One row, io::kOutputRow: as llama.cpp's graphs with inp_out_ids, the last layer keeps only
  // that row after its mixer sub-block (attention, convolution or delta net: they write the
  // caches and recurrent states, so they see every row) and runs its feed-forward (and whatever
  // follows) on it: output io::kHidden [1, dim], the values of that row of kAll's output
  // (LayerGraph::KeepOutputRow, llm/arch/common.h). Prefill, which wants the last token's logits
  // only.
  kOutputRow,
};

struct ModelConfig {
  std::string architecture;     // general.architecture
  int context_length = 0;       // <arch>.context_length (what the model was trained for)
  int embedding_length = 0;     // <arch>.embedding_length
  int block_count = 0;          // <arch>.block_count
  int feed_forward_length = 0;  // <arch>.feed_forward_length
  int head_count = 0;           // <arch>.attention.head_count
  int head_count_kv = 0;        // <arch>.attention.head_count_kv (default: head_count)
  // <arch>.attention.key_length (= value_length); default embedding_length / head_count.
  int head_dim = 0;
  int rope_dimension_count = 0;     // <arch>.rope.dimension_count (default head_dim)
  float rope_freq_base = 10000.0f;  // <arch>.rope.freq_base
  float rms_norm_epsilon = 1e-5f;   // <arch>.attention.layer_norm_rms_epsilon
  // <arch>.rope.scaling.type: "none", "linear" (positions / factor) or "llama3" (frequency
  // factors from rope_freqs.weight or, without it, from factor, low/high_freq_factor and
  // original_context_length).
  RopeScaling rope_scaling_type = RopeScaling::kNone;
  float rope_scaling_factor = 1.0f;
  int rope_scaling_original_context_length = 0;
  float rope_scaling_low_freq_factor = 1.0f;
  float rope_scaling_high_freq_factor = 4.0f;
  // <arch>.vocab_size, else the tokenizer.ggml.tokens count, else token_embd.weight's rows.
  int vocab_size = 0;
  bool tied_output = true;  // no output.weight: the classifier is token_embd.weight

  // Per-architecture structure (what llama.cpp's src/models/<arch>.cpp builds).
  arch::Arch arch = {};  // the row of llm/arch/arch_table.h (Arch{}: llama)
  // RoPE pairing: kNorm (adjacent pairs: llama) or kNeox (halves: qwen2, qwen3, gemma3, phi3).
  arch::RopeType rope_type = arch::RopeType::kNorm;
  // Layer l has no RoPE when (l + 1) % no_rope_layer_step == 0 (0: every layer has it).
  int no_rope_layer_step = 0;
  // Scores are q.k * attention_scale: 1/sqrt(head_dim) (gemma3: 1/sqrt(key_length), or
  // 1/sqrt(embedding / heads) for the 62-layer 27B model, as llama.cpp).
  float attention_scale = 1.0f;
  float embedding_scale = 1.0f;  // token embeddings are multiplied by it (gemma3: sqrt(dim))
  bool gated_q = false;          // attn_q rows: per head the query, then an output gate (qwen35)
  bool qk_norm = false;     // RMSNorm of each q and k head (attn_q_norm/attn_k_norm: qwen3, gemma3)
  bool post_norms = false;  // post_attention_norm, post_ffw_norm after each sub-block (gemma3)
  // Of the gate: kSilu (SwiGLU) or kGeluTanh (GeGLU; computed with ggml's half-precision
  // table, as llama.cpp does: llm::GeluTanh).
  arch::Activation ffn_activation = arch::Activation::kSilu;
  bool fused_gate_up = false;  // ffn_up holds gate and up rows, no ffn_gate (phi3)
  // <arch>.attention.sliding_window (gemma3): the window of the sliding-window layers (0: none);
  // sliding_layers[l] says which layers (<arch>.attention.sliding_window_pattern n, default 6:
  // layer l slides unless l % n == n - 1); those layers use rope_freq_base_swa
  // (<arch>.rope.freq_base_swa, default 10000) without RoPE scaling.
  int sliding_window = 0;
  std::vector<bool> sliding_layers;
  float rope_freq_base_swa = 10000.0f;
  // <arch>.final_logit_softcapping: logits = cap * tanh(logits / cap) (0: none).
  float final_logit_softcapping = 0.0f;
  // <arch>.rope.scaling.attn_factor: rotated q and k are multiplied by it (phi3: 1.19 for
  // Phi-3.5's 128k context).
  float rope_attn_factor = 1.0f;
  // phi3: rope_factors_long.weight/rope_factors_short.weight [rope dims / 2] divide the RoPE
  // frequencies; the long ones when the KV cache exceeds
  // rope_scaling_original_context_length (<arch>.rope.scaling.original_context_length), as
  // llama.cpp chooses them by its context size.
  bool has_rope_factors = false;
  // The final norm's tensor (lfm2: token_embd_norm.weight, as llama.cpp names it).
  std::string output_norm = "output_norm.weight";
  // qwen35 (llm/arch/qwen35.cc): the gated delta-net layers' <arch>.ssm.conv_kernel,
  // .ssm.state_size (key and value head dimension), .ssm.group_count (key heads),
  // .ssm.time_step_rank (value heads), .ssm.inner_size (value heads x head dimension);
  // nextn_layers: <arch>.nextn_predict_layers MTP layers after the block_count trunk layers
  // (loaded, unused by the graph).
  int ssm_conv_kernel = 0;
  int ssm_state_size = 0;
  int ssm_group_count = 0;
  int ssm_time_step_rank = 0;
  int ssm_inner_size = 0;
  int nextn_layers = 0;
  // The architecture's read_config checked layer shapes itself (the common check of layer 0's
  // attention tensors does not apply: qwen35).
  bool layer_shapes_checked = false;

  // Recurrent layers (lfm2's short-convolution layers, qwen35's linear-attention ones) have no
  // KV cache: recurrent_layers[l] (empty or false: an attention layer). The generic reader marks
  // the layers whose <arch>.attention.head_count_kv entry is 0; an architecture's file may mark
  // others. Their state tensors (f32, kept by the model beside the KV cache, zero at the start
  // of a sequence) are recurrent_states, in the order of the body graph's state inputs and
  // outputs (llm/arch/recurrent_state.h).
  std::vector<bool> recurrent_layers;
  std::vector<RecurrentStateSpec> recurrent_states;
  bool IsRecurrent(int layer) const {
    return layer < static_cast<int>(recurrent_layers.size()) && recurrent_layers[layer];
  }
  // The KV cache index of an attention layer (its rank among the non-recurrent layers) and the
  // number of attention layers.
  int KvSlot(int layer) const {
    int slot = 0;
    for (int l = 0; l < layer; ++l) slot += IsRecurrent(l) ? 0 : 1;
    return slot;
  }
  int KvLayerCount() const { return KvSlot(block_count); }

  // gemma4 (llm/arch/gemma4.cc). Per layer (empty: feed_forward_length for all):
  // <arch>.feed_forward_length as an array (Gemma 4's double-wide MLP of the shared-KV layers).
  std::vector<int> feed_forward_lengths;
  // <arch>.attention.key_length_swa and rope.dimension_count_swa: the head and rotated
  // dimensions of the sliding-window layers (0: head_dim, rope_dimension_count).
  int head_dim_swa = 0;
  int rope_dimension_count_swa = 0;
  // <arch>.attention.shared_kv_layers: the last n layers write no KV cache and read an earlier
  // layer's (KvLayer); their K/V projections are not run.
  int shared_kv_layers = 0;
  // <arch>.embedding_length_per_layer_input: the width of each layer's extra embedding input
  // (per_layer_token_embd, per_layer_model_proj; 0: none).
  int embedding_length_per_layer = 0;
  // V rows are RMS-normed without a weight before caching (gemma4).
  bool value_norm = false;
  // GELU (gemma's GeGLU, gemma4's per-layer gate) through ggml's fp16 table as llama.cpp's CPU
  // backend computes it (true), or exactly (ModelOptions::gelu_fp16_table; not metadata).
  bool gelu_fp16_table = true;

  // Mixture of experts (qwen3moe, lfm2moe; llm/arch/moe.cc): <arch>.expert_count routed experts
  // (0: dense), expert_used_count of them per token, each expert_feed_forward_length wide; the
  // first leading_dense_block_count layers keep a dense FFN (lfm2moe); gating softmax, or sigmoid
  // (lfm2moe's <arch>.expert_gating_func 2); expert_selection_bias: each MoE layer has
  // exp_probs_b.bias, added to the gating probabilities for the choice only (lfm2moe); the routed
  // weights renormalised to sum 1 (llama.cpp does for both).
  int expert_count = 0;
  int expert_used_count = 0;
  int expert_feed_forward_length = 0;
  int leading_dense_block_count = 0;
  bool expert_sigmoid_gating = false;
  bool expert_selection_bias = false;
  bool expert_weights_norm = true;
  bool IsMoeLayer(int layer) const {
    return expert_count > 0 && layer >= leading_dense_block_count;
  }

  // Whether layer l is a sliding-window layer.
  bool IsSliding(int layer) const {
    return sliding_window > 0 && layer >= 0 && layer < static_cast<int>(sliding_layers.size()) &&
           sliding_layers[layer];
  }
  // The head dimension of layer l (head_dim_swa on sliding-window layers when set).
  int LayerHeadDim(int layer) const {
    return IsSliding(layer) && head_dim_swa > 0 ? head_dim_swa : head_dim;
  }
  // The RoPE dimensions of layer l.
  int LayerRopeDims(int layer) const {
    return IsSliding(layer) && rope_dimension_count_swa > 0 ? rope_dimension_count_swa
                                                            : rope_dimension_count;
  }
  // The FFN width of layer l.
  int LayerFeedForward(int layer) const {
    return layer >= 0 && layer < static_cast<int>(feed_forward_lengths.size())
               ? feed_forward_lengths[layer]
               : feed_forward_length;
  }
  // Layers with a KV cache of their own: the first block_count - shared_kv_layers.
  int CachedLayers() const { return block_count - shared_kv_layers; }
  // Whether layer l keeps a KV cache: an attention layer (not recurrent: lfm2, qwen35) among the
  // first CachedLayers() (gemma4's shared layers read an earlier layer's).
  bool HasKvCache(int layer) const { return layer < CachedLayers() && !IsRecurrent(layer); }
  // The layer whose KV cache layer l reads: itself, or for a shared layer (as llama.cpp's
  // gemma3n/gemma4 reuse) the last cached layer of its kind: CachedLayers() - 2 if it slides,
  // CachedLayers() - 1 otherwise (FromMetadata checks those are of the right kind).
  int KvLayer(int layer) const {
    if (layer < CachedLayers()) return layer;
    return CachedLayers() - (IsSliding(layer) ? 2 : 1);
  }

  // Reads the metadata (and the tensors' presence and shapes where the metadata leaves a value
  // open). InvalidArgument naming a missing or contradictory key; Unimplemented naming an
  // architecture (and listing the supported ones) or a feature (rope scaling type, partial RoPE)
  // this library does not run. Hostile files: every count must be an integer (not a bool or a
  // string) within a ceiling (4096 layers, embedding 2^20, ffn 2^22, 2^14 heads and head
  // dimension, vocabulary 2^24, context 2^30); block_count must be the blk.N layers present
  // (each N decimal, below it, each layer present), and the heads and dimensions must match
  // layer 0's tensors; all checked in time and memory of the order of the tensor count.
  static absl::StatusOr<ModelConfig> FromMetadata(const checkpoint::TensorDict& dict);
  // "llama: 30 layers, embedding 576, ffn 1536, 9 heads (3 kv, dim 64), vocab 49152, ..."
  // (+ ", sliding window 512 on 15 of 18 layers (rope base 10000)", rope factors, soft-cap.)
  std::string ToString() const;
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ARCH_MODEL_CONFIG_H_
