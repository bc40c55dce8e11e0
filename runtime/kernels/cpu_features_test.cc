#include "runtime/kernels/cpu_features.h"

#include <cstdlib>

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

}  // namespace
}  // namespace kernels
}  // namespace edgeq
