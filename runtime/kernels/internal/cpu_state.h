// Process-wide CPU state read once: cpuinfo initialization and the ISA levels this CPU supports.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_CPU_STATE_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_CPU_STATE_H_

namespace edgeq {
namespace kernels {
namespace internal {

// True if cpuinfo_initialize() succeeded (called once, thread-safe).
bool CpuinfoReady();

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_CPU_STATE_H_
