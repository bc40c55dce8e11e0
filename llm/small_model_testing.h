// The small random model llm/model_test.cc and llm/model_arch_test.cc share.
#ifndef EDGEQ_LLM_SMALL_MODEL_TESTING_H_
#define EDGEQ_LLM_SMALL_MODEL_TESTING_H_

#include <utility>

#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {

// A small model with every feature at once: GQA (4 heads, 2 kv heads), head dim 12, llama3
// rope_freqs, rope base 500000; tied unless `tied` is false.
inline RandomModelSpec SmallSpec(bool tied = true) {
  RandomModelSpec s = *RandomModelPreset("llama-3.2-1b");
  s.dim = 48, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 40, s.vocab = 37;
  s.context = 64, s.tied = tied, s.seed = 3;
  // Small original context so that the factors are not all 1 at head dim 12.
  s.rope_original_context = 16, s.rope_factor = 8.0f;
  return s;
}

inline checkpoint::TensorDict SmallModel(bool tied = true) {
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(SmallSpec(tied));
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_SMALL_MODEL_TESTING_H_
