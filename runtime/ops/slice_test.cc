// Op "slice" (slice.cc): a 3-d window against index arithmetic; bounds errors.
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

TEST(SliceOpTest, CopiesTheWindow) {
  const std::vector<float> x = Random(3 * 4 * 5, 71);
  Graph g("slice", {F32({3, 4, 5})});
  g.Output(ops::Slice(g.Input(0), {1, 0, 2}, {3, 3, 5}));
  std::vector<double> want;
  for (int a = 1; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int c = 2; c < 5; ++c) want.push_back(x[(a * 4 + b) * 5 + c]);
    }
  }
  ExpectClose(RunGraph(g, {Floats({3, 4, 5}, x)}), want, 0.0);
}

TEST(SliceOpTest, RefusesBounds) {
  absl::Status s = BuildStatus({F32({3, 4})}, [](Graph& g) {
    ops::Slice(g.Input(0), {0, 2}, {3, 5});
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("slice(f32[3, 4]): dimension 1: [2, 5) is not inside [0, 4]"));
  s = BuildStatus({F32({3, 4})}, [](Graph& g) { ops::Slice(g.Input(0), {0}, {3}); });
  EXPECT_THAT(s.message(), HasSubstr("need 2 starts and ends, got 1 and 1"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
