// The pre-norm decoder layer (llama.cpp's src/models/llama.cpp), shared by the rows whose layers
// differ only in what their table flags configure in LayerGraph's sub-blocks:
//   llama (Llama 1/2/3/3.1/3.2, TinyLlama, SmolLM/SmolLM2, llama2.c models): RoPE on adjacent
//     pairs, SwiGLU;
//   qwen2 (Qwen2, Qwen2.5): q/k/v biases (present in the file), RoPE on halves (NEOX)
//     (src/models/qwen2.cpp);
//   qwen3 (Qwen3 dense): RMSNorm of each q and k head before RoPE (the row's q/k norm flag:
//     attn_q_norm, attn_k_norm), RoPE on halves (src/models/qwen3.cpp);
//   phi3: fused attn_qkv and gate/up, RoPE factors (llm/arch/phi3.cc, src/models/phi3.cpp);
//   smollm3 (SmolLM3): no RoPE on every fourth layer (layers 3, 7, 11, ...: the row's
//     no_rope_layer_step 4, llama.cpp's hparams.n_no_rope_layer_step, fixed at 4 there; no GGUF
//     key), RoPE on adjacent pairs (src/models/smollm3.cpp).
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

absl::StatusOr<Value> LlamaLayer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(x, b.NormAttentionAdd(layer, "attn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(x, b.KeepOutputRow(layer, x));
  return b.NormFeedForwardAdd(layer, "ffn_norm.weight", x);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
