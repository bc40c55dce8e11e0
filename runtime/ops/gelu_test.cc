// Op "gelu" (gelu.cc): exact GELU against a double reference, and its type errors.
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

TEST(GeluOpTest, MatchesDoubleReference) {
  std::vector<float> x = Random(4 * 1500, 7);
  for (float& v : x) v *= 6.0f;
  Graph g("gelu", {F32({4, 1500})});
  g.Output(ops::Gelu(g.Input(0)));
  std::vector<double> want;
  for (float f : x) {
    const double v = f;
    want.push_back(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
  }
  for (int threads : {1, 2}) ExpectClose(RunGraph(g, {Floats({4, 1500}, x)}, threads), want, 1e-6);
}

TEST(GeluOpTest, RefusesNonF32) {
  const absl::Status s = BuildStatus({I32({3})}, [](Graph& g) { ops::Op("gelu", {g.Input(0)}); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("gelu(i32[3]): operand must be plain f32"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
