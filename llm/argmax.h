// The greedy choice over a row of logits, vectorized: the index std::max_element gives.
#ifndef EDGEQ_LLM_ARGMAX_H_
#define EDGEQ_LLM_ARGMAX_H_

#include "absl/types/span.h"

namespace edgeq {
namespace llm {

// std::max_element(v.begin(), v.end()) - v.begin(), by NEON (aarch64) or SSE2 (x86-64) in two
// passes over v (the maximum, then its first index): the first index of the maximum; NaN never
// replaces the best so far, so a NaN at index 0 gives 0 and any later NaN is passed over; +0 and
// -0 are equal (the first of them); 0 for an empty v.
int ArgMax(absl::Span<const float> v);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ARGMAX_H_
