// CPU topology helpers for the qmatmul kernels: the default thread count.
//
// (ISA detection lives in qmatmul.h: IsaSupported / BestSupportedIsa.)
#ifndef EDGEQ_RUNTIME_KERNELS_CPU_FEATURES_H_
#define EDGEQ_RUNTIME_KERNELS_CPU_FEATURES_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"

namespace edgeq {
namespace kernels {

// One cluster of identical cores, as cpuinfo describes it.
struct CoreCluster {
  int cores = 0;              // physical cores in the cluster
  bool little = false;        // in-order efficiency cores (Cortex-A53/A55/A510/A520, A35, A7, ...)
  uint64_t frequency_hz = 0;  // 0 when unknown
};

// The number of threads a compute-bound kernel should use on this topology: the cores of the
// fastest tier. Big/prime clusters (out-of-order cores) form that tier together, little clusters
// are left out (4 little + 4 big -> 4; 1 prime + 3 big + 4 little -> 4). If every cluster is
// little (or all are big, as on x86) all cores count. Returns >= 1 (1 for an empty description).
int ChooseThreadCount(absl::Span<const CoreCluster> clusters);

// The topology of this machine from cpuinfo (read once); empty if cpuinfo is unavailable.
absl::Span<const CoreCluster> HostClusters();

// Physical cores (distinct package/core id pairs of the online CPUs) under a Linux sysfs CPU
// directory such as "/sys/devices/system/cpu"; 0 if it cannot be read.
int CountPhysicalCores(const std::string& sysfs_cpu_dir);

// The default number of threads: EDGEQ_NUM_THREADS if it holds a positive integer; else, where
// cpuinfo reports little cores, ChooseThreadCount(HostClusters()); else the physical cores sysfs
// lists (cpuinfo miscounts the cores of some virtual machines: one 2-core VM shows up as one
// core with an empty second cluster); else ChooseThreadCount(HostClusters()); else the number of
// online processors.
int DefaultThreadCount();

}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_CPU_FEATURES_H_
