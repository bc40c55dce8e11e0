// Random-encoder presets of gemma-embedding (EmbeddingGemma; llm/embed_random_model.h).
#include <vector>

#include "llm/embed_random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomEncoderSpec>> GemmaEmbeddingPresets() {
  std::vector<NamedPreset<RandomEncoderSpec>> p;
  RandomEncoderSpec s;
  s.architecture = "gemma-embedding", s.rope_base = 1e6f, s.pooling_type = 1;
  s.name = "gemma-embedding-tiny", s.dim = 64, s.layers = 2, s.heads = 4, s.kv_heads = 1;
  s.head_dim = 32, s.ffn = 128, s.context = 2048, s.vocab = 512, s.sliding_window = 8;
  s.sliding_window_pattern = 2, s.dense = 128;
  p.push_back({"gemma-embedding-tiny", s});
  s.name = "embeddinggemma-300m", s.dim = 768, s.layers = 24, s.heads = 3, s.kv_heads = 1;
  s.head_dim = 256, s.ffn = 1152, s.vocab = 262144, s.sliding_window = 512;
  s.sliding_window_pattern = 6, s.dense = 3072;
  p.push_back({"embeddinggemma-300m", s});
  return p;
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomEncoder({.gguf_name = "gemma-embedding", .presets = GemmaEmbeddingPresets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
