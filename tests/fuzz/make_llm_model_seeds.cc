// Writes the seed corpus of the llm_model fuzzer (run once; the outputs are committed):
//   bazel run //tests/fuzz:make_llm_model_seeds -- $PWD/tests/fuzz/corpus/llm_model
// A tiny valid model (with and without a SentencePiece vocabulary) and the hostile cases of
// issue 27: block_count 2^30, 2^20, above and below the layers present and stored as a bool
// (F1, F6), a stray blk.00 tensor, a head dimension of 2^13, a 3 KB architecture name and the
// tokenizer's booleans stored as a string and an integer (F14).
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "llm/random_model.h"

using edgeq::checkpoint::MetadataValue;
using edgeq::checkpoint::TensorDict;

namespace {

bool Write(const std::string& dir, const std::string& name, const TensorDict& d) {
  absl::StatusOr<std::string> bytes = edgeq::checkpoint::WriteGgufToString(d);
  if (!bytes.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), bytes.status().ToString().c_str());
    return false;
  }
  const std::string path = dir + "/" + name + ".gguf";
  std::ofstream(path, std::ios::binary).write(bytes->data(), bytes->size());
  std::printf("%s: %zu bytes\n", path.c_str(), bytes->size());
  return true;
}

TensorDict With(TensorDict d, const std::string& key, MetadataValue v) {
  d.SetMetadata(key, std::move(v));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_llm_model_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  edgeq::llm::RandomModelSpec s = *edgeq::llm::RandomModelPreset("stories15m");
  s.dim = 8, s.layers = 2, s.heads = 2, s.kv_heads = 1, s.ffn = 8, s.vocab = 6, s.context = 16;
  const TensorDict tiny = *edgeq::llm::RandomModel(s);
  TensorDict vocab = tiny;
  vocab.SetMetadata("tokenizer.ggml.model", MetadataValue::String("llama"));
  vocab.SetMetadata("tokenizer.ggml.tokens",
                    MetadataValue::StringArray({"<unk>", "<s>", "</s>", "\xe2\x96\x81", "H", "e"}));
  vocab.SetMetadata("tokenizer.ggml.scores",
                    MetadataValue::FloatArray({0, 0, 0, -1, -2, -3}, MetadataValue::Width::kF32));
  vocab.SetMetadata("tokenizer.ggml.token_type", MetadataValue::IntArray({2, 3, 3, 1, 1, 1}));
  vocab.SetMetadata("tokenizer.ggml.add_space_prefix", MetadataValue::Bool(true));
  TensorDict extra_layer = tiny;  // a third layer behind block_count = 2
  for (const std::string& k : tiny.Keys()) {
    if (k.rfind("blk.1.", 0) == 0) (void)extra_layer.Set("blk.2." + k.substr(6), **tiny.Get(k));
  }
  TensorDict stray = tiny;
  (void)stray.Set("blk.00.attn_norm.weight", **tiny.Get("blk.0.attn_norm.weight"));
  using W = MetadataValue::Width;
  bool ok =
      Write(dir, "tiny", tiny) && Write(dir, "tiny_vocab", vocab) &&
      Write(dir, "layers_2p30",
            With(tiny, "llama.block_count", MetadataValue::Int(1 << 30, W::kU32))) &&
      Write(dir, "layers_2p20",
            With(tiny, "llama.block_count", MetadataValue::Int(1 << 20, W::kU32))) &&
      Write(dir, "layers_3_of_2",
            With(tiny, "llama.block_count", MetadataValue::Int(3, W::kU32))) &&
      Write(dir, "layers_bool", With(tiny, "llama.block_count", MetadataValue::Bool(true))) &&
      Write(dir, "extra_layer", extra_layer) && Write(dir, "stray_blk00", stray) &&
      Write(dir, "head_dim_8192",
            With(tiny, "llama.attention.key_length", MetadataValue::Int(8192, W::kU32))) &&
      Write(dir, "arch_3k",
            With(tiny, "general.architecture", MetadataValue::String(std::string(3000, 'a')))) &&
      Write(dir, "space_prefix_string",
            With(vocab, "tokenizer.ggml.add_space_prefix", MetadataValue::String("false"))) &&
      Write(dir, "add_bos_int",
            With(vocab, "tokenizer.ggml.add_bos_token", MetadataValue::Int(1, W::kU8)));
  return ok ? 0 : 1;
}
