// Random-encoder presets of bert and nomic-bert (llm/embed_random_model.h; their layouts follow
// the encoders' table row).
#include <vector>

#include "llm/embed_random_model.h"

namespace edgeq {
namespace llm {
namespace {

std::vector<NamedPreset<RandomEncoderSpec>> BertPresets() {
  std::vector<NamedPreset<RandomEncoderSpec>> p;
  RandomEncoderSpec s;
  s.name = "bert-tiny", s.dim = 64, s.layers = 2, s.heads = 4, s.ffn = 128, s.context = 512;
  s.vocab = 1000, s.pooling_type = 1;
  p.push_back({"bert-tiny", s});
  s.name = "bge-small-en-v1.5", s.dim = 384, s.layers = 12, s.heads = 12, s.ffn = 1536;
  s.vocab = 30522, s.pooling_type = 2;
  p.push_back({"bge-small", s});
  s.name = "all-MiniLM-L6-v2", s.layers = 6, s.pooling_type = 1;
  p.push_back({"all-minilm-l6", s});
  return p;
}

std::vector<NamedPreset<RandomEncoderSpec>> NomicBertPresets() {
  std::vector<NamedPreset<RandomEncoderSpec>> p;
  RandomEncoderSpec s;
  s.architecture = "nomic-bert", s.rope_base = 1000.0f;
  s.name = "nomic-bert-tiny", s.dim = 64, s.layers = 2, s.heads = 4, s.ffn = 128;
  s.context = 2048, s.vocab = 1000, s.pooling_type = 1;
  p.push_back({"nomic-bert-tiny", s});
  s.name = "nomic-embed-text-v1.5", s.dim = 768, s.layers = 12, s.heads = 12, s.ffn = 3072;
  s.vocab = 30522;
  p.push_back({"nomic-embed-text-v1.5", s});
  return p;
}

[[maybe_unused]] const bool kRegistered =
    RegisterRandomEncoder({.gguf_name = "bert", .presets = BertPresets}) &&
    RegisterRandomEncoder({.gguf_name = "nomic-bert", .presets = NomicBertPresets});

}  // namespace
}  // namespace llm
}  // namespace edgeq
