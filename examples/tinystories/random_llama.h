// Llama 2 weights with seeded random values, by default of stories15M's shape (dim 288, hidden
// 768, 6 layers, 6 heads, vocab 32000, seq 256): a stand-in for scale and speed measurements
// where the real model cannot be downloaded. Matrices ~ U(-a, a) with a = 1/sqrt(fan_in) from a
// xorshift64* generator; norms are 1. GGUF tensor names and `llama.*` metadata, as
// checkpoint::ReadLlama2c produces them (write it with checkpoint::WriteLlama2c or Save).
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_RANDOM_LLAMA_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_RANDOM_LLAMA_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace tinystories {

struct RandomLlamaOptions {
  // The shape (shared_classifier is ignored: the classifier is always the embedding).
  checkpoint::Llama2cConfig shape = {.dim = 288,
                                     .hidden_dim = 768,
                                     .n_layers = 6,
                                     .n_heads = 6,
                                     .n_kv_heads = 6,
                                     .vocab_size = 32000,
                                     .seq_len = 256};
  uint64_t seed = 15;
};

// InvalidArgument naming every value if the shape is not positive, dim not a multiple of n_heads
// or n_heads not a multiple of n_kv_heads.
absl::StatusOr<checkpoint::TensorDict> RandomLlama(const RandomLlamaOptions& options = {});

}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_RANDOM_LLAMA_H_
