// gemma3 (Gemma 3 text): embeddings scaled by sqrt(dim), q/k head norms, a post-norm after each
// sub-block (post_attention_norm, post_ffw_norm), GeGLU with tanh GELU, RoPE on halves,
// sliding-window layers with their own RoPE base between global ones, optional final logit
// soft-capping (llama.cpp's src/models/gemma3.cpp).
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

// <arch>.attention.sliding_window (0: none), .attention.sliding_window_pattern (default 6: layer
// l slides unless l % n == n - 1), .rope.freq_base_swa (default 10000),
// .final_logit_softcapping (default 0: none).
absl::Status Gemma3Config(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string& a = c->architecture;
  // As llama.cpp: scores scaled by 1/sqrt(embedding / heads) for the 62-layer 27B model.
  if (c->block_count == 62) {
    c->attention_scale = 1.0f / std::sqrt(static_cast<float>(c->embedding_length / c->head_count));
  }
  EDGEQ_ASSIGN_OR_RETURN(int64_t window, OptionalInt(d, Key(a, "attention.sliding_window"), 0));
  if (window > 0) {
    c->sliding_window = static_cast<int>(window);
    EDGEQ_ASSIGN_OR_RETURN(int64_t period,
                           OptionalInt(d, Key(a, "attention.sliding_window_pattern"), 6));
    for (int64_t l = 0; l < c->block_count; ++l) {
      c->sliding_layers.push_back(l % period < period - 1);
    }
    EDGEQ_ASSIGN_OR_RETURN(double base_swa, OptionalFloat(d, Key(a, "rope.freq_base_swa"), 1e4));
    c->rope_freq_base_swa = static_cast<float>(base_swa);
  }
  EDGEQ_ASSIGN_OR_RETURN(double cap, OptionalFloat(d, Key(a, "final_logit_softcapping"), 0.0,
                                                   /*positive=*/false));
  if (cap < 0) {
    return absl::InvalidArgumentError(absl::StrFormat("metadata key '%s' is %g; expected >= 0",
                                                      Key(a, "final_logit_softcapping"), cap));
  }
  c->final_logit_softcapping = static_cast<float>(cap);
  return absl::OkStatus();
}

absl::StatusOr<Value> Gemma3Layer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value h, b.Norm(layer, "attn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value attn, b.Attention(layer, h));
  EDGEQ_ASSIGN_OR_RETURN(attn, b.Norm(layer, "post_attention_norm.weight", attn));
  x = ops::Add(x, attn);
  EDGEQ_ASSIGN_OR_RETURN(x, b.KeepOutputRow(layer, x));
  EDGEQ_ASSIGN_OR_RETURN(h, b.Norm(layer, "ffn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, b.FeedForward(layer, h));
  EDGEQ_ASSIGN_OR_RETURN(ffn, b.Norm(layer, "post_ffw_norm.weight", ffn));
  return ops::Add(x, ffn);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
