// Op "softmax" (softmax.cc): rows against a double reference, and its type errors.
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

TEST(SoftmaxOpTest, MatchesDoubleReference) {
  std::vector<float> x = Random(5 * 37, 9);
  for (float& v : x) v *= 20.0f;
  Graph g("softmax", {F32({5, 37})});
  g.Output(ops::Softmax(g.Input(0)));
  std::vector<double> want(x.size());
  for (int r = 0; r < 5; ++r) {
    double mx = -1e300, sum = 0;
    for (int i = 0; i < 37; ++i) mx = std::max(mx, double{x[r * 37 + i]});
    for (int i = 0; i < 37; ++i) sum += std::exp(x[r * 37 + i] - mx);
    for (int i = 0; i < 37; ++i) want[r * 37 + i] = std::exp(x[r * 37 + i] - mx) / sum;
  }
  for (int threads : {1, 2}) ExpectClose(RunGraph(g, {Floats({5, 37}, x)}, threads), want, 1e-6);
}

TEST(SoftmaxOpTest, RefusesScalarsAndNonF32) {
  absl::Status s = BuildStatus({F32({})}, [](Graph& g) { ops::Softmax(g.Input(0)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("softmax(f32[]): operand needs rank >= 1"));
  s = BuildStatus({I32({3})}, [](Graph& g) { ops::Softmax(g.Input(0)); });
  EXPECT_THAT(s.message(), HasSubstr("softmax(i32[3]): operand must be plain f32"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
