// Random-model presets of gemma3 (llm/random_model.h; its tensors and keys follow the row).
#include <vector>

#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomModelSpec>> Gemma3Presets() {
  RandomModelSpec s;
  s.name = "Gemma-3-270M", s.architecture = "gemma3";
  s.dim = 640, s.layers = 18, s.heads = 4, s.kv_heads = 1, s.head_dim = 256, s.ffn = 2048;
  s.vocab = 262144, s.context = 32768, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  s.sliding_window = 512, s.sliding_window_pattern = 6, s.rope_base_swa = 10000.0f;
  return {{"gemma3-270m", s}};
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomArchitecture({.gguf_name = "gemma3", .presets = Gemma3Presets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
