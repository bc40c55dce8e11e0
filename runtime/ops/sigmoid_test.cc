// Op "sigmoid" (sigmoid.cc): against a double reference, and its type errors.
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

TEST(SigmoidOpTest, MatchesDoubleReference) {
  std::vector<float> x = Random(3 * 1000, 17);
  for (float& v : x) v *= 12.0f;
  Graph g("sigmoid", {F32({3, 1000})});
  g.Output(ops::Op("sigmoid", {g.Input(0)}));
  std::vector<double> want;
  for (float f : x) want.push_back(1.0 / (1.0 + std::exp(-double{f})));
  for (int threads : {1, 2}) {
    ExpectClose(RunGraph(g, {Floats({3, 1000}, x)}, threads), want, 1e-6);
  }
}

TEST(SigmoidOpTest, RefusesNonF32) {
  const absl::Status s =
      BuildStatus({I32({3})}, [](Graph& g) { ops::Op("sigmoid", {g.Input(0)}); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("sigmoid(i32[3]): operand must be plain f32"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
