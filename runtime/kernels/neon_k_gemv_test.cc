// The q4_k / q6_k GEMVs of CPUs without dotprod (runtime/kernels/arm/arm_common.h: K45Tile and
// Q6KTile over NeonDot16, whose one-row tile runs Q4KNeonDots256 / Q6KNeonDots128, asm scheduled
// for in-order cores) against the same kernels' GEMMs, whose two-row tile runs the C++ steps: each
// GEMV output equals the GEMM's output of the same activation row bit for bit (the same int32
// lanes, the same f32 operations), is within the reference's tolerance, and nothing is written
// outside y; every n from 1 to 24 at 1, 2, 3 and 9 super-blocks.
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

using test_util::ExpectMatchesReference;
using test_util::FindKernelEntry;
using test_util::MakeProblem;
using test_util::Problem;
using test_util::RunKernel;

// Row r of p as a one-row problem.
Problem Row(const Problem& p, int64_t r) {
  Problem q = p;
  q.m = 1;
  q.x.assign(p.x.begin() + r * p.x_stride, p.x.begin() + r * p.x_stride + p.k);
  q.x.resize(p.x_stride);
  return q;
}

TEST(NeonKGemvTest, GemvEqualsTheGemmsTwoRowTile) {
  int ran = 0;
  for (const std::string type : {"q4_k", "q6_k"}) {
    const internal::KernelEntry* gemv = FindKernelEntry(type + "_neon_gemv");
    const internal::KernelEntry* gemm = FindKernelEntry(type + "_neon_gemm");
    if (gemv == nullptr || gemm == nullptr || !IsaSupported(gemv->isa)) continue;
    ++ran;
    const int64_t blocks[] = {1, 2, 3, 9};
    int64_t compared = 0;
    for (int64_t n = 1; n <= 24; ++n) {
      const int64_t k = 256 * blocks[n % 4];
      const Problem p = MakeProblem(gemv->encoding, 2, n, k, static_cast<uint32_t>(n));
      auto gemm_kernel = internal::CreateForEntry(gemm, n, k, p.w);
      auto gemv_kernel = internal::CreateForEntry(gemv, n, k, p.w);
      ASSERT_TRUE(gemm_kernel.ok()) << gemm_kernel.status();
      ASSERT_TRUE(gemv_kernel.ok()) << gemv_kernel.status();
      const std::vector<float> two_rows = RunKernel(**gemm_kernel, p, 1);  // Tile<2>
      for (int64_t r = 0; r < 2; ++r) {
        const Problem row = Row(p, r);
        const std::vector<float> y = RunKernel(**gemv_kernel, row, 1);
        const std::string what = absl::StrCat(gemv->name, " n=", n, " k=", k, " row ", r);
        for (int64_t j = 0; j < n; ++j) {
          uint32_t a, b;
          std::memcpy(&a, &y[j], 4);
          std::memcpy(&b, &two_rows[r * (n + 1) + j], 4);
          EXPECT_EQ(a, b) << what << ": output " << j << " GEMV " << y[j] << ", GEMM "
                          << two_rows[r * (n + 1) + j];
          compared += a == b;
        }
        ExpectMatchesReference(row, y, what);
      }
    }
    EXPECT_EQ(compared, 2 * 24 * 25 / 2) << type;
  }
  if (ran == 0) GTEST_SKIP() << "no NEON q4_k/q6_k kernels on this CPU (not ARM)";
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
