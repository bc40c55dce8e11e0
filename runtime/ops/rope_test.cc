// Op "rope" (rope.cc): norm and neox pairs, with theta or an angle table (partial rotation),
// i32 and i64 positions, 1 and 2 threads, against a double-angle reference; shape and attribute
// errors.
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

// x [t, heads, d] rotated with inv_freq[i] for i < pairs (the rest passes through).
std::vector<double> Reference(const std::vector<float>& x, const std::vector<int32_t>& pos,
                              const std::vector<float>& inv_freq, int64_t heads, int64_t d,
                              bool neox) {
  const int64_t t = static_cast<int64_t>(pos.size());
  const int64_t pairs = static_cast<int64_t>(inv_freq.size());
  std::vector<double> y(x.begin(), x.end());
  for (int64_t j = 0; j < t; ++j) {
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t i = 0; i < pairs; ++i) {
        const int64_t o = (j * heads + h) * d + (neox ? i : 2 * i);
        const int64_t p = o + (neox ? pairs : 1);
        const double a = double{static_cast<float>(pos[j])} * inv_freq[i];
        y[o] = x[o] * std::cos(a) - x[p] * std::sin(a);
        y[p] = x[o] * std::sin(a) + x[p] * std::cos(a);
      }
    }
  }
  return y;
}

class RopeOpTest : public ::testing::TestWithParam<bool> {};

TEST_P(RopeOpTest, AngleTableMatchesReference) {
  const bool neox = GetParam();
  const int64_t t = 5, heads = 3, d = 12, pairs = 5;  // dimensions 10 and 11 pass through
  const std::vector<float> x = Random(t * heads * d, 21);
  const std::vector<int32_t> pos = {0, 1, 7, 300, 4095};
  std::vector<float> inv(pairs);
  for (int64_t i = 0; i < pairs; ++i) inv[i] = std::pow(500.0f, -2.0f * i / (2 * pairs));
  Graph g("rope", {F32({t, heads, d}), I32({t})});
  g.Output(ops::Rope(g.Input(0), g.Input(1), g.Constant(Floats({pairs}, inv)),
                     neox ? ops::RopeMode::kNeox : ops::RopeMode::kNorm));
  const std::vector<double> want = Reference(x, pos, inv, heads, d, neox);
  for (int threads : {1, 2}) {
    // float angles of positions up to 4095: cos/sin of an angle rounded to 2^-12 relative.
    ExpectClose(RunGraph(g, {Floats({t, heads, d}, x), Ints({t}, pos)}, threads), want, 2e-3);
  }
}

TEST_P(RopeOpTest, ThetaMatchesReference) {
  const bool neox = GetParam();
  const int64_t t = 3, heads = 2, d = 8;
  const std::vector<float> x = Random(t * heads * d, 22);
  const std::vector<int32_t> pos = {2, 9, 31};
  std::vector<float> inv(d / 2);
  for (int64_t i = 0; i < d / 2; ++i) inv[i] = std::pow(10000.0f, -2.0f * i / d);
  Graph g("rope", {F32({t, heads, d}), I32({t})});
  g.Output(ops::Op("rope", {g.Input(0), g.Input(1)},
                   {{"mode", std::string(neox ? "neox" : "norm")}, {"theta", 10000.0}}));
  EXPECT_THAT(g.ToString(), HasSubstr(neox ? "{mode=neox, theta=10000}" : "{theta=10000}"));
  ExpectClose(RunGraph(g, {Floats({t, heads, d}, x), Ints({t}, pos)}, 2),
              Reference(x, pos, inv, heads, d, neox), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Modes, RopeOpTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "neox" : "norm";
                         });

TEST(RopeOpTest, I64PositionsAsI32) {
  const std::vector<float> x = Random(3 * 4, 23);
  Graph g("rope64", {F32({3, 1, 4})});
  g.Output(ops::Rope(g.Input(0), g.Constant(*Tensor::FromValues<int64_t>({3}, {0, 5, 17}))));
  Graph g32("rope32", {F32({3, 1, 4}), I32({3})});
  g32.Output(ops::Rope(g32.Input(0), g32.Input(1)));
  EXPECT_EQ(RunGraph(g, {Floats({3, 1, 4}, x)}),
            RunGraph(g32, {Floats({3, 1, 4}, x), Ints({3}, {0, 5, 17})}));
}

TEST(RopeOpTest, RefusesShapesAndAttributes) {
  absl::Status s =
      BuildStatus({F32({2, 1, 4}), I32({3})}, [](Graph& g) { ops::Rope(g.Input(0), g.Input(1)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("rope(f32[2, 1, 4], i32[3]): positions must be [s] with s "
                                     "the first dimension of x"));
  s = BuildStatus({F32({2, 1, 5}), I32({2})}, [](Graph& g) { ops::Rope(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("x must be [s, ..., d] with d even"));
  s = BuildStatus({F32({2, 1, 4}), I32({2}), F32({3})}, [](Graph& g) {
    ops::Rope(g.Input(0), g.Input(1), g.Input(2), ops::RopeMode::kNeox);
  });
  EXPECT_THAT(s.message(), HasSubstr("inv_freq must be f32 [pairs] with 2 * pairs <= d"));
  s = BuildStatus({F32({2, 1, 4}), F32({2})}, [](Graph& g) { ops::Rope(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("positions must be i32 or i64"));
  s = BuildStatus({F32({2, 1, 4}), I32({2})}, [](Graph& g) {
    ops::Op("rope", {g.Input(0), g.Input(1)}, {{"mode", std::string("gptj")}});
  });
  EXPECT_THAT(s.message(), HasSubstr("rope: attribute mode is \"gptj\", expected norm or neox"));
  s = BuildStatus({F32({2, 1, 4}), I32({2})},
                  [](Graph& g) { ops::Rope(g.Input(0), g.Input(1), -1.0f); });
  EXPECT_THAT(s.message(), HasSubstr("theta must be > 0"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
