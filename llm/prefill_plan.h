// The one prefill rule: how many prompt tokens one graph run takes, and which block graphs a
// prompt of n tokens runs through. Every front end (edgeq run/chat/perplexity/bench, the C API,
// Python) leaves llm::ModelOptions::prefill_block at its default, kDefaultUbatchSize, unless the
// user overrides it (-ub/--ubatch-size, edgeq_llm_options.ubatch_size, ubatch_size=).
//
// A model with ubatch U has block graphs of 1 token (decode) and of 8, 16, 32, ... tokens
// (powers of two below U) and U, each built on first use, so that a short prompt never pays for a
// large graph; they share one activation arena (edgeq::ActivationArena), sized to the largest
// block used. PlanPrefill chooses the blocks of a prompt.
#ifndef EDGEQ_LLM_PREFILL_PLAN_H_
#define EDGEQ_LLM_PREFILL_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace edgeq {
namespace llm {

// Prompt tokens per graph run by default: llama.cpp's ubatch.
inline constexpr int kDefaultUbatchSize = 512;
// The largest ubatch -ub and the C/Python options accept.
inline constexpr int kMaxUbatchSize = 4096;
// The smallest multi-token block graph (a prompt of 3 to 8 tokens runs as one block of 8).
inline constexpr int kSmallestPrefillBlock = 8;

// The block sizes above 1 of a model with ubatch `ubatch`, ascending: the powers of two from
// kSmallestPrefillBlock below it, then `ubatch` itself (4 -> {4}; 100 -> {8, 16, 32, 64, 100};
// 512 -> {8, 16, 32, 64, 128, 256, 512}); empty for ubatch <= 1 (token by token).
std::vector<int> PrefillBlockSizes(int ubatch);

// The blocks, in order, that run `n` prompt tokens: each takes min(size, tokens left) tokens (a
// last block may be padded); size 1 is a decode step. Chosen to minimize the sum of each run's
// cost in decode steps: 1 for a decode step, 1 + size / 6 for a block (a block streams the weights
// once, as a decode step does, and its matrix-matrix products take about a sixth of a decode step
// per row). Full blocks of the largest size first; `sizes` as PrefillBlockSizes gives them.
std::vector<int> PlanPrefill(int64_t n, absl::Span<const int> sizes);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_PREFILL_PLAN_H_
