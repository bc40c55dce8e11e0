#include "runtime/kernels/cpu_features.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace edgeq {
namespace kernels {
namespace {

TEST(ChooseThreadCountTest, DescribedTopologies) {
  // 4 Cortex-A53 + 4 Cortex-A73 (e.g. Kirin 960): the 4 big cores.
  const CoreCluster little_big[] = {{4, true, 1800000000}, {4, false, 2400000000}};
  EXPECT_EQ(ChooseThreadCount(little_big), 4);
  // 1 prime (X1) + 3 big (A78) + 4 little (A55): prime and big cores form the fast tier.
  const CoreCluster prime_big_little[] = {
      {1, false, 2840000000}, {3, false, 2420000000}, {4, true, 1800000000}};
  EXPECT_EQ(ChooseThreadCount(prime_big_little), 4);
  // 2 big + 6 little (e.g. Helio G90): 2.
  const CoreCluster two_six[] = {{6, true, 2000000000}, {2, false, 2050000000}};
  EXPECT_EQ(ChooseThreadCount(two_six), 2);
  // All little (Raspberry Pi 3: 4 x A53): all 4.
  const CoreCluster all_little[] = {{4, true, 1200000000}};
  EXPECT_EQ(ChooseThreadCount(all_little), 4);
  // x86 desktop: one cluster of 8 cores.
  const CoreCluster x86[] = {{8, false, 0}};
  EXPECT_EQ(ChooseThreadCount(x86), 8);
  EXPECT_EQ(ChooseThreadCount({}), 1);
}

TEST(DefaultThreadCountTest, EnvironmentOverrides) {
  ASSERT_EQ(setenv("EDGEQ_NUM_THREADS", "3", 1), 0);
  EXPECT_EQ(DefaultThreadCount(), 3);
  ASSERT_EQ(setenv("EDGEQ_NUM_THREADS", "zero", 1), 0);
  EXPECT_GE(DefaultThreadCount(), 1);
  ASSERT_EQ(unsetenv("EDGEQ_NUM_THREADS"), 0);
  EXPECT_GE(DefaultThreadCount(), 1);
}

// A fake sysfs CPU directory: `online` and per-CPU (package, core) ids.
std::string FakeSysfs(const std::string& name, const std::string& online,
                      const std::vector<std::pair<int, int>>& ids) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/" + name;
  mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/online") << online << "\n";
  for (size_t cpu = 0; cpu < ids.size(); ++cpu) {
    const std::string c = dir + "/cpu" + std::to_string(cpu);
    mkdir(c.c_str(), 0755);
    mkdir((c + "/topology").c_str(), 0755);
    std::ofstream(c + "/topology/physical_package_id") << ids[cpu].first << "\n";
    std::ofstream(c + "/topology/core_id") << ids[cpu].second << "\n";
  }
  return dir;
}

TEST(CountPhysicalCoresTest, CountsDistinctCoresOfOnlineCpus) {
  // 4 CPUs, 2 SMT siblings per core.
  EXPECT_EQ(CountPhysicalCores(FakeSysfs("smt", "0-3", {{0, 0}, {0, 1}, {0, 0}, {0, 1}})), 2);
  // Two packages with the same core ids.
  EXPECT_EQ(CountPhysicalCores(FakeSysfs("two_pkg", "0-3", {{0, 0}, {0, 1}, {1, 0}, {1, 1}})), 4);
  // Only CPUs 0 and 2 online.
  EXPECT_EQ(CountPhysicalCores(FakeSysfs("holes", "0,2", {{0, 0}, {0, 1}, {0, 2}})), 2);
  EXPECT_EQ(CountPhysicalCores(FakeSysfs("bad", "0-x", {{0, 0}})), 0);
  EXPECT_EQ(CountPhysicalCores("/nonexistent"), 0);
  // The host: at least one core, and no more than the online processors.
  const int host = CountPhysicalCores("/sys/devices/system/cpu");
  EXPECT_LE(host, sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
