// The layer structure of the hybrid (lfm2, lfm2moe: short-convolution layers beside attention)
// and mixture-of-experts (qwen3moe, lfm2moe) architectures as llama.cpp's converter reads it
// from config.json (LFM2Model, LFM2MoeModel, Qwen2MoeModel / Qwen3MoeModel at d32676d7), which
// tensors each layer must have, and the merge of per-expert matrices into one 3-D tensor.
// Internal to convert/ (convert/hf_import.cc).
#ifndef EDGEQ_CONVERT_HF_LAYERS_H_
#define EDGEQ_CONVERT_HF_LAYERS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "convert/hf_config.h"
#include "core/tensor.h"
#include "llm/arch/arch_table.h"

namespace edgeq {
namespace convert {
namespace internal {

struct HfLayout {
  // Hybrid rows: per layer, attention (true) or short convolution (false), from layer_types
  // (or full_attn_idxs); empty: every layer is attention.
  std::vector<bool> attention;
  int64_t conv_l_cache = 0;    // conv_L_cache (shortconv.l_cache)
  int64_t experts = 0;         // num_experts (0: a dense FFN everywhere)
  int64_t experts_used = 0;    // num_experts_per_tok
  int64_t expert_ffn = 0;      // moe_intermediate_size
  int64_t leading_dense = -1;  // lfm2moe: num_dense_layers (-1: not an lfm2moe key)

  bool hybrid() const { return !attention.empty(); }
  bool IsAttention(int64_t layer) const {
    return attention.empty() || attention[static_cast<size_t>(layer)];
  }
  bool IsMoe(int64_t layer) const { return experts > 0 && layer >= leading_dense; }
};

// Whether the row has short-convolution layers (its tensor list maps shortconv.*).
bool IsHybrid(const llm::arch::ArchInfo& row);
// Whether the row has experts (its tensor list maps ffn_gate_exps).
bool IsMoe(const llm::arch::ArchInfo& row);

// feed_forward_length: intermediate_size, or lfm2's block_ff_dim with the converter's
// auto-adjust (int(2 ff / 3), times block_ffn_dim_multiplier, rounded up to block_multiple_of).
absl::StatusOr<int64_t> ReadFeedForwardLength(const Config& c, const llm::arch::ArchInfo& row);
// layer_norm_rms_epsilon: rms_norm_eps (or the row's default); lfm2: norm_eps (required);
// lfm2moe: rms_norm_eps, else norm_eps.
absl::StatusOr<double> ReadRmsEps(const Config& c, const llm::arch::ArchInfo& row);
// The layer kinds and expert keys of config.json (an empty layout for the other rows).
absl::StatusOr<HfLayout> ReadLayout(const Config& c, const llm::arch::ArchInfo& row,
                                    int64_t layers);

// Whether layer tensor `tail` (GGUF name after "blk.N.") belongs on layer `layer`: attention
// tensors on attention layers, shortconv.* on conv layers, the dense FFN on dense layers, the
// router and experts on MoE layers, the norms everywhere.
bool LayerHasTensor(const HfLayout& layout, int64_t layer, absl::string_view tail);

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

// `t` (f32, f16 or bf16) with logical shape `dims` (same element count, same buffer).
absl::StatusOr<Tensor> WithLogicalShape(const Tensor& t, const std::vector<int64_t>& dims);

}  // namespace internal
}  // namespace convert
}  // namespace edgeq

#endif  // EDGEQ_CONVERT_HF_LAYERS_H_
