// smollm3 (SmolLM3): the llama layer without RoPE on every fourth layer (layers 3, 7, 11, ...:
// the row's no_rope_layer_step 4, llama.cpp's hparams.n_no_rope_layer_step, fixed at 4 there;
// no GGUF key), RoPE on adjacent pairs (llama.cpp's src/models/smollm3.cpp).
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::StatusOr<Value> Smollm3Layer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value h, b.Norm(layer, "attn_norm.weight", x));
  // LayerGraph::Attention skips RoPE where (layer + 1) % no_rope_layer_step == 0.
  EDGEQ_ASSIGN_OR_RETURN(Value attn, b.Attention(layer, h));
  x = ops::Add(x, attn);
  EDGEQ_ASSIGN_OR_RETURN(h, b.Norm(layer, "ffn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, b.FeedForward(layer, h));
  return ops::Add(x, ffn);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
