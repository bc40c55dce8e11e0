// The q4_0 / q8_0 dotprod pair GEMMs' two schedules (runtime/kernels/arm/r4_pair_inorder.h: the
// in-order asm loop of the 4-pair tile; r4_common.h's R4SdotPairs on out-of-order cores): the same
// outputs bit for bit, within the reference's tolerance, and nothing written outside y, over the
// tile tails: every n from 1 to 49 (a partial last group of four rows, 1 to 3 tasks of 16 columns),
// every m from 1 to 16 (pair tiles of 4, 2 and 1, an odd last row) and m = 67; and at the
// largest block sums (every weight level -8 / -128, activations of one sign per row), where the
// out-of-order tile's biased int32 sums (r4_common.h, kSumBias) must still convert exactly.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/isa.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace kernels {
namespace {

using test_util::ExpectSchedulesAgree;
using test_util::ExpectSchedulesAgreeOn;

// Runs `check(entry, name)` on the q4_0 and q8_0 dotprod pair GEMMs this CPU supports; how many
// ran.
template <typename Check>
int ForEachDotprodPairGemm(Check check) {
  return test_util::ForEachSupportedKernel({"q4_0_dotprod_gemm", "q8_0_dotprod_gemm"}, check);
}

TEST(R4PairScheduleTest, BothSchedulesAgreeOverTheTileTails) {
  const int ran =
      ForEachDotprodPairGemm([](const internal::KernelEntry* e, const std::string& name) {
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
      });
  if (ran == 0) GTEST_SKIP() << "no q4_0/q8_0 dotprod GEMM on this CPU (not ARM dotprod)";
  EXPECT_EQ(ran, 2);
}

// Every weight at the lowest level (q4_0: nibble 0, 16 x (0 - 8) = -128 after the kernels' shift;
// q8_0: -128, which a GGUF file may hold although GGML's quantizer writes -127..127) and every
// activation row of one sign (all quantized to +127 or -127): each block's sum is
// +-32 x 128 x 127, the extremes the tile's sums can take.
TEST(R4PairScheduleTest, BothSchedulesAgreeAtTheLargestBlockSums) {
  const int ran =
      ForEachDotprodPairGemm([](const internal::KernelEntry* e, const std::string& name) {
        const bool q4 = e->encoding == internal::Encoding::kQ4_0;
        const int64_t bytes = q4 ? sizeof(blocks::BlockQ4_0) : sizeof(blocks::BlockQ8_0);
        for (const int64_t m : {8, 12, 13}) {  // pair tiles of 4; 4 and 2; 4, 2 and 1
          test_util::Problem p = test_util::MakeProblem(e->encoding, m, 8, 32 * 3, 7);
          for (size_t at = 0; at < p.w.size(); at += bytes) {
            const float d =
                blocks::Fp16ToFloat(static_cast<uint16_t>(p.w[at] | (p.w[at + 1] << 8)));
            std::memset(&p.w[at + 2], q4 ? 0x00 : 0x80, bytes - 2);
            const int64_t b = static_cast<int64_t>(at / bytes);  // block b of the n x k / 32
            for (int l = 0; l < 32; ++l) p.w_deq[32 * b + l] = d * (q4 ? -8.0f : -128.0f);
          }
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t c = 0; c < p.k; ++c) p.x[i * p.x_stride + c] = i % 2 == 0 ? 0.5f : -2.0f;
          }
          EXPECT_EQ(ExpectSchedulesAgreeOn(e, p), m * 9) << name << " m=" << m;
        }
      });
  if (ran == 0) GTEST_SKIP() << "no q4_0/q8_0 dotprod GEMM on this CPU (not ARM dotprod)";
  EXPECT_EQ(ran, 2);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
