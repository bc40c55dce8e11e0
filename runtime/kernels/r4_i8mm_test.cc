// The q4_0 / q8_0 i8mm GEMMs (runtime/kernels/arm/r4_i8mm.h): R4I8mmGemm runs the wide smmla tile
// (R4I8mmWide: 4 weight rows x 16 activation rows, then R4I8mm's tiles of 4, 2 and 1 pairs) on
// out-of-order cores and, on in-order cores, R4I8mmInOrder (r4_i8mm_inorder.h: R4I8mm's 4-pair tile
// as one asm loop over the blocks, then R4I8mm's tiles of 2 and 1 pairs); both schedules give the
// same outputs bit for bit, within the reference's tolerance, and write nothing outside y, over the
// tile tails: every n from 1 to 49 (a partial last group of four rows, 1 to 4 tasks of 16 columns)
// with m = 1..40 (no wide tile below m = 15; one or two, then pair tiles of 4, 2 and 1 and an odd
// last row) at 1, 2, 3 and 9 blocks, and m = 67 (four wide tiles and an odd row). Below m = 15
// both schedules run the 4-pair tile, as compiled C++ (out-of-order) and as the asm loop
// (in-order): the second test runs those m over 1 to 12 blocks and 17 (the asm loop's first
// block, its loop body once or more, and its last block's deferred scaling).
#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/isa.h"
#include "runtime/kernels/kernel_test_util.h"

namespace edgeq {
namespace kernels {
namespace {

using test_util::ExpectSchedulesAgree;

// Runs `check(entry, name)` on the q4_0 and q8_0 i8mm GEMMs this CPU supports; how many ran.
template <typename Check>
int ForEachI8mmGemm(Check check) {
  return test_util::ForEachSupportedKernel({"q4_0_i8mm_gemm", "q8_0_i8mm_gemm"}, check);
}

TEST(R4I8mmTest, WideTileMatchesThe4PairTileOverTheTileTails) {
  const int ran = ForEachI8mmGemm([](const internal::KernelEntry* e, const std::string& name) {
    const int64_t blocks[] = {1, 2, 3, 9};
    int64_t compared = 0, expected = 0;
    for (int64_t n = 1; n <= 49; ++n) {
      const int64_t m = 1 + (n - 1) % 40, k = 32 * blocks[n % 4];
      compared += ExpectSchedulesAgree(e, m, n, k, static_cast<uint32_t>(n));
      // Every output (RunKernel's y: m rows of n + 1, the guard column included).
      expected += m * (n + 1);
    }
    for (const int64_t n : {13, 45}) compared += ExpectSchedulesAgree(e, 67, n, 32 * 5, 67);
    expected += 67 * (14 + 46);
    EXPECT_EQ(compared, expected) << name;
  });
  if (ran == 0) GTEST_SKIP() << "no q4_0/q8_0 i8mm GEMM on this CPU (not ARM i8mm)";
  EXPECT_EQ(ran, 2);
}

TEST(R4I8mmTest, InOrderLoopMatchesThe4PairTileOverTheBlockCounts) {
  const int ran = ForEachI8mmGemm([](const internal::KernelEntry* e, const std::string& name) {
    int64_t compared = 0, expected = 0;
    for (int64_t blocks = 1; blocks <= 17; blocks += blocks < 12 ? 1 : 5) {
      // m = 8: one 4-pair tile; 13: then 2 + 1 pairs (an odd last row); 14: then 2 + 1 pairs.
      for (const int64_t m : {8, 13, 14}) {
        for (const int64_t n : {4, 19}) {
          const uint32_t seed = static_cast<uint32_t>(100 * blocks + m + n);
          compared += ExpectSchedulesAgree(e, m, n, 32 * blocks, seed);
          expected += m * (n + 1);
        }
      }
    }
    EXPECT_EQ(compared, expected) << name;
  });
  if (ran == 0) GTEST_SKIP() << "no q4_0/q8_0 i8mm GEMM on this CPU (not ARM i8mm)";
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
