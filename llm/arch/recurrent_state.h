// The recurrent-state mechanism shared by the architectures with recurrent layers (lfm2's short
// convolutions, qwen35's gated delta-net): the states are per-layer f32 tensors the model keeps
// beside the KV cache (ModelConfig::recurrent_states; one set per model = one sequence), zero
// after Load and whenever a run starts at position 0. They enter each body graph as inputs
// (LayerGraph::StateInput), the graph outputs their new values (LayerGraph::SetStateOutput) and
// the model copies those back after each block. Prefill blocks are padded: the recurrent ops
// take the block's real row count (LayerGraph::real_rows) and keep padding rows out of the
// states. A run cannot rewind (start anywhere but 0 or the end of what was processed): the
// states hold no history (Model::Prefill: FailedPrecondition).
#ifndef EDGEQ_LLM_ARCH_RECURRENT_STATE_H_
#define EDGEQ_LLM_ARCH_RECURRENT_STATE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "llm/arch/model_config.h"

namespace edgeq {
namespace llm {

// The causal depthwise convolution with state (op "ssm_conv", runtime/ops/ssm_conv.cc): x [t, c]
// (rows past `real_rows` are padding), state [k - 1, c], weight [c, k] (taps oldest first),
// real_rows i32 [1]. y [t, c]: y[i] = sum_j weight[.][j] * (state ++ x)[i + j]; new_state
// [k - 1, c]: the last k - 1 rows of state ++ x[0..real_rows).
struct SsmConvResult {
  Value y, new_state;
};
SsmConvResult SsmConv(Value x, Value state, Value weight, Value real_rows);

// The zeroed state tensors of `c` (ModelConfig::recurrent_states); InvalidArgument naming a
// layer whose state has no elements or a non-positive dimension.
absl::StatusOr<std::vector<Tensor>> NewRecurrentStates(const ModelConfig& c);
// Sets every state to zero (the start of a sequence).
void ZeroRecurrentStates(std::vector<Tensor>* states);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ARCH_RECURRENT_STATE_H_
