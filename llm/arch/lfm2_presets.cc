// Random-model presets of lfm2 (llm/random_model.h: its short-convolution layers come from the
// spec's shortconv_l_cache and attention_layers).
#include <vector>

#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomModelSpec>> Lfm2Presets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  RandomModelSpec s;
  s.name = "LFM2-1.2B", s.architecture = "lfm2";  // conv layers but 2, 5, 8, 10, 12, 14
  s.dim = 2048, s.layers = 16, s.heads = 32, s.kv_heads = 8, s.ffn = 8192, s.vocab = 65536;
  s.context = 128000, s.rope_base = 1000000.0f, s.rms_eps = 1e-5f, s.tied = true;
  s.shortconv_l_cache = 3, s.attention_layers = {2, 5, 8, 10, 12, 14};
  p.push_back({"lfm2-1.2b", s});
  s.name = "LFM2 tiny";  // its structure at small width: 6 layers, attention on 2 and 5
  s.dim = 64, s.layers = 6, s.heads = 4, s.kv_heads = 2, s.ffn = 128, s.vocab = 512;
  p.push_back({"lfm2-tiny", s});
  return p;
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomArchitecture({.gguf_name = "lfm2", .presets = Lfm2Presets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
