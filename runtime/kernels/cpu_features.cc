#include "runtime/kernels/cpu_features.h"

#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "cpuinfo.h"
#include "runtime/kernels/internal/cpu_state.h"

namespace edgeq {
namespace kernels {

int ChooseThreadCount(absl::Span<const CoreCluster> clusters) {
  int big = 0, all = 0;
  for (const CoreCluster& c : clusters) {
    if (c.cores <= 0) continue;
    all += c.cores;
    if (!c.little) big += c.cores;
  }
  if (big > 0) return big;
  return all > 0 ? all : 1;
}

namespace {

bool IsLittleUarch(cpuinfo_uarch u) {
  switch (u) {
    case cpuinfo_uarch_cortex_a5:
    case cpuinfo_uarch_cortex_a7:
    case cpuinfo_uarch_cortex_a32:
    case cpuinfo_uarch_cortex_a35:
    case cpuinfo_uarch_cortex_a53:
    case cpuinfo_uarch_cortex_a55r0:
    case cpuinfo_uarch_cortex_a55:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::Span<const CoreCluster> HostClusters() {
  static const std::vector<CoreCluster>* clusters = [] {
    auto* v = new std::vector<CoreCluster>();
    if (!internal::CpuinfoReady()) return v;
    for (uint32_t i = 0; i < cpuinfo_get_clusters_count(); ++i) {
      const cpuinfo_cluster* c = cpuinfo_get_cluster(i);
      v->push_back({static_cast<int>(c->core_count), IsLittleUarch(c->uarch), c->frequency});
    }
    return v;
  }();
  return *clusters;
}

int DefaultThreadCount() {
  if (const char* env = std::getenv("EDGEQ_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0 && v <= 4096) return static_cast<int>(v);
  }
  absl::Span<const CoreCluster> clusters = HostClusters();
  if (!clusters.empty()) return ChooseThreadCount(clusters);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

}  // namespace kernels
}  // namespace edgeq
