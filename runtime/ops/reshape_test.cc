// Op "reshape" (reshape.cc): data kept, shape inferred from -1; shape and attribute errors.
#include <algorithm>
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

TEST(ReshapeOpTest, KeepsTheDataInANewShape) {
  const std::vector<float> x = Random(24, 51);
  Graph g("reshape", {F32({2, 3, 4})});
  Value r = ops::Reshape(g.Input(0), {4, -1});
  EXPECT_EQ(r.shape(), Shape({4, 6}));
  g.Output(r);
  EXPECT_THAT(g.ToString(), HasSubstr("{shape=[4, -1]} : f32[4, 6]"));
  ExpectClose(RunGraph(g, {Floats({2, 3, 4}, x)}), std::vector<double>(x.begin(), x.end()), 0.0);
}

TEST(ReshapeOpTest, RefusesShapesAndAttributes) {
  absl::Status s = BuildStatus({F32({2, 3})}, [](Graph& g) { ops::Reshape(g.Input(0), {4, 2}); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("reshape(f32[2, 3]): target shape [4, 2] holds 8 elements, the input 6"));
  s = BuildStatus({F32({2, 3})}, [](Graph& g) { ops::Reshape(g.Input(0), {4, -1}); });
  EXPECT_THAT(s.message(), HasSubstr("cannot infer -1 in target shape [4, -1]"));
  s = BuildStatus({F32({2, 3})}, [](Graph& g) { ops::Reshape(g.Input(0), {-2, 3}); });
  EXPECT_THAT(s.message(), HasSubstr("bad target shape [-2, 3]"));
  s = BuildStatus({F32({2, 3})}, [](Graph& g) { ops::Op("reshape", {g.Input(0)}); });
  EXPECT_THAT(s.message(), HasSubstr("reshape: missing attribute shape (a list of integers)"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
