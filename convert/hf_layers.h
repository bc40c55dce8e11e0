// The layer structure of the hybrid (lfm2, lfm2moe: short-convolution layers beside attention;
// qwen35: gated delta-net layers beside attention) and mixture-of-experts (qwen3moe, lfm2moe)
// architectures as llama.cpp's converter reads it from config.json (LFM2Model, LFM2MoeModel,
// Qwen2MoeModel / Qwen3MoeModel, Qwen3_5TextModel at d32676d7), which tensors each layer must
// have, the merge of per-expert matrices into one 3-D tensor and the transforms of the gated
// delta-net tensors (convert/hf_qwen35.cc). Internal to convert/ (convert/hf_import.cc).
#ifndef EDGEQ_CONVERT_HF_LAYERS_H_
#define EDGEQ_CONVERT_HF_LAYERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"
#include "convert/hf_config.h"
#include "core/tensor.h"
#include "llm/arch/arch_table.h"

namespace edgeq {
namespace convert {
namespace internal {

// qwen35's gated delta-net layers (Qwen3NextModel's linear_* keys).
struct LinearAttention {
  int64_t key_heads = 0;    // linear_num_key_heads (ssm.group_count)
  int64_t value_heads = 0;  // linear_num_value_heads (ssm.time_step_rank)
  int64_t head_dim = 0;     // linear_key_head_dim = linear_value_head_dim (ssm.state_size)
  int64_t conv_kernel = 0;  // linear_conv_kernel_dim (ssm.conv_kernel)
  int64_t interval = 0;     // full_attention_interval: layer l is attention if (l + 1) % it == 0
  int64_t rope_dims = 0;    // int(head_dim * partial_rotary_factor) (rope.dimension_count)
  std::vector<int64_t> rope_sections;  // mrope_section padded to 4 (rope.dimension_sections)
  int64_t key_dim() const { return key_heads * head_dim; }
  int64_t value_dim() const { return value_heads * head_dim; }
  int64_t conv_channels() const { return 2 * key_dim() + value_dim(); }
};

// gemma4's per-layer attention (Gemma4Model's keys).
struct PerLayerAttention {
  std::vector<bool> sliding;    // layer_types: "sliding_attention" (true) or "full_attention"
  int64_t head_dim_swa = 0;     // head_dim (the sliding layers')
  int64_t head_dim_full = 0;    // global_head_dim
  int64_t kv_heads_swa = 0;     // num_key_value_heads
  int64_t kv_heads_full = 0;    // num_global_key_value_heads (else num_key_value_heads)
  bool kv_array = false;        // num_global_key_value_heads given: head_count_kv per layer
  int64_t shared_kv = 0;        // num_kv_shared_layers: the last ones project no K/V
  int64_t per_layer_dim = 0;    // hidden_size_per_layer_input (0: no per-layer embeddings)
  int64_t per_layer_vocab = 0;  // vocab_size_per_layer_input (else vocab_size)
  bool double_wide = false;     // use_double_wide_mlp: 2 x intermediate_size on shared layers
  bool k_eq_v = false;          // attention_k_eq_v: a full layer may have no v_proj
  int64_t ffn = 0;              // intermediate_size
  int64_t window = 0;           // sliding_window (0: not written, sliding_window_pattern 1)
  int64_t rope_dims_swa = 0;    // int(head_dim x rope_parameters' partial_rotary_factor or 1)
  int64_t rotated_pairs = 0;    // full layers: int(global_head_dim x partial_rotary_factor / 2)
  bool has_theta_swa = false;   // rope_parameters.sliding_attention.rope_theta given
  double theta_swa = 0;
  double softcap = 0;  // final_logit_softcapping (0: none)

  bool active() const { return !sliding.empty(); }
  bool Shared(int64_t layer) const {
    return layer >= static_cast<int64_t>(sliding.size()) - shared_kv;
  }
  int64_t HeadDim(int64_t layer) const {
    return sliding[static_cast<size_t>(layer)] ? head_dim_swa : head_dim_full;
  }
  int64_t KvHeads(int64_t layer) const {
    return sliding[static_cast<size_t>(layer)] ? kv_heads_swa : kv_heads_full;
  }
  int64_t Ffn(int64_t layer) const { return double_wide && Shared(layer) ? 2 * ffn : ffn; }
};

struct HfLayout {
  // Hybrid rows: per layer, attention (true) or short convolution / gated delta-net (false),
  // from layer_types (or full_attn_idxs; qwen35: full_attention_interval); empty: every layer
  // is attention.
  std::vector<bool> attention;
  int64_t conv_l_cache = 0;     // conv_L_cache (shortconv.l_cache)
  int64_t experts = 0;          // num_experts (0: a dense FFN everywhere)
  int64_t experts_used = 0;     // num_experts_per_tok
  int64_t expert_ffn = 0;       // moe_intermediate_size
  int64_t leading_dense = -1;   // lfm2moe: num_dense_layers (-1: not an lfm2moe key)
  LinearAttention linear;       // qwen35 (key_heads 0: none)
  PerLayerAttention per_layer;  // gemma4 (sliding empty: none)

  bool short_conv() const { return conv_l_cache > 0; }
  bool linear_attention() const { return linear.key_heads > 0; }
  bool IsAttention(int64_t layer) const {
    return attention.empty() || attention[static_cast<size_t>(layer)];
  }
  bool IsMoe(int64_t layer) const { return experts > 0 && layer >= leading_dense; }
};

// Whether the row has short-convolution layers (its tensor list maps shortconv.*).
bool IsHybrid(const llm::arch::ArchInfo& row);
// Whether the row has experts (its tensor list maps ffn_gate_exps).
bool IsMoe(const llm::arch::ArchInfo& row);
// Whether the row has gated delta-net layers (its tensor list maps ssm_a).
bool IsLinearAttention(const llm::arch::ArchInfo& row);
// Whether the row has gemma4's per-layer attention (its tensor list maps layer_output_scale).
bool IsPerLayerAttention(const llm::arch::ArchInfo& row);

// feed_forward_length: intermediate_size, or lfm2's block_ff_dim with the converter's
// auto-adjust (int(2 ff / 3), times block_ffn_dim_multiplier, rounded up to block_multiple_of).
absl::StatusOr<int64_t> ReadFeedForwardLength(const Config& c, const llm::arch::ArchInfo& row);
// layer_norm_rms_epsilon: rms_norm_eps (or the row's default); lfm2: norm_eps (required);
// lfm2moe: rms_norm_eps, else norm_eps.
absl::StatusOr<double> ReadRmsEps(const Config& c, const llm::arch::ArchInfo& row);
// The layer kinds, expert keys and gated delta-net keys of config.json (an empty layout for the
// other rows); `head_dim` is the attention heads'.
absl::StatusOr<HfLayout> ReadLayout(const Config& c, const llm::arch::ArchInfo& row, int64_t layers,
                                    int64_t head_dim);

// Whether layer tensor `tail` (GGUF name after "blk.N.") belongs on layer `layer`: attention
// tensors on attention layers, shortconv.* on conv layers, attn_qkv/attn_gate/ssm_* on gated
// delta-net layers, the dense FFN on dense layers, the router and experts on MoE layers, the
// norms everywhere.
bool LayerHasTensor(const HfLayout& layout, int64_t layer, absl::string_view tail);
// Whether a layer tensor that may be on layer `layer` must be: all but gemma4's K/V on its
// shared-KV layers, V on its full layers with attention_k_eq_v, and layer_output_scale.
bool LayerNeedsTensor(const HfLayout& layout, int64_t layer, absl::string_view tail);

// A per-expert Hugging Face matrix ("model.layers.3.mlp.experts.5.up_proj.weight"): its layer,
// expert index and the merged GGUF tensor ("blk.3.ffn_up_exps.weight").
struct ExpertPart {
  int64_t layer;
  int64_t expert;
  std::string gguf;
};
// nullopt if `hf` is not one of the row's expert matrices; InvalidArgument naming the tensor
// if its layer or expert index is not a decimal number below the limit.
absl::StatusOr<std::optional<ExpertPart>> MatchExpertTensor(const llm::arch::ArchInfo& row,
                                                            const std::string& hf, int64_t experts);

// The experts' matrices (by expert index, each [rows, columns] = `shape`; HF names for the
// errors) as one tensor [experts, rows, columns] of their common type (f32, f16 or bf16): one
// allocation, filled expert by expert from the (mapped) inputs.
absl::StatusOr<Tensor> MergeExperts(const std::string& gguf,
                                    const std::vector<std::pair<std::string, const Tensor*>>& parts,
                                    const std::vector<int64_t>& shape);

// `t` (f32, f16 or bf16; `name` for the error) as f32 of the same logical shape, plus `add` to
// every element.
absl::StatusOr<Tensor> ToF32(const std::string& name, const Tensor& t, float add);

// `t` (f32, f16 or bf16) with logical shape `dims` (same element count, same buffer).
absl::StatusOr<Tensor> WithLogicalShape(const Tensor& t, const std::vector<int64_t>& dims);

// ---- qwen35 (convert/hf_qwen35.cc), as Qwen3_5TextModel / Qwen3NextModel at d32676d7. ----

// The linear_* keys, full_attention_interval (and layer_types, which must agree with it),
// attn_output_gate, partial_rotary_factor and mrope_section (from rope_parameters, as the
// converter mirrors them) into layout.linear and layout.attention.
absl::Status ReadLinearAttention(const Config& c, int64_t layers, int64_t head_dim,
                                 HfLayout& layout);
// The shape config.json gives a gated delta-net tensor (`tail`: GGUF name after "blk.N."), in
// its GGUF layout (ssm_conv1d squeezed to 2-D); nullopt if `tail` is not one.
std::optional<std::vector<int64_t>> LinearAttentionShape(const LinearAttention& la, int64_t dim,
                                                         absl::string_view tail);
// A gated delta-net tensor as the converter writes it, from the checked Hugging Face tensor
// `in` (`hf`: its name for errors; 1-D ones already f32, `source` the tensor as stored):
// value heads reordered from grouped by key head to tiled (attn_qkv's v rows, attn_gate's rows,
// ssm_beta/ssm_alpha/ssm_dt/ssm_a's entries, ssm_conv1d's v channels, ssm_out's columns; only
// when the key and value head counts differ), ssm_a = -exp(A_log) (exp rounded to the stored
// type, as torch computes it in that type), ssm_conv1d as f32. Others are returned as they are.
absl::StatusOr<Tensor> ConvertLinearAttentionTensor(const LinearAttention& la,
                                                    absl::string_view tail, const std::string& hf,
                                                    const Tensor& source, Tensor in);
// Qwen3NextModel's keys: <a>.ssm.conv_kernel / state_size / group_count / time_step_rank /
// inner_size and full_attention_interval (`a`: the architecture name).
void AddLinearAttentionKeys(const std::string& a, const LinearAttention& la,
                            checkpoint::TensorDict& d);

// ---- gemma4 (convert/hf_gemma4.cc), as Gemma4Model at d32676d7. ----

// layer_types, head_dim / global_head_dim, num_key_value_heads / num_global_key_value_heads,
// num_kv_shared_layers, hidden_size_per_layer_input, use_double_wide_mlp, attention_k_eq_v,
// sliding_window, final_logit_softcapping and rope_parameters' full_attention /
// sliding_attention entries into layout.per_layer (enable_moe_block / experts refused).
absl::Status ReadPerLayerAttention(const Config& c, int64_t layers, int64_t vocab,
                                   HfLayout& layout);
// The shape config.json gives gemma4 tensor `g` (a layer's by its kind, the per-layer
// embedding's), or nullopt if it is not one of those.
std::optional<std::vector<int64_t>> PerLayerAttentionShape(const PerLayerAttention& pl,
                                                           int64_t heads, int64_t dim,
                                                           absl::string_view g);
// The Gemma4Model names of the model-level per-layer-embedding tensors ("" if `hf` is none).
std::string PerLayerEmbeddingName(absl::string_view hf);
// rope_freqs.weight of the full layers' proportional RoPE: 1 on the rotated pairs, 1e30 on the
// others (Gemma4Model.generate_extra_tensors).
absl::StatusOr<Tensor> PerLayerRopeFreqs(const PerLayerAttention& pl);
// gemma4's keys as Gemma3Model then Gemma4Model write them after the common ones (key_length,
// feed_forward_length, head_count_kv and rope.dimension_count overwritten in place, as the
// converter's writer does; its lists as GGUF INT32 arrays).
void AddPerLayerAttentionKeys(const std::string& a, const PerLayerAttention& pl,
                              checkpoint::TensorDict& d);

}  // namespace internal
}  // namespace convert
}  // namespace edgeq

#endif  // EDGEQ_CONVERT_HF_LAYERS_H_
