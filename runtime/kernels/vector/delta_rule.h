// The gated delta rule's per-token state update (the inner loop of the `gated_delta_net` op,
// Qwen3-Next / Qwen3.5 linear attention), one implementation per ISA chosen at run time like the
// activation kernels. For one token and one value head, over the s rows m_j of the state
// (row j: value dim j, s key-dim floats; ggml's transposed layout):
//   m_j *= decay;  d_j = (v[j] - m_j . k) * b;  m_j += k * d_j;  o[j] = (m_j . q) * scale.
// Every dot product keeps 16 partial sums (element i into lane i % 16, in order) added pairwise
// (8, 4, 2, 1 apart), every product and sum rounded on its own (no fused multiply-add: the files
// build with -ffp-contract=off), so that all kernels give the same bits on every ISA.
#ifndef EDGEQ_RUNTIME_KERNELS_VECTOR_DELTA_RULE_H_
#define EDGEQ_RUNTIME_KERNELS_VECTOR_DELTA_RULE_H_

#include <cstdint>

#include "absl/types/span.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {

struct DeltaRuleKernel {
  const char* name;  // "delta_rule_avx512", ...
  Isa isa;
  // The update above on m [s, s] (in place) and o [s]; k, q, v [s]. Any s >= 1 (the SIMD
  // kernels run lengths that are not a multiple of 16 through the generic code).
  void (*token)(float* m, const float* k, const float* q, const float* v, float decay, float b,
                float scale, int64_t s, float* o);
};

// The best kernel this CPU supports at or below `cap` (generic at worst).
const DeltaRuleKernel& SelectDeltaRuleKernel(Isa cap = Isa::kBest);

// Every kernel compiled into this binary (supported by this CPU or not), generic first.
absl::Span<const DeltaRuleKernel* const> AllDeltaRuleKernels();

namespace internal {
// The generic update (the reference of the others, and their path for s % 16 != 0).
void DeltaRuleTokenGeneric(float* m, const float* k, const float* q, const float* v, float decay,
                           float b, float scale, int64_t s, float* o);
// The ISA files' entries (null where the file is not compiled for this architecture).
extern const DeltaRuleKernel kDeltaRuleGeneric;
extern const DeltaRuleKernel* const kDeltaRuleAvx2;
extern const DeltaRuleKernel* const kDeltaRuleAvx512;
extern const DeltaRuleKernel* const kDeltaRuleNeon;
}  // namespace internal

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_VECTOR_DELTA_RULE_H_
