// Random-model presets of qwen3moe (llm/random_model.h: its experts come from the spec's
// expert_count, expert_used and expert_ffn).
#include <vector>

#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomModelSpec>> Qwen3MoePresets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  // Qwen3-30B-A3B (its config.json: 48 layers, 128 experts of 768, 8 per token).
  RandomModelSpec s;
  s.name = "Qwen3-30B-A3B", s.architecture = "qwen3moe";
  s.dim = 2048, s.layers = 48, s.heads = 32, s.kv_heads = 4, s.head_dim = 128, s.ffn = 6144;
  s.vocab = 151936, s.context = 40960, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = false;
  s.expert_count = 128, s.expert_used = 8, s.expert_ffn = 768;
  p.push_back({"qwen3-30b-a3b", s});
  s.name = "Qwen3-MoE tiny";  // 4 layers, 8 experts of 32, 2 per token
  s.dim = 64, s.layers = 4, s.heads = 4, s.kv_heads = 2, s.head_dim = 16, s.ffn = 128;
  s.vocab = 512, s.context = 4096, s.expert_count = 8, s.expert_used = 2, s.expert_ffn = 32;
  p.push_back({"qwen3moe-tiny", s});
  return p;
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomArchitecture({.gguf_name = "qwen3moe", .presets = Qwen3MoePresets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
