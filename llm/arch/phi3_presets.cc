// Random-model presets of phi3 (llm/random_model.h; its fused tensors, RoPE factors and
// attn_factor key follow the row).
#include <vector>

#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomModelSpec>> Phi3Presets() {
  RandomModelSpec s;
  s.name = "Phi 3.5 mini", s.architecture = "phi3";
  s.dim = 3072, s.layers = 32, s.heads = 32, s.kv_heads = 32, s.ffn = 8192, s.vocab = 32064;
  s.context = 131072, s.rope_base = 10000.0f, s.rms_eps = 1e-5f, s.tied = false;
  s.rope_original_context = 4096, s.rope_factor = 32.0f;
  return {{"phi3.5-mini", s}};
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomArchitecture({.gguf_name = "phi3", .presets = Phi3Presets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
