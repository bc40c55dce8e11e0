// Instruction-set levels of the kernels and run-time CPU detection. Every per-ISA kernel family
// (qmatmul, attention, activations) tags its entries with an Isa and is chosen by
// internal/select_kernel.h; the flags each level is compiled with are in isa.bzl.
#ifndef EDGEQ_RUNTIME_KERNELS_ISA_H_
#define EDGEQ_RUNTIME_KERNELS_ISA_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {
namespace kernels {

// Instruction-set levels, ordered: a cap of kAvx2 allows kGeneric and kAvx2. x86 and ARM levels
// share one scale; a level of the other architecture is never supported.
enum class Isa : int {
  kGeneric = 0,        // portable scalar C++
  kAvx2 = 10,          // x86-64: AVX2 + FMA + F16C
  kAvxVnni = 15,       // x86-64: AVX2 + AVX-VNNI (VEX vpdpbusd; e.g. Alder Lake without AVX-512)
  kAvx512Vnni = 20,    // x86-64: AVX-512 F/BW/VL + VNNI
  kNeon = 110,         // ARMv8-A NEON
  kNeonDotprod = 120,  // ARMv8.2-A dotprod (vdotq_s32)
  kNeonI8mm = 130,     // ARMv8.6-A i8mm (vmmlaq_s32)
  kBest = 1000,        // no cap
};

absl::string_view IsaName(Isa isa);                  // "generic", "avx2", ...
absl::StatusOr<Isa> IsaFromName(absl::string_view);  // inverse; "best" -> kBest

// True if this CPU can run code of `isa` (read once per process through cpuinfo).
bool IsaSupported(Isa isa);
// The highest level this CPU supports.
Isa BestSupportedIsa();

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ISA_H_
