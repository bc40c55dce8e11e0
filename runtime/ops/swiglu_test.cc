// Op "swiglu" (swiglu.cc): silu(gate) * up against a double reference, and its type errors.
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

TEST(SwiGluOpTest, MatchesDoubleReference) {
  std::vector<float> gate = Random(3 * 2000, 3), up = Random(3 * 2000, 4);
  for (float& v : gate) v *= 5.0f;
  Graph g("swiglu", {F32({3, 2000}), F32({3, 2000})});
  g.Output(ops::SwiGlu(g.Input(0), g.Input(1)));
  std::vector<double> want;
  for (size_t i = 0; i < gate.size(); ++i) {
    const double v = gate[i];
    want.push_back(v / (1.0 + std::exp(-v)) * up[i]);
  }
  for (int threads : {1, 2}) {
    ExpectClose(RunGraph(g, {Floats({3, 2000}, gate), Floats({3, 2000}, up)}, threads), want, 1e-6);
  }
}

TEST(SwiGluOpTest, RefusesShapesAndTypes) {
  absl::Status s = BuildStatus({F32({2, 3}), F32({3, 2})},
                               [](Graph& g) { ops::SwiGlu(g.Input(0), g.Input(1)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("swiglu(f32[2, 3], f32[3, 2]): gate and up must have one shape"));
  s = BuildStatus({F32({2}), I32({2})}, [](Graph& g) { ops::SwiGlu(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("swiglu(f32[2], i32[2]): gate and up must be plain f32"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
