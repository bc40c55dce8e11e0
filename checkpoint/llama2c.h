// llama2.c legacy files: the model checkpoint (.bin, version 0) and the tokenizer (.bin).
//
// The model imports into a TensorDict with GGUF/llama.cpp tensor names, so that a llama2.c
// model and its GGUF conversion hold the same names and values:
//
//   token_embd.weight          [vocab, dim]        blk.N.attn_norm.weight   [dim]
//   blk.N.attn_q.weight        [dim, dim]          blk.N.attn_k.weight      [kv_dim, dim]
//   blk.N.attn_v.weight        [kv_dim, dim]       blk.N.attn_output.weight [dim, dim]
//   blk.N.ffn_norm.weight      [dim]               blk.N.ffn_gate.weight    [hidden, dim] (w1)
//   blk.N.ffn_down.weight      [dim, hidden] (w2)  blk.N.ffn_up.weight      [hidden, dim] (w3)
//   output_norm.weight         [dim]               output.weight            [vocab, dim]
//
// output.weight is present only for an unshared classifier; with a shared one the classifier
// is token_embd.weight (as in llama.cpp). Matrices are [out, in], row-major. Hyperparameters
// become GGUF-style metadata: general.architecture = "llama", llama.embedding_length,
// llama.feed_forward_length, llama.block_count, llama.attention.head_count,
// llama.attention.head_count_kv, llama.context_length, llama.vocab_size,
// llama.rope.dimension_count (head size) as u32, llama.attention.layer_norm_rms_epsilon = 1e-5
// (f32), and llama2c.shared_classifier (bool). All tensors are f32 views into the file.
#ifndef EDGEQ_CHECKPOINT_LLAMA2C_H_
#define EDGEQ_CHECKPOINT_LLAMA2C_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace checkpoint {

// The 7-int header of a llama2.c model.
struct Llama2cConfig {
  int32_t dim = 0;
  int32_t hidden_dim = 0;
  int32_t n_layers = 0;
  int32_t n_heads = 0;
  int32_t n_kv_heads = 0;
  int32_t vocab_size = 0;  // positive (the file stores it negated for an unshared classifier)
  int32_t seq_len = 0;
  bool shared_classifier = true;
};

absl::StatusOr<TensorDict> ReadLlama2c(const std::string& path);
// Tensors view `data` and keep `owner` (may be null) alive. `data` must be 4-byte aligned.
absl::StatusOr<TensorDict> ReadLlama2cFromBuffer(absl::Span<const uint8_t> data,
                                                 std::shared_ptr<const void> owner);
// Reads the configuration back from a dict's metadata (as written by ReadLlama2c, or a
// llama GGUF's keys): InvalidArgument naming the missing or inconsistent key. The classifier
// is unshared if llama2c.shared_classifier says so, or (without that key) if output.weight
// exists and differs from token_embd.weight.
absl::StatusOr<Llama2cConfig> Llama2cConfigFromMetadata(const TensorDict& dict);
// The inverse: writes the `llama.*` metadata above (and llama2c.shared_classifier) for `config`.
void SetLlama2cConfigMetadata(const Llama2cConfig& config, TensorDict* dict);

// Writes a llama2.c model file from a dict with the names above (f32 tensors) and the
// metadata above (seq_len from llama.context_length). The legacy RoPE table is written as
// zeros (run.c ignores it). Errors name the missing tensor or the wrong shape/dtype.
absl::Status WriteLlama2c(const TensorDict& dict, const std::string& path);
absl::StatusOr<std::string> WriteLlama2cToString(const TensorDict& dict);

// The data of a llama2.c tokenizer file. Encoding and decoding belong to the text pipeline.
struct Llama2cTokenizer {
  int32_t max_token_length = 0;
  std::vector<std::string> pieces;
  std::vector<float> scores;
};

// `vocab_size` > 0 reads exactly that many pieces (the file does not store the count; it is
// the model's vocab_size) and fails if the file has fewer or more; <= 0 reads to the end.
absl::StatusOr<Llama2cTokenizer> ReadLlama2cTokenizer(const std::string& path, int vocab_size = 0);
absl::StatusOr<Llama2cTokenizer> ReadLlama2cTokenizerFromBuffer(absl::Span<const uint8_t> data,
                                                                int vocab_size = 0);

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_LLAMA2C_H_
