// Random-model presets (llm/random_model.h) of the rows whose layer is llama.cc's LlamaLayer and
// that need nothing beyond the row's flags: llama, qwen2, qwen3, smollm3 (phi3: phi3_presets.cc).
#include <string>
#include <vector>

#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomModelSpec>> LlamaPresets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  RandomModelSpec s;
  s.name = "stories15M";
  s.dim = 288, s.layers = 6, s.heads = 6, s.kv_heads = 6, s.ffn = 768, s.vocab = 32000;
  s.context = 256, s.rope_base = 10000.0f, s.tied = true;
  p.push_back({"stories15m", s});
  s = RandomModelSpec{};
  s.name = "SmolLM2-135M";
  s.dim = 576, s.layers = 30, s.heads = 9, s.kv_heads = 3, s.ffn = 1536, s.vocab = 49152;
  s.context = 8192, s.rope_base = 100000.0f, s.tied = true;
  p.push_back({"smollm2-135m", s});
  s = RandomModelSpec{};
  s.name = "TinyLlama-1.1B";
  s.dim = 2048, s.layers = 22, s.heads = 32, s.kv_heads = 4, s.ffn = 5632, s.vocab = 32000;
  s.context = 2048, s.rope_base = 10000.0f, s.tied = false;
  p.push_back({"tinyllama-1.1b", s});
  s = RandomModelSpec{};
  s.name = "Llama-3.2-1B";
  s.dim = 2048, s.layers = 16, s.heads = 32, s.kv_heads = 8, s.ffn = 8192, s.vocab = 128256;
  s.context = 131072, s.rope_base = 500000.0f, s.tied = true, s.head_dim_keys = true;
  s.llama3_rope = true, s.rope_factor = 32.0f, s.rope_low_freq_factor = 1.0f;
  s.rope_high_freq_factor = 4.0f, s.rope_original_context = 8192;
  p.push_back({"llama-3.2-1b", s});
  return p;
}

std::vector<NamedPreset<RandomModelSpec>> Qwen2Presets() {
  RandomModelSpec s;
  s.name = "Qwen2.5-0.5B", s.architecture = "qwen2";
  s.dim = 896, s.layers = 24, s.heads = 14, s.kv_heads = 2, s.ffn = 4864, s.vocab = 151936;
  s.context = 32768, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  return {{"qwen2.5-0.5b", s}};
}

std::vector<NamedPreset<RandomModelSpec>> Qwen3Presets() {
  RandomModelSpec s;
  s.name = "Qwen3-0.6B", s.architecture = "qwen3";
  s.dim = 1024, s.layers = 28, s.heads = 16, s.kv_heads = 8, s.head_dim = 128, s.ffn = 3072;
  s.vocab = 151936, s.context = 40960, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  return {{"qwen3-0.6b", s}};
}

std::vector<NamedPreset<RandomModelSpec>> Smollm3Presets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  RandomModelSpec s;
  s.name = "SmolLM3-3B", s.architecture = "smollm3";
  s.dim = 2048, s.layers = 36, s.heads = 16, s.kv_heads = 4, s.ffn = 11008, s.vocab = 128256;
  s.context = 65536, s.rope_base = 5000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  p.push_back({"smollm3-3b", s});
  s.name = "SmolLM3 tiny";  // its structure at small width: 8 layers, 2 without RoPE
  s.dim = 64, s.layers = 8, s.heads = 4, s.kv_heads = 2, s.ffn = 128, s.vocab = 512;
  p.push_back({"smollm3-tiny", s});
  return p;
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomArchitecture({.gguf_name = "llama", .presets = LlamaPresets}) &&
    RegisterRandomArchitecture({.gguf_name = "qwen2", .presets = Qwen2Presets}) &&
    RegisterRandomArchitecture({.gguf_name = "qwen3", .presets = Qwen3Presets}) &&
    RegisterRandomArchitecture({.gguf_name = "smollm3", .presets = Smollm3Presets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
