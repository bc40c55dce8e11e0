// Elementwise activations on f32 vectors: SiLU, and SwiGLU (silu(gate) * up, the gated FFN's
// product in one pass). One implementation per ISA (generic, AVX2 + FMA, AVX-512, NEON), chosen
// at run time like the qmatmul and attention kernels; the SIMD ones compute e^-x with the
// polynomial of exp_*.h (relative error < 2e-7 against the generic std::exp).
#ifndef EDGEQ_RUNTIME_KERNELS_VECTOR_ACTIVATION_H_
#define EDGEQ_RUNTIME_KERNELS_VECTOR_ACTIVATION_H_

#include <cstdint>

#include "absl/types/span.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {

struct ActivationKernel {
  const char* name;  // "activation_avx512", ...
  Isa isa;
  // y[i] = x[i] / (1 + e^-x[i]); y may be x.
  void (*silu)(const float* x, float* y, int64_t n);
  // y[i] = silu(gate[i]) * up[i]; y may be gate or up.
  void (*swiglu)(const float* gate, const float* up, float* y, int64_t n);
};

// The best kernel this CPU supports at or below `cap` (generic at worst).
const ActivationKernel& SelectActivationKernel(Isa cap = Isa::kBest);

// Every kernel compiled into this binary (supported by this CPU or not), generic first.
absl::Span<const ActivationKernel* const> AllActivationKernels();

namespace internal {
// The ISA files' entries (null where the file is not compiled for this architecture).
extern const ActivationKernel kActivationGeneric;
extern const ActivationKernel* const kActivationAvx2;
extern const ActivationKernel* const kActivationAvx512;
extern const ActivationKernel* const kActivationNeon;
}  // namespace internal

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_VECTOR_ACTIVATION_H_
