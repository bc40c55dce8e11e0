// Op "concat" (concat.cc): three inputs on a middle and a negative axis; mismatch errors.
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

TEST(ConcatOpTest, JoinsAlongAnAxis) {
  const std::vector<float> a = Random(2 * 1 * 3, 81), b = Random(2 * 2 * 3, 82);
  Graph g("concat", {F32({2, 1, 3}), F32({2, 2, 3})});
  g.Output(ops::Concat({g.Input(0), g.Input(1), g.Input(0)}, -2));
  std::vector<double> want;
  for (int i = 0; i < 2; ++i) {
    want.insert(want.end(), &a[i * 3], &a[i * 3] + 3);
    want.insert(want.end(), &b[i * 6], &b[i * 6] + 6);
    want.insert(want.end(), &a[i * 3], &a[i * 3] + 3);
  }
  ExpectClose(RunGraph(g, {Floats({2, 1, 3}, a), Floats({2, 2, 3}, b)}), want, 0.0);
}

TEST(ConcatOpTest, RefusesMismatches) {
  absl::Status s = BuildStatus({F32({2, 3}), F32({3, 3})}, [](Graph& g) {
    ops::Concat({g.Input(0), g.Input(1)}, 1);
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("concat(f32[2, 3], f32[3, 3]): dimension 0 differs outside axis 1"));
  s = BuildStatus({F32({2, 3}), I32({2, 3})}, [](Graph& g) {
    ops::Concat({g.Input(0), g.Input(1)}, 0);
  });
  EXPECT_THAT(s.message(), HasSubstr("values must be plain tensors of one dtype and rank"));
  s = BuildStatus({F32({2, 3})}, [](Graph& g) { ops::Concat({g.Input(0)}, 2); });
  EXPECT_THAT(s.message(), HasSubstr("axis 2 is out of range for rank 2"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
