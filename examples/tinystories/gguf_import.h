// Reads a Llama GGUF (v2/v3) with f32 tensors and its SentencePiece vocabulary into LlamaWeights
// and a Tokenizer. A small reader local to this example, used until //checkpoint's GGUF reader
// is available; it accepts only what the TinyStories pipeline needs (llama architecture, F32
// tensors) and names anything else in its errors.
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_GGUF_IMPORT_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_GGUF_IMPORT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "examples/tinystories/llama.h"
#include "examples/tinystories/tokenizer.h"

namespace edgeq {
namespace tinystories {

struct GgufModel {
  LlamaWeights weights;
  std::optional<Tokenizer> tokenizer;  // present if the file carries tokenizer.ggml.tokens/scores
};

// `max_seq_len` > 0 caps the context (GGUF files often declare a longer one than the model was
// trained with; stories260K.gguf says 2048 where llama2.c's file says 512).
absl::StatusOr<GgufModel> LoadGgufLlama(const std::string& path, int max_seq_len = 0);

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_GGUF_IMPORT_H_
