// The q4_k / q6_k R4 kernels' two schedules (runtime/kernels/arm/q4_k_r4.h, q6_k_r4.h: on in-order
// cores Q4KR4DotprodInOrderTile for the q4_k GEMV and GEMMs, Q6KR4DotprodInOrderGemvTile for the
// q6_k GEMV; Q4KR4DotprodTile / Q6KR4DotprodTile on out-of-order cores): the same outputs bit for
// bit, within the reference's tolerance, and nothing written outside y, over the tile tails: every
// n from 1 to 49 (a partial last group of four rows, 1 to 4 tasks of 16 columns) at 1, 2, 3 and 9
// super-blocks, the GEMVs at m = 1 and the GEMMs (dotprod, and i8mm where the CPU has it) over
// m = 1..16 (tiles of 4, 2 and 1 rows).
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

TEST(KR4GemvScheduleTest, BothSchedulesAgreeOverTheTileTails) {
  const CoreSchedule before = ActiveCoreSchedule();
  int ran = 0;
  for (const std::string type : {"q4_k", "q6_k"}) {
    const internal::KernelEntry* gemv = FindKernelEntry(type + "_dotprod_gemv");
    const internal::KernelEntry* gemm = FindKernelEntry(type + "_dotprod_gemm");
    const internal::KernelEntry* i8mm = FindKernelEntry(type + "_i8mm_gemm");
    if (gemv == nullptr || gemm == nullptr || !IsaSupported(gemv->isa)) continue;
    const bool with_i8mm = i8mm != nullptr && IsaSupported(i8mm->isa);
    ++ran;
    const int64_t blocks[] = {1, 2, 3, 9};
    int64_t compared = 0, expected = 0;
    for (int64_t n = 1; n <= 49; ++n) {
      const int64_t k = 256 * blocks[n % 4];
      compared += ExpectSchedulesAgree(gemv, 1, n, k, static_cast<uint32_t>(n));
      const int64_t m = 1 + (n - 1) % 16;  // m = 1..16 three times over
      compared += ExpectSchedulesAgree(gemm, m, n, k, static_cast<uint32_t>(100 + n));
      if (with_i8mm)
        compared += ExpectSchedulesAgree(i8mm, m, n, k, static_cast<uint32_t>(200 + n));
      // Every output (RunKernel's y: m rows of n + 1, the guard column included).
      expected += (1 + (with_i8mm ? 2 : 1) * m) * (n + 1);
    }
    EXPECT_EQ(compared, expected) << type;
  }
  SetCoreSchedule(before);
  if (ran == 0) GTEST_SKIP() << "no q4_k/q6_k dotprod GEMV on this CPU (not ARM dotprod)";
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
