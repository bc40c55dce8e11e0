// Instruction-set levels of the kernels and run-time CPU detection. Every per-ISA kernel family
// (qmatmul, attention, activations) tags its entries with an Isa and is chosen by
// internal/select_kernel.h; the flags each level is compiled with are in isa.bzl.
#ifndef EDGEQ_RUNTIME_KERNELS_ISA_H_
#define EDGEQ_RUNTIME_KERNELS_ISA_H_

#include <atomic>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

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

// Every level, in order (not kBest, which is no level but the absence of a cap).
inline constexpr Isa kAllIsas[] = {Isa::kGeneric,    Isa::kAvx2, Isa::kAvxVnni,
                                   Isa::kAvx512Vnni, Isa::kNeon, Isa::kNeonDotprod,
                                   Isa::kNeonI8mm};

absl::string_view IsaName(Isa isa);                  // "generic", "avx2", ...
absl::StatusOr<Isa> IsaFromName(absl::string_view);  // inverse; "best" -> kBest

// True if this CPU can run code of `isa` (read once per process through cpuinfo).
bool IsaSupported(Isa isa);
// The highest level this CPU supports.
Isa BestSupportedIsa();

// The instruction schedule of the ARM kernels that have one per core type (where one schedule
// cannot serve both: the dotprod GEMVs of the R4 types, runtime/kernels/arm/r4_common.h; see
// benchmarks/arm_sim/README.md). Every other kernel has one schedule for all cores.
enum class CoreSchedule : int {
  kOutOfOrder = 0,  // Cortex-A76/X, Neoverse, Apple, ...; also the default for unknown cores
  kInOrder = 1,     // Cortex-A5/A7/A32/A35/A53/A55/A510/A520
};

absl::string_view CoreScheduleName(CoreSchedule s);  // "outoforder", "inorder"

// True for the MIDR_EL1 of an Arm Ltd in-order core (part numbers of Cortex-A5, A7, A32, A35,
// A53, A55, A510, A520).
bool IsInOrderMidr(uint32_t midr);

// The one selection rule. `override_name` (EDGEQ_CORE_SCHEDULE), when not empty, decides:
// "inorder" or "outoforder" (an error naming the value otherwise). Else kInOrder if `core_midrs`
// (one MIDR_EL1 per core, 0 when unknown) is not empty and every core is in-order: the kernels'
// threads run on the fastest tier (cpu_features.h), so one out-of-order core makes the choice
// kOutOfOrder, and so does any core of unknown type (as under qemu-user, where cpuinfo reads the
// host's /proc/cpuinfo and reports no ARM core) or no list at all (x86).
absl::StatusOr<CoreSchedule> ChooseCoreSchedule(absl::Span<const uint32_t> core_midrs,
                                                absl::string_view override_name);

namespace internal {
// ActiveCoreSchedule's choice: -1 until made, then a CoreSchedule.
extern std::atomic<int> core_schedule_state;
// Makes the choice (first call) and returns it.
CoreSchedule FirstActiveCoreSchedule();
}  // namespace internal

// The schedule in use: on first call ChooseCoreSchedule(this machine's cores from cpuinfo,
// getenv("EDGEQ_CORE_SCHEDULE")); an invalid EDGEQ_CORE_SCHEDULE is reported once on stderr and
// the rule then ignores it. SetCoreSchedule replaces it for the process (tests, benchmarks).
// Inline: the GEMV kernels ask at every call (tens of thousands per decode token), and after the
// first call this is one load and one compare (integer code only, the same in every kernel file
// whatever its -m flags).
inline CoreSchedule ActiveCoreSchedule() {
  const int s = internal::core_schedule_state.load(std::memory_order_relaxed);
  return s >= 0 ? static_cast<CoreSchedule>(s) : internal::FirstActiveCoreSchedule();
}
void SetCoreSchedule(CoreSchedule s);

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ISA_H_
