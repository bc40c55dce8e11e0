// qwen3moe (Qwen3-30B-A3B, Qwen3-235B-A22B): qwen3's attention (q/k head norms, RoPE on halves)
// and a mixture-of-experts FFN on every layer (llama.cpp's src/models/qwen3moe.cpp): softmax
// gating over <arch>.expert_count experts, the expert_used_count best per token with their
// weights renormalised (llama.cpp always does for qwen3moe, whatever norm_top_k_prob was), each
// expert a SwiGLU FFN of expert_feed_forward_length (default feed_forward_length /
// expert_used_count). The row points at LlamaLayer: LayerGraph::FeedForward routes an MoE
// layer to arch::MoeFeedForward (llm/arch/moe.cc).
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::Status Qwen3MoeConfig(const checkpoint::TensorDict& d, ModelConfig* c) {
  c->expert_sigmoid_gating = false;
  c->expert_weights_norm = true;
  return ReadExpertConfig(d, c);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
