// The q4_0 / q8_0 dotprod pair GEMMs' two schedules (runtime/kernels/arm/r4_pair_inorder.h: the
// in-order asm loop of the 4-pair tile; r4_common.h's R4SdotPairs on out-of-order cores): the same
// outputs bit for bit, within the reference's tolerance, and nothing written outside y, over the
// tile tails: every n from 1 to 49 (a partial last group of four rows, 1 to 3 tasks of 16 columns),
// every m from 1 to 16 (pair tiles of 4, 2 and 1, an odd last row) and m = 67.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/isa.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace kernels {
namespace {

using test_util::ExpectSchedulesAgree;
using test_util::FindKernelEntry;

TEST(R4PairScheduleTest, BothSchedulesAgreeOverTheTileTails) {
  const CoreSchedule before = ActiveCoreSchedule();
  int ran = 0;
  for (const std::string name : {"q4_0_dotprod_gemm", "q8_0_dotprod_gemm"}) {
    const internal::KernelEntry* e = FindKernelEntry(name);
    if (e == nullptr || !IsaSupported(e->isa)) continue;
    ++ran;
    const int64_t blocks[] = {1, 2, 3, 9};
    int64_t compared = 0;
    for (int64_t n = 1; n <= 49; ++n) {  // m = 1..16 three times over
      const int64_t m = 1 + (n - 1) % 16, k = 32 * blocks[n % 4];
      compared += ExpectSchedulesAgree(e, m, n, k, static_cast<uint32_t>(n));
    }
    for (const int64_t n : {13, 45}) compared += ExpectSchedulesAgree(e, 67, n, 32 * 5, 67);
    // Every output of every case (RunKernel's y: m rows of n + 1, the guard column included).
    int64_t expected = 67 * (14 + 46);
    for (int64_t n = 1; n <= 49; ++n) expected += (1 + (n - 1) % 16) * (n + 1);
    EXPECT_EQ(compared, expected) << name;
  }
  SetCoreSchedule(before);
  if (ran == 0) GTEST_SKIP() << "no q4_0/q8_0 dotprod GEMM on this CPU (not ARM dotprod)";
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
