// ISA names and run-time detection (cpuinfo, read once; getauxval on aarch64 Linux as a fallback
// and for i8mm, which Debian's 2022 cpuinfo does not report).
#include "runtime/kernels/isa.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/bounded_input.h"
#include "cpuinfo.h"
#include "runtime/kernels/internal/cpu_state.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace edgeq {
namespace kernels {
namespace internal {

bool CpuinfoReady() {
  static const bool ready = cpuinfo_initialize();
  return ready;
}

namespace {

struct IsaSet {
  bool avx2 = false;
  bool avxvnni = false;
  bool avx512vnni = false;
  bool neon = false;
  bool dotprod = false;
  bool i8mm = false;
};

IsaSet DetectIsas() {
  IsaSet s;
#if defined(__x86_64__) || defined(__i386__)
  if (CpuinfoReady()) {
    s.avx2 = cpuinfo_has_x86_avx2() && cpuinfo_has_x86_fma3() && cpuinfo_has_x86_f16c();
    s.avx512vnni = s.avx2 && cpuinfo_has_x86_avx512f() && cpuinfo_has_x86_avx512bw() &&
                   cpuinfo_has_x86_avx512vl() && cpuinfo_has_x86_avx512vnni();
  } else {
    __builtin_cpu_init();
    s.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    s.avx512vnni = s.avx2 && __builtin_cpu_supports("avx512f") &&
                   __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                   __builtin_cpu_supports("avx512vnni");
  }
  // AVX-VNNI: CPUID.(EAX=7, ECX=1):EAX bit 4 (Debian's cpuinfo predates it). The OS saves the
  // YMM state if AVX2 is usable, which the cpuinfo/builtin checks above establish.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  s.avxvnni = s.avx2 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax & (1u << 4)) != 0;
#elif defined(__aarch64__)
  s.neon = true;  // mandatory in ARMv8-A
#if defined(__linux__)
  // The kernel's hwcaps are authoritative (also under qemu-user, which emulates them per -cpu).
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  s.dotprod = (hwcap & (1ul << 20)) != 0;             // HWCAP_ASIMDDP
  s.i8mm = s.dotprod && (hwcap2 & (1ul << 13)) != 0;  // HWCAP2_I8MM
#else
  if (CpuinfoReady()) s.dotprod = cpuinfo_has_arm_neon_dot();
#endif
#endif
  return s;
}

const IsaSet& Isas() {
  static const IsaSet s = DetectIsas();
  return s;
}

}  // namespace
}  // namespace internal

absl::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kGeneric:
      return "generic";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvxVnni:
      return "avxvnni";
    case Isa::kAvx512Vnni:
      return "avx512vnni";
    case Isa::kNeon:
      return "neon";
    case Isa::kNeonDotprod:
      return "dotprod";
    case Isa::kNeonI8mm:
      return "i8mm";
    case Isa::kBest:
      return "best";
  }
  return "unknown";
}

absl::StatusOr<Isa> IsaFromName(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (Isa isa : kAllIsas) {
    if (lower == IsaName(isa)) return isa;
  }
  if (lower == IsaName(Isa::kBest)) return Isa::kBest;
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown ISA \"", name,
      "\"; expected one of generic, avx2, avxvnni, avx512vnni, neon, dotprod, i8mm, best"));
}

bool IsaSupported(Isa isa) {
  const internal::IsaSet& s = internal::Isas();
  switch (isa) {
    case Isa::kGeneric:
      return true;
    case Isa::kAvx2:
      return s.avx2;
    case Isa::kAvxVnni:
      return s.avxvnni;
    case Isa::kAvx512Vnni:
      return s.avx512vnni;
    case Isa::kNeon:
      return s.neon;
    case Isa::kNeonDotprod:
      return s.dotprod;
    case Isa::kNeonI8mm:
      return s.i8mm;
    case Isa::kBest:
      return true;
  }
  return false;
}

Isa BestSupportedIsa() {
  Isa best = Isa::kGeneric;
  for (Isa isa : kAllIsas) {
    if (IsaSupported(isa)) best = isa;
  }
  return best;
}

absl::string_view CoreScheduleName(CoreSchedule s) {
  return s == CoreSchedule::kInOrder ? "inorder" : "outoforder";
}

bool IsInOrderMidr(uint32_t midr) {
  if (((midr >> 24) & 0xFF) != 0x41) return false;  // implementer: Arm Ltd
  switch ((midr >> 4) & 0xFFF) {                    // part number
    case 0xC05:                                     // Cortex-A5
    case 0xC07:                                     // Cortex-A7
    case 0xD01:                                     // Cortex-A32
    case 0xD03:                                     // Cortex-A53
    case 0xD04:                                     // Cortex-A35
    case 0xD05:                                     // Cortex-A55
    case 0xD46:                                     // Cortex-A510
    case 0xD80:                                     // Cortex-A520
      return true;
    default:
      return false;
  }
}

absl::StatusOr<CoreSchedule> ChooseCoreSchedule(absl::Span<const uint32_t> core_midrs,
                                                absl::string_view override_name) {
  if (!override_name.empty()) {
    const std::string lower = absl::AsciiStrToLower(override_name);
    if (lower == "inorder") return CoreSchedule::kInOrder;
    if (lower == "outoforder") return CoreSchedule::kOutOfOrder;
    return absl::InvalidArgumentError(
        absl::StrCat("EDGEQ_CORE_SCHEDULE ", QuoteForError(override_name),
                     " is not a core schedule; expected inorder or outoforder"));
  }
  if (core_midrs.empty()) return CoreSchedule::kOutOfOrder;
  for (uint32_t midr : core_midrs) {
    if (!IsInOrderMidr(midr)) return CoreSchedule::kOutOfOrder;
  }
  return CoreSchedule::kInOrder;
}

namespace {

std::vector<uint32_t> HostCoreMidrs() {
  std::vector<uint32_t> midrs;
#if defined(__aarch64__)
  if (internal::CpuinfoReady()) {
    for (uint32_t i = 0; i < cpuinfo_get_cores_count(); ++i) {
      midrs.push_back(cpuinfo_get_core(i)->midr);
    }
  }
#endif
  return midrs;
}

CoreSchedule HostCoreSchedule() {
  const char* env = std::getenv("EDGEQ_CORE_SCHEDULE");
  const std::vector<uint32_t> midrs = HostCoreMidrs();
  absl::StatusOr<CoreSchedule> s = ChooseCoreSchedule(midrs, env == nullptr ? "" : env);
  if (s.ok()) return *s;
  std::fprintf(stderr, "edgeq: %s; using the automatic choice\n",
               std::string(s.status().message()).c_str());
  return *ChooseCoreSchedule(midrs, "");
}

}  // namespace

namespace internal {

std::atomic<int> core_schedule_state{-1};  // constant-initialized

CoreSchedule FirstActiveCoreSchedule() {
  static const CoreSchedule host = HostCoreSchedule();  // (thread-safe, once)
  int expected = -1;
  core_schedule_state.compare_exchange_strong(expected, static_cast<int>(host));
  return static_cast<CoreSchedule>(core_schedule_state.load(std::memory_order_relaxed));
}

}  // namespace internal

void SetCoreSchedule(CoreSchedule s) {
  internal::core_schedule_state.store(static_cast<int>(s), std::memory_order_relaxed);
}

}  // namespace kernels
}  // namespace edgeq
