// Op "rms_norm" (rms_norm.cc): rows against a double reference with the epsilon attribute, and
// its shape and attribute errors.
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

TEST(RmsNormOpTest, MatchesDoubleReference) {
  const int64_t rows = 6, d = 50;  // d: 3 groups of 16 and a tail
  const std::vector<float> x = Random(rows * d, 11), w = Random(d, 12);
  Graph g("rms_norm", {F32({rows, d}), F32({d})});
  g.Output(ops::RmsNorm(g.Input(0), g.Input(1), 1e-3f));
  EXPECT_THAT(g.ToString(), HasSubstr("{epsilon=0.001}"));
  std::vector<double> want;
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < d; ++i) ss += double{x[r * d + i]} * x[r * d + i];
    const double scale = 1.0 / std::sqrt(ss / d + double{1e-3f});
    for (int64_t i = 0; i < d; ++i) want.push_back(w[i] * scale * x[r * d + i]);
  }
  for (int threads : {1, 2}) {
    ExpectClose(RunGraph(g, {Floats({rows, d}, x), Floats({d}, w)}, threads), want, 2e-6);
  }
}

TEST(RmsNormOpTest, RefusesShapesAndAttributes) {
  absl::Status s =
      BuildStatus({F32({2, 4}), F32({3})}, [](Graph& g) { ops::RmsNorm(g.Input(0), g.Input(1)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rms_norm(f32[2, 4], f32[3]): weight must be [d] with d the "
                                     "last dimension of x"));
  s = BuildStatus({F32({2, 4}), F32({4})},
                  [](Graph& g) { ops::RmsNorm(g.Input(0), g.Input(1), -1.0f); });
  EXPECT_THAT(s.message(), HasSubstr("rms_norm(f32[2, 4], f32[4]): epsilon must be >= 0"));
  s = BuildStatus({F32({2, 4}), F32({4})}, [](Graph& g) {
    ops::Op("rms_norm", {g.Input(0), g.Input(1)}, {{"epsilon", std::string("small")}});
  });
  EXPECT_THAT(s.message(), HasSubstr("rms_norm: attribute epsilon must be a number"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
