// Op "mul" (add.cc's family, binary.h): broadcast values against a double reference, 1 and 2
// threads, and the type errors.
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "runtime/ops/op_test_util.h"

namespace edgeq {
namespace op_test {
namespace {

using ::testing::HasSubstr;

TEST(MulOpTest, BroadcastsAgainstDoubleReference) {
  const std::vector<float> a = Random(2 * 3 * 4, 1);
  std::vector<float> b = Random(3, 2);
  for (float& v : b) v += v >= 0 ? 0.5f : -0.5f;  // no division by ~0
  Graph g("mul", {F32({2, 3, 4}), F32({3, 1})});
  g.Output(ops::Mul(g.Input(0), g.Input(1)));
  std::vector<double> want;
  for (int i = 0; i < 2 * 3 * 4; ++i) want.push_back(double{a[i]} * double{b[i / 4 % 3]});
  for (int threads : {1, 2}) {
    ExpectClose(RunGraph(g, {Floats({2, 3, 4}, a), Floats({3, 1}, b)}, threads), want, 1e-6);
  }
  // A scalar operand on either side.
  Graph s("mul_scalar", {F32({}), F32({5})});
  s.Output(ops::Mul(s.Input(0), s.Input(1)));
  const std::vector<float> c = {2.0f, -1.5f, 0.25f, 4.0f, -3.0f};
  std::vector<double> want_s;
  for (float v : c) want_s.push_back(0.5 * double{v});
  ExpectClose(RunGraph(s, {Floats({}, {0.5f}), Floats({5}, c)}), want_s, 1e-6);
}

TEST(MulOpTest, RefusesShapesAndTypes) {
  absl::Status s =
      BuildStatus({F32({2, 3}), F32({4})}, [](Graph& g) { ops::Mul(g.Input(0), g.Input(1)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("mul(f32[2, 3], f32[4]): shapes [2, 3] and [4] do not "
                                     "broadcast (dimension 1: 3 vs 4)"));
  s = BuildStatus({F32({2}), I32({2})}, [](Graph& g) { ops::Mul(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("mul(f32[2], i32[2]): operands must be plain f32"));
  s = BuildStatus({F32({2})}, [](Graph& g) { ops::Op("mul", {g.Input(0)}); });
  EXPECT_THAT(s.message(), HasSubstr("mul(f32[2]): takes 2 inputs, got 1"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
