// Random-weight encoder models (bert, nomic-bert: llm/arch/bert.h) of real shapes, with the GGUF
// metadata and tensors llama.cpp's converter writes for them, so that both edgeq and llama.cpp
// load the same file (as llm/random_model.h does for the decoders).
//
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::llm::RandomEncoderSpec s,
//                          edgeq::llm::RandomEncoderPreset("bge-small"));
//   s.layers = 2;
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::TensorDict m, edgeq::llm::RandomEncoder(s, &vocab));
//
// Weights are f32: matrices and embedding tables ~ U(-a, a) with a = 1/sqrt(columns), norm
// weights ~ 1 + U(-0.25, 0.25), biases ~ U(-0.1, 0.1); each tensor from its own xorshift64*
// stream seeded by (seed, name).
#ifndef EDGEQ_LLM_EMBED_RANDOM_MODEL_H_
#define EDGEQ_LLM_EMBED_RANDOM_MODEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {

struct RandomEncoderSpec {
  std::string name;
  std::string architecture = "bert";  // or "nomic-bert", "gemma-embedding"
  int dim = 0, layers = 0, heads = 0, ffn = 0, context = 0;
  int vocab = 0;         // without a vocabulary dict
  int pooling_type = 1;  // <arch>.pooling_type: 1 mean, 2 cls
  float norm_eps = 1e-12f;
  float rope_base = 1000.0f;  // nomic-bert
  uint64_t seed = 1;
  // gemma-embedding: kv heads, head dimension (attention.key_length), RMSNorm epsilon, the
  // sliding window and its layer pattern, the sliding layers' RoPE base (rope_base is the
  // global layers'), and the width of the dense projections after pooling (0: none).
  int kv_heads = 0, head_dim = 0;
  float rms_eps = 1e-6f;
  int sliding_window = 0, sliding_window_pattern = 6;
  float rope_base_swa = 10000.0f;
  int dense = 0;
};

// "bert-tiny", "bge-small" (BAAI/bge-small-en-v1.5: cls pooling), "all-minilm-l6"
// (sentence-transformers/all-MiniLM-L6-v2: mean), "nomic-bert-tiny", "nomic-embed-text-v1.5",
// "gemma-embedding-tiny", "embeddinggemma-300m";
// InvalidArgument naming the name and listing these otherwise.
absl::StatusOr<RandomEncoderSpec> RandomEncoderPreset(absl::string_view name);
std::vector<std::string> RandomEncoderPresetNames();

// An encoder architecture's presets, registered from its llm/arch/<name>_encoder_presets.cc
// (compiled into this library only):
//
//   const bool kRegistered = RegisterRandomEncoder({.gguf_name = "bert", .presets = BertPresets});
//
// RandomEncoderPreset and RandomEncoderPresetNames list the registrations in the order of the
// encoders' table (llm/arch/bert.h), each one's presets in its order.
struct RandomEncoderArchitecture {
  const char* gguf_name = "";  // its row's (arch::EncoderArchitectures())
  std::vector<NamedPreset<RandomEncoderSpec>> (*presets)() = nullptr;
};
bool RegisterRandomEncoder(const RandomEncoderArchitecture& a);

// The model, with every tokenizer.* key of `vocab` when given (its token count is then the
// vocabulary). InvalidArgument naming bad sizes.
absl::StatusOr<checkpoint::TensorDict> RandomEncoder(const RandomEncoderSpec& spec,
                                                     const checkpoint::TensorDict* vocab);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_EMBED_RANDOM_MODEL_H_
