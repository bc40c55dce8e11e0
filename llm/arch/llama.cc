// llama (Llama 1/2/3/3.1/3.2, TinyLlama, SmolLM/SmolLM2, llama2.c models): pre-norm layers,
// RoPE on adjacent pairs, SwiGLU (llama.cpp's src/models/llama.cpp).
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::StatusOr<Value> LlamaLayer(LayerGraph& b, int layer, Value x) {
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
