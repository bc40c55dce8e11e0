// Op "gelu_tanh" (gelu_tanh.cc): the tanh approximation of GELU against a double reference; the
// half-precision table (ggml's GGML_GELU_FP16) within an fp16 step of it; attribute errors.
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

TEST(GeluTanhOpTest, MatchesDoubleReference) {
  std::vector<float> x = Random(4 * 1500, 7);
  for (float& v : x) v *= 6.0f;
  Graph g("gelu_tanh", {F32({4, 1500})});
  g.Output(ops::GeluTanh(g.Input(0)));
  std::vector<double> want;
  for (float f : x) {
    const double v = f;
    want.push_back(0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v))));
  }
  for (int threads : {1, 2}) ExpectClose(RunGraph(g, {Floats({4, 1500}, x)}, threads), want, 1e-6);
}

TEST(GeluTanhOpTest, RefusesNonF32) {
  const absl::Status s =
      BuildStatus({I32({3})}, [](Graph& g) { ops::Op("gelu_tanh", {g.Input(0)}); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("gelu_tanh(i32[3]): operand must be plain f32"));
}

TEST(GeluTanhOpTest, HalfPrecisionTable) {
  const std::vector<float> x = {-12.0f, -10.0f, -2.5f, -0.3f, 0.0f,
                                0.001f, 0.7f,   3.2f,  10.0f, 11.5f};
  Graph g("gelu_tanh_f16", {F32({10})});
  g.Output(ops::GeluTanh(g.Input(0), /*half_precision_table=*/true));
  EXPECT_THAT(g.ToString(), HasSubstr("{half_precision_table}"));
  const std::vector<float> got = RunGraph(g, {Floats({10}, x)});
  ASSERT_EQ(got.size(), x.size());
  EXPECT_EQ(got[0], 0.0f);  // <= -10: 0
  EXPECT_EQ(got[1], 0.0f);
  EXPECT_EQ(got[8], 10.0f);  // >= 10: x
  EXPECT_EQ(got[9], 11.5f);
  EXPECT_EQ(got[4], 0.0f);
  for (int i = 2; i < 8; ++i) {
    const double v = x[i];
    const double want =
        0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
    // x rounded to fp16 (relative 2^-11), the result rounded to fp16 (2^-11).
    EXPECT_NEAR(got[i], want, 2e-3 * std::max(1.0, std::fabs(want)) + 1e-6) << x[i];
  }
}

TEST(GeluTanhOpTest, RefusesBadAttributes) {
  absl::Status s = BuildStatus({F32({3})}, [](Graph& g) {
    ops::Op("gelu_tanh", {g.Input(0)}, {{"half_precision_table", int64_t{2}}});
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("gelu_tanh: attribute half_precision_table must be 0 or 1"));
  s = BuildStatus({F32({3})}, [](Graph& g) {
    ops::Op("gelu_tanh", {g.Input(0)}, {{"table", int64_t{1}}});
  });
  EXPECT_THAT(s.message(),
              HasSubstr("gelu_tanh: unknown attribute \"table\" (expected half_precision_table)"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
