// lfm2moe (LFM2-8B-A1B, LFM2-24B-A2B): lfm2's layers (short-convolution and GQA attention
// mixers, llm/arch/lfm2.cc) whose FFN is a mixture of experts after the first
// <arch>.leading_dense_block_count layers (llama.cpp's src/models/lfm2moe.cpp for the tensors,
// lfm2.cpp for the graph): <arch>.expert_gating_func (1 softmax, 2 sigmoid: LFM2-MoE's) over
// expert_count experts, each MoE layer's exp_probs_b.bias added for the choice of the
// expert_used_count experts only, their weights renormalised. The row points at Lfm2Layer:
// LayerGraph::FeedForward routes an MoE layer to arch::MoeFeedForward (llm/arch/moe.cc).
#include <cstdint>
#include <string>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::Status Lfm2Config(const checkpoint::TensorDict& d, ModelConfig* c);

absl::Status Lfm2MoeConfig(const checkpoint::TensorDict& d, ModelConfig* c) {
  EDGEQ_RETURN_IF_ERROR(Lfm2Config(d, c));
  const std::string& a = c->architecture;
  const std::string dense_key = Key(a, "leading_dense_block_count");
  int64_t dense = 0;
  if (d.HasMetadata(dense_key)) {
    absl::StatusOr<int64_t> v = d.GetInt(dense_key);
    if (!v.ok()) return absl::InvalidArgumentError(v.status().message());
    if (*v < 0 || *v > c->block_count) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' is %d; expected 0 to %s = %d", dense_key, *v,
                          Key(a, "block_count"), c->block_count));
    }
    dense = *v;
  }
  const std::string gating_key = Key(a, "expert_gating_func");
  EDGEQ_ASSIGN_OR_RETURN(int64_t gating, RequiredInt(d, gating_key, 1 << 20));
  if (gating != 1 && gating != 2) {
    return absl::UnimplementedError(absl::StrFormat(
        "metadata key '%s' is %d; expected 1 (softmax) or 2 (sigmoid)", gating_key, gating));
  }
  c->leading_dense_block_count = static_cast<int>(dense);
  c->expert_sigmoid_gating = gating == 2;
  c->expert_selection_bias = true;
  c->expert_weights_norm = true;
  return ReadExpertConfig(d, c);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
