#include "runtime/kernels/cpu_features.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
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

int CountPhysicalCores(const std::string& sysfs_cpu_dir) {
  std::ifstream online(sysfs_cpu_dir + "/online");
  std::string list;
  if (!online || !std::getline(online, list)) return 0;
  // "0-3,6,8-9"
  std::set<std::pair<long, long>> cores;
  for (absl::string_view range : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    std::vector<absl::string_view> ends = absl::StrSplit(range, '-');
    long first = 0, last = 0;
    if (ends.empty() || ends.size() > 2 ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(ends[0]), &first) ||
        !absl::SimpleAtoi(absl::StripAsciiWhitespace(ends.back()), &last) || first > last ||
        last - first > 65536) {
      return 0;
    }
    for (long cpu = first; cpu <= last; ++cpu) {
      const std::string topo = absl::StrCat(sysfs_cpu_dir, "/cpu", cpu, "/topology/");
      std::ifstream package(topo + "physical_package_id"), core(topo + "core_id");
      long package_id = 0, core_id = 0;
      if (!(package >> package_id) || !(core >> core_id)) return 0;
      cores.insert({package_id, core_id});
    }
  }
  return static_cast<int>(cores.size());
}

int DefaultThreadCount() {
  if (const char* env = std::getenv("EDGEQ_NUM_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0 && v <= 4096) return static_cast<int>(v);
  }
  absl::Span<const CoreCluster> clusters = HostClusters();
  bool has_little = false;
  for (const CoreCluster& c : clusters) has_little |= c.little && c.cores > 0;
  if (has_little) return ChooseThreadCount(clusters);
  const int physical = CountPhysicalCores("/sys/devices/system/cpu");
  if (physical > 0) return physical;
  if (!clusters.empty()) return ChooseThreadCount(clusters);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? static_cast<int>(online) : 1;
}

}  // namespace kernels
}  // namespace edgeq
