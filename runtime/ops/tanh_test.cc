// Op "tanh" (tanh.cc): tanh against a double reference, and its type errors.
#include <cmath>
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

TEST(TanhOpTest, MatchesDoubleReference) {
  std::vector<float> x = Random(4 * 1500, 7);
  for (float& v : x) v *= 6.0f;
  Graph g("tanh", {F32({4, 1500})});
  g.Output(ops::Tanh(g.Input(0)));
  std::vector<double> want;
  for (float f : x) {
    const double v = f;
    want.push_back(std::tanh(v));
  }
  for (int threads : {1, 2}) ExpectClose(RunGraph(g, {Floats({4, 1500}, x)}, threads), want, 1e-6);
}

TEST(TanhOpTest, RefusesNonF32) {
  const absl::Status s = BuildStatus({I32({3})}, [](Graph& g) { ops::Op("tanh", {g.Input(0)}); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tanh(i32[3]): operand must be plain f32"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
