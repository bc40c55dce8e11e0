// qwen3 (Qwen3 dense): the llama layer with RMSNorm of each q and k head before RoPE (attn_q_norm,
// attn_k_norm) and RoPE on halves (llama.cpp's src/models/qwen3.cpp).
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::StatusOr<Value> Qwen3Layer(LayerGraph& b, int layer, Value x) {
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
