// The q4_k and q6_k i8mm GEMMs (runtime/kernels/arm/q4_k_i8mm.cc, q6_k_i8mm.cc, k_r4_i8mm.h:
// smmla tiles over the Q4_KR4 / Q6_KR4 layouts, the activations zipped in pairs per tile) against
// the dotprod GEMMs that i8mm CPUs ran before (q4_k_r4.h, q6_k_r4.h, the same layouts): the same
// outputs bit for bit, within the reference's tolerance, and nothing written outside y, over the
// tile tails: every n from 1 to 49 (a partial last group of four rows, 1 to 4 tasks of 16 columns)
// with m = 1..16 three times over (pair tiles of 4, 2 and 1, an odd last row) at 1, 2, 3 and 5
// super-blocks; and 17 super-blocks (the zipped activations in two chunks) at m = 19 (1 thread)
// and 8 (2 threads).
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

using test_util::FindKernelEntry;

// Runs both entries on the seeded m x n x k problem; returns the outputs compared (0 after a
// failure).
int64_t ExpectSameOutputs(const internal::KernelEntry* e, const internal::KernelEntry* base,
                          int64_t m, int64_t n, int64_t k, uint32_t seed, int threads) {
  const test_util::Problem p = test_util::MakeProblem(e->encoding, m, n, k, seed);
  auto kernel = internal::CreateForEntry(e, n, k, p.w);
  auto baseline = internal::CreateForEntry(base, n, k, p.w);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_TRUE(baseline.ok()) << baseline.status();
  if (!kernel.ok() || !baseline.ok()) return 0;
  const std::string what = absl::StrCat(e->name, " m=", m, " n=", n, " k=", k);
  const std::vector<float> got = test_util::RunKernel(**kernel, p, threads);
  const std::vector<float> want = test_util::RunKernel(**baseline, p, 1);
  EXPECT_EQ(got.size(), want.size()) << what;
  if (got.size() != want.size()) return 0;
  for (size_t i = 0; i < got.size(); ++i) {
    uint32_t a, b;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want[i], 4);
    if (a != b) {
      ADD_FAILURE() << what << ": output " << i << " = " << got[i] << ", " << base->name << " "
                    << want[i];
      return 0;
    }
  }
  test_util::ExpectMatchesReference(p, got, what);
  return static_cast<int64_t>(got.size());
}

TEST(KR4I8mmTest, MatchesTheDotprodGemmsBitForBit) {
  int ran = 0;
  for (const std::string type : {"q4_k", "q6_k"}) {
    const internal::KernelEntry* i8mm = FindKernelEntry(type + "_i8mm_gemm");
    const internal::KernelEntry* dotprod = FindKernelEntry(type + "_dotprod_gemm");
    if (i8mm == nullptr || dotprod == nullptr || !IsaSupported(i8mm->isa)) continue;
    ++ran;
    const int64_t blocks[] = {1, 2, 3, 5};
    int64_t compared = 0, expected = 0;
    for (int64_t n = 1; n <= 49; ++n) {
      const int64_t m = 1 + (n - 1) % 16;
      compared +=
          ExpectSameOutputs(i8mm, dotprod, m, n, 256 * blocks[n % 4], static_cast<uint32_t>(n), 1);
      // Every output (RunKernel's y: m rows of n + 1, the guard column included).
      expected += m * (n + 1);
    }
    compared += ExpectSameOutputs(i8mm, dotprod, 19, 13, 256 * 17, 300, 1);
    compared += ExpectSameOutputs(i8mm, dotprod, 8, 40, 256 * 17, 400, 2);
    expected += 19 * 14 + 8 * 41;
    EXPECT_EQ(compared, expected) << type;
  }
  if (ran == 0) GTEST_SKIP() << "no q4_k/q6_k i8mm GEMM on this CPU (not ARM i8mm)";
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
