// Graph builders of the transformer decoders (llm/model.cc): thin wrappers over the built-in ops
// of the op registry (runtime/ops/rope.cc, gelu_tanh.cc, tanh.cc; graph/ops.h).
//
//   Value q = edgeq::llm::Rope(q_heads, positions, inv_freq, edgeq::llm::RopeMode::kNeox);
//
// Ops the decoders need that edgeq also has as built-in ops: bias add (ops::Add with a [d]
// vector broadcast over rows), head-wise RMSNorm (ops::RmsNorm on [t, heads, head dim] with a
// [head dim] weight: it normalizes the last axis), scaling (ops::Mul by a constant), causal and
// sliding-window attention (ops::Attention with a window).
#ifndef EDGEQ_LLM_OPS_H_
#define EDGEQ_LLM_OPS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "graph/ops.h"

namespace edgeq {
namespace llm {

// Kept for source compatibility: these ops are built-ins now (always registered); returns OK.
absl::Status RegisterLlmOps();

// Which elements RoPE rotates together (llama.cpp's rope types), as ops::RopeMode.
enum class RopeMode {
  kNorm,  // adjacent pairs (2i, 2i+1): Llama, llama2.c (LLAMA_ROPE_TYPE_NORM)
  kNeox,  // halves (i, i + n/2) of the first n = 2 * pairs dimensions: GPT-NeoX, Qwen, Gemma,
          // Phi-3 (LLAMA_ROPE_TYPE_NEOX)
};

// Rotary position embedding (ops::Rope with an angle table). x f32 [t, heads, d], positions i32
// [t], inv_freq f32 [pairs] with 2 * pairs <= d. Pair i of a row at position p turns by the
// angle p * inv_freq[i]; dimensions from 2 * pairs on pass through unchanged.
Value Rope(Value x, Value positions, Value inv_freq, RopeMode mode);

// ops::GeluTanh: the tanh approximation of GELU; with `half_precision_table` as ggml's CPU
// backend computes it (fp16 table), which llm::Model uses to match llama.cpp's GeGLU.
Value GeluTanh(Value x, bool half_precision_table = false);

// tanh(x), element-wise (final logit soft-capping: cap * tanh(logits / cap)): ops::Tanh.
Value Tanh(Value x);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_OPS_H_
