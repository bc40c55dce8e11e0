// Ops "matmul" and "matmul_transposed" (matmul.cc): batched, transposed and constant-weight
// products (the portable loop and XNNPACK) against a double reference; shape errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "runtime/ops/op_test_util.h"
#include "runtime/session.h"

namespace edgeq {
namespace op_test {
namespace {

using ::testing::HasSubstr;

// a [batch, m, k] . b [batch?, k, n] (or [batch?, n, k] transposed).
std::vector<double> Reference(const std::vector<float>& a, const std::vector<float>& b,
                              int64_t batch, int64_t m, int64_t k, int64_t n, bool b_batched,
                              bool transposed) {
  std::vector<double> y;
  for (int64_t p = 0; p < batch; ++p) {
    const float* bm = b.data() + (b_batched ? p * k * n : 0);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l) {
          s += double{a[(p * m + i) * k + l]} * (transposed ? bm[j * k + l] : bm[l * n + j]);
        }
        y.push_back(s);
      }
    }
  }
  return y;
}

TEST(MatmulOpTest, MatchesDoubleReference) {
  const int64_t batch = 2, m = 3, k = 19, n = 5;
  const std::vector<float> a = Random(batch * m * k, 91), b = Random(batch * k * n, 92);
  for (bool transposed : {false, true}) {
    const Shape bs = transposed ? Shape({batch, n, k}) : Shape({batch, k, n});
    Graph g("matmul", {F32({batch, m, k}), F32(bs)});
    g.Output(transposed ? ops::MatmulTransposed(g.Input(0), g.Input(1))
                        : ops::Matmul(g.Input(0), g.Input(1)));
    ExpectClose(RunGraph(g, {Floats({batch, m, k}, a), Floats(bs, b)}, 2),
                Reference(a, b, batch, m, k, n, true, transposed), 1e-5);
    // A rank-2 constant rhs: XNNPACK's fully-connected operator when the session enables it.
    const std::vector<float> w(b.begin(), b.begin() + k * n);
    Graph c("matmul_constant", {F32({batch, m, k})});
    const Value wv = c.Constant(Floats(transposed ? Shape({n, k}) : Shape({k, n}), w));
    c.Output(transposed ? ops::MatmulTransposed(c.Input(0), wv) : ops::Matmul(c.Input(0), wv));
    for (int threads : {1, 2}) {
      ExpectClose(RunGraph(c, {Floats({batch, m, k}, a)}, threads),
                  Reference(a, w, batch, m, k, n, false, transposed), 1e-5);
    }
  }
}

TEST(MatmulOpTest, RefusesShapes) {
  absl::Status s = BuildStatus({F32({2, 3}), F32({4, 5})},
                               [](Graph& g) { ops::Matmul(g.Input(0), g.Input(1)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(),
              HasSubstr("matmul(f32[2, 3], f32[4, 5]): inner dimensions differ: lhs k=3, rhs k=4"));
  s = BuildStatus({F32({2, 3}), F32({4, 5})},
                  [](Graph& g) { ops::MatmulTransposed(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("matmul_transposed(f32[2, 3], f32[4, 5]): inner dimensions "
                                     "differ: lhs k=3, rhs k=5"));
  s = BuildStatus({F32({2, 2, 3}), F32({3, 3, 4})},
                  [](Graph& g) { ops::Matmul(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("a batched rhs must have exactly lhs's batch dimensions"));
  s = BuildStatus({F32({3}), F32({3, 4})}, [](Graph& g) { ops::Matmul(g.Input(0), g.Input(1)); });
  EXPECT_THAT(s.message(), HasSubstr("operands need rank >= 2"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
