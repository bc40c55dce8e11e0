// qwen2 (Qwen2, Qwen2.5): the llama layer with q/k/v biases and RoPE on halves (NEOX)
// (llama.cpp's src/models/qwen2.cpp).
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::StatusOr<Value> Qwen2Layer(LayerGraph& b, int layer, Value x) {
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
