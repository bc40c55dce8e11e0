// phi3 (Phi-3, Phi-3.5 mini): the llama layer (LlamaLayer; the row's flags and these config
// quirks make the differences) with fused attn_qkv and a fused ffn_up (gate rows first), RoPE on
// halves divided by rope_factors_long/short, and rotated q/k multiplied by
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

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
