// The per-core-type schedule choice (isa.h: ChooseCoreSchedule on fake core lists, the override)
// and the kernels that have two schedules (the R4 dotprod GEMVs): the same outputs, bit for bit,
// under both, and the reference's values.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/isa.h"
#include "runtime/kernels/kernel_test_util.h"
#include "runtime/kernels/qmatmul.h"

namespace edgeq {
namespace kernels {
namespace {

// MIDR_EL1 of an Arm Ltd core with this part number (variant, revision 0).
constexpr uint32_t Arm(uint32_t part) { return 0x410F0000u | (part << 4); }
constexpr uint32_t kA53 = Arm(0xD03), kA55 = Arm(0xD05), kA510 = Arm(0xD46), kA520 = Arm(0xD80);
constexpr uint32_t kA76 = Arm(0xD0B), kA715 = Arm(0xD4D), kX2 = Arm(0xD48), kV2 = Arm(0xD4F);
constexpr uint32_t kKryoSilver = 0x51AF8014u;  // Qualcomm implementer: not classified

CoreSchedule Choose(std::vector<uint32_t> midrs, const std::string& override_name = "") {
  absl::StatusOr<CoreSchedule> s = ChooseCoreSchedule(midrs, override_name);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : CoreSchedule::kOutOfOrder;
}

TEST(ChooseCoreScheduleTest, InOrderOnlyWhenEveryCoreIs) {
  EXPECT_EQ(Choose({kA55, kA55, kA55, kA55}), CoreSchedule::kInOrder);
  EXPECT_EQ(Choose({kA53, kA53}), CoreSchedule::kInOrder);
  EXPECT_EQ(Choose({kA510, kA510, kA520}), CoreSchedule::kInOrder);
  // big.LITTLE: the threads run on the big cores.
  EXPECT_EQ(Choose({kA55, kA55, kA55, kA55, kA76, kA76, kA76, kA76}), CoreSchedule::kOutOfOrder);
  EXPECT_EQ(Choose({kA510, kA510, kA715, kA715, kX2}), CoreSchedule::kOutOfOrder);
  EXPECT_EQ(Choose({kV2}), CoreSchedule::kOutOfOrder);
}

TEST(ChooseCoreScheduleTest, UnknownCoresAreOutOfOrder) {
  EXPECT_EQ(Choose({}), CoreSchedule::kOutOfOrder);             // no list (x86, no cpuinfo)
  EXPECT_EQ(Choose({0, 0}), CoreSchedule::kOutOfOrder);         // qemu-user: no MIDR
  EXPECT_EQ(Choose({kA55, 0}), CoreSchedule::kOutOfOrder);      // one unknown core
  EXPECT_EQ(Choose({kKryoSilver}), CoreSchedule::kOutOfOrder);  // not an Arm Ltd part
  EXPECT_FALSE(IsInOrderMidr(0x410FD0B0u & 0x00FFFFFFu));       // Cortex-A76's part, no implementer
}

TEST(ChooseCoreScheduleTest, OverrideDecides) {
  EXPECT_EQ(Choose({kA76}, "inorder"), CoreSchedule::kInOrder);
  EXPECT_EQ(Choose({kA55}, "OutOfOrder"), CoreSchedule::kOutOfOrder);
  EXPECT_EQ(Choose({}, "INORDER"), CoreSchedule::kInOrder);
  absl::StatusOr<CoreSchedule> bad = ChooseCoreSchedule({kA55}, "little");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("EDGEQ_CORE_SCHEDULE 'little'"), std::string::npos)
      << bad.status();
  EXPECT_NE(bad.status().message().find("expected inorder or outoforder"), std::string::npos);
  EXPECT_EQ(CoreScheduleName(CoreSchedule::kInOrder), "inorder");
  EXPECT_EQ(CoreScheduleName(CoreSchedule::kOutOfOrder), "outoforder");
}

TEST(ChooseCoreScheduleTest, SetCoreScheduleReplacesTheChoice) {
  const CoreSchedule before = ActiveCoreSchedule();
  SetCoreSchedule(CoreSchedule::kInOrder);
  EXPECT_EQ(ActiveCoreSchedule(), CoreSchedule::kInOrder);
  SetCoreSchedule(CoreSchedule::kOutOfOrder);
  EXPECT_EQ(ActiveCoreSchedule(), CoreSchedule::kOutOfOrder);
  SetCoreSchedule(before);
}

// Every GEMV with two schedules: bit-identical outputs, and the reference's values. n = 45 and
// 77 leave an odd group of four and a partial one after the pairs of groups (and, out of order,
// the q8_0 GEMV's last task, 13 columns, to its one-group loop after steps of four groups in the
// others); n = 36 leaves one whole group after the 16-column tasks; k from 1 to 9 blocks (small:
// under qemu the double reference dominates).
TEST(CoreScheduleKernelTest, BothSchedulesGiveTheSameOutputs) {
  const std::vector<std::string> names = {"q4_0_dotprod_gemv", "q8_0_dotprod_gemv",
                                          "iq4_nl_dotprod_gemv"};
  const CoreSchedule before = ActiveCoreSchedule();
  int ran = 0;
  for (const internal::KernelEntry* e : internal::AllKernels()) {
    bool listed = false;
    for (const std::string& n : names) listed |= n == e->name;
    if (!listed || !IsaSupported(e->isa)) continue;
    ++ran;
    for (const int64_t n : {45, 77, 36}) {
      for (const int64_t blocks : {1, 3, 9}) {
        const test_util::Problem p = test_util::MakeProblem(e->encoding, 1, n, 32 * blocks, 7);
        auto kernel = internal::CreateForEntry(e, n, p.k, p.w);
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        SetCoreSchedule(CoreSchedule::kOutOfOrder);
        const std::vector<float> out_of_order = test_util::RunKernel(**kernel, p, 1);
        SetCoreSchedule(CoreSchedule::kInOrder);
        const std::vector<float> in_order = test_util::RunKernel(**kernel, p, 1);
        ASSERT_EQ(in_order.size(), out_of_order.size());
        EXPECT_EQ(std::memcmp(in_order.data(), out_of_order.data(), 4 * in_order.size()), 0)
            << e->name << " n=" << n << " k=" << p.k;
        test_util::ExpectMatchesReference(p, in_order, std::string(e->name) + " inorder");
      }
    }
  }
  SetCoreSchedule(before);
  if (ran == 0) GTEST_SKIP() << "no dotprod GEMV with two schedules on this CPU (not ARM dotprod)";
  EXPECT_EQ(ran, 3);
}

}  // namespace
}  // namespace kernels
}  // namespace edgeq
