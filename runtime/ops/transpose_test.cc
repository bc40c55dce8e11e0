// Op "transpose" (transpose.cc): a 3-d permutation against index arithmetic; permutation errors.
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

TEST(TransposeOpTest, PermutesDimensions) {
  const std::vector<float> x = Random(2 * 3 * 4, 61);
  Graph g("transpose", {F32({2, 3, 4})});
  g.Output(ops::Transpose(g.Input(0), {2, 0, 1}));
  EXPECT_THAT(g.ToString(), HasSubstr("{perm=[2, 0, 1]} : f32[4, 2, 3]"));
  std::vector<double> want;
  for (int c = 0; c < 4; ++c) {
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 3; ++b) want.push_back(x[(a * 3 + b) * 4 + c]);
    }
  }
  ExpectClose(RunGraph(g, {Floats({2, 3, 4}, x)}), want, 0.0);
}

TEST(TransposeOpTest, RefusesNonPermutations) {
  absl::Status s = BuildStatus({F32({2, 3})}, [](Graph& g) { ops::Transpose(g.Input(0), {0, 0}); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("transpose(f32[2, 3]): [0, 0] is not a permutation of 2 "
                                     "dimensions"));
  s = BuildStatus({F32({2, 3})}, [](Graph& g) {
    ops::Op("transpose", {g.Input(0)}, {{"perm", int64_t{1}}});
  });
  EXPECT_THAT(s.message(), HasSubstr("transpose: attribute perm must be a list of integers"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
