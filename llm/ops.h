// Graph ops of the transformer decoders (llm/model.cc), as edgeq custom ops (runtime/custom_op.h)
// with graph builders. RegisterLlmOps() must have succeeded before a graph using them is loaded
// (Model::Load calls it; it is idempotent).
//
//   EDGEQ_RETURN_IF_ERROR(edgeq::llm::RegisterLlmOps());
//   Value q = edgeq::llm::Rope(q_heads, positions, inv_freq, edgeq::llm::RopeMode::kNeox);
//
// Ops the decoders need that edgeq already has as built-in ops: bias add (ops::Add with a [d]
// vector broadcast over rows), head-wise RMSNorm (ops::RmsNorm on [t, heads, head dim] with a
// [head dim] weight: it normalizes the last axis), scaling (ops::Mul by a constant), causal and
// sliding-window attention (ops::Attention with a window).
#ifndef EDGEQ_LLM_OPS_H_
#define EDGEQ_LLM_OPS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "graph/graph.h"

namespace edgeq {
namespace llm {

// Op names in the custom-op registry.
inline constexpr char kRopeOpName[] = "llm.rope";
inline constexpr char kRopeNeoxOpName[] = "llm.rope_neox";
inline constexpr char kGeluTanhOpName[] = "llm.gelu_tanh";
inline constexpr char kGeluTanhF16OpName[] = "llm.gelu_tanh_f16";
inline constexpr char kTanhOpName[] = "llm.tanh";

// Registers the ops above (once per process; later calls return the first result).
absl::Status RegisterLlmOps();

// Which elements RoPE rotates together (llama.cpp's rope types).
enum class RopeMode {
  kNorm,  // adjacent pairs (2i, 2i+1): Llama, llama2.c (LLAMA_ROPE_TYPE_NORM)
  kNeox,  // halves (i, i + n/2) of the first n = 2 * pairs dimensions: GPT-NeoX, Qwen, Gemma,
          // Phi-3 (LLAMA_ROPE_TYPE_NEOX)
};

// Rotary position embedding. x f32 [t, heads, d], positions i32 [t], inv_freq f32 [pairs] with
// 2 * pairs <= d. Pair i of a row at position p turns by the angle p * inv_freq[i]; dimensions
// from 2 * pairs on pass through unchanged.
Value Rope(Value x, Value positions, Value inv_freq, RopeMode mode);

// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): the tanh approximation of GELU (GeGLU of
// Gemma). With `half_precision_table`, as ggml's CPU backend computes it for f32 (ggml_gelu,
// ggml_geglu: GGML_GELU_FP16): x <= -10 gives 0, x >= 10 gives x, otherwise x is rounded to fp16
// and the result is the fp16 rounding of the formula at that value (a 64K-entry table). This
// differs from the formula by up to ~1e-3 relative per element, enough to move the logits of a
// GeGLU model by ~5e-4 relative, so llm::Model uses it to match llama.cpp.
Value GeluTanh(Value x, bool half_precision_table = false);

// tanh(x), element-wise (final logit soft-capping: cap * tanh(logits / cap)).
Value Tanh(Value x);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_OPS_H_
