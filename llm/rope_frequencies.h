// The RoPE angle table of a model: for each rotated pair i of a head, the angle per position
// base^(-2i/n_rot) (computed in float as run.c does), divided by the pair's frequency factor
// (rope_freqs.weight, phi3's rope_factors_long/short, or Llama 3.1's from the rope.scaling.* keys)
// and by a linear scaling factor. The sliding-window layers (Gemma 3) have a table of their own:
// their base (rope.freq_base_swa), no factors and no scaling, as llama.cpp's
// rope_freq_base_train_swa with rope_freq_scale_train_swa = 1.
//
//   EDGEQ_ASSIGN_OR_RETURN(Tensor inv_freq, RopeFrequencies(config, weights, context, false));
#ifndef EDGEQ_LLM_ROPE_FREQUENCIES_H_
#define EDGEQ_LLM_ROPE_FREQUENCIES_H_

#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "llm/arch/model_config.h"

namespace edgeq {
namespace llm {

// f32 [rope_dimension_count / 2]. `weights` holds the factor tensors if the model has them
// (f32, at least rope_dimension_count / 2 values); phi3 uses its long factors when `context`
// exceeds rope.scaling.original_context_length, else the short ones. `sliding_window`: the
// table of the sliding-window layers. InvalidArgument naming a factor tensor that is not f32 or
// has fewer values than pairs.
absl::StatusOr<Tensor> RopeFrequencies(const ModelConfig& c, const checkpoint::TensorDict& weights,
                                       int context, bool sliding_window);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ROPE_FREQUENCIES_H_
