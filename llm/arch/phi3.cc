// phi3 (Phi-3, Phi-3.5 mini): the llama layer with fused attn_qkv and a fused ffn_up (gate rows
// first), RoPE on halves divided by rope_factors_long/short, and rotated q/k multiplied by
// rope.scaling.attn_factor (llama.cpp's src/models/phi3.cpp).
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::Status Phi3Config(const checkpoint::TensorDict& d, ModelConfig* c) {
  // A phi3 file with a separate ffn_gate runs as SwiGLU of ffn_gate and ffn_up.
  c->fused_gate_up = !d.Contains("blk.0.ffn_gate.weight");
  return absl::OkStatus();
}

absl::StatusOr<Value> Phi3Layer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value h, b.Norm(layer, "attn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value attn, b.Attention(layer, h));
  x = ops::Add(x, attn);
  EDGEQ_ASSIGN_OR_RETURN(h, b.Norm(layer, "ffn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, b.FeedForward(layer, h));
  return ops::Add(x, ffn);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
