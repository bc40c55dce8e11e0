// Op "gated_delta_net" (gated_delta_net.cc): outputs and state against a double-precision
// reference of the delta rule (several value heads over grouped key heads, the state carried
// across blocks, padding rows left out of the state), and its shape errors.
#include <cmath>
#include <cstdint>
#include <string>
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

constexpr int64_t kHk = 2, kHv = 4, kS = 8;
constexpr float kEps = 1e-6f;

struct Block {
  std::vector<float> q, k, v, alpha, beta;
};

Block RandomBlock(int64_t t, uint32_t seed) {
  Block b{Random(t * kHk * kS, seed), Random(t * kHk * kS, seed + 1),
          Random(t * kHv * kS, seed + 2), Random(t * kHv, seed + 3), Random(t * kHv, seed + 4)};
  for (float& x : b.alpha) x *= 3.0f;  // decays from ~0.6 to ~1
  for (float& x : b.beta) x *= 4.0f;
  return b;
}

// The delta rule in double over the first n rows of `b`; `state` [hv][j][i] (M[j][i] = S[i][j])
// is updated in place; returns out [t, hv, s] (rows >= n zero).
std::vector<double> Reference(const Block& b, int64_t t, int64_t n, const std::vector<float>& dt,
                              const std::vector<float>& a, std::vector<double>& state) {
  std::vector<double> out(t * kHv * kS, 0.0);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t h = 0; h < kHv; ++h) {
      const int64_t kh = h % kHk;
      auto unit = [&](const std::vector<float>& x) {
        std::vector<double> y(kS);
        double ss = 0;
        for (int64_t i = 0; i < kS; ++i) {
          const double xi = x[(r * kHk + kh) * kS + i];
          ss += xi * xi;
        }
        const double norm = std::max(std::sqrt(ss), double{kEps});
        for (int64_t i = 0; i < kS; ++i) y[i] = x[(r * kHk + kh) * kS + i] / norm;
        return y;
      };
      const std::vector<double> q = unit(b.q), k = unit(b.k);
      const double g = std::log1p(std::exp(double{b.alpha[r * kHv + h]} + dt[h])) * a[h];
      const double beta = 1.0 / (1.0 + std::exp(-double{b.beta[r * kHv + h]}));
      double* m = &state[h * kS * kS];
      for (int64_t i = 0; i < kS * kS; ++i) m[i] *= std::exp(g);
      for (int64_t j = 0; j < kS; ++j) {
        double sk = 0;
        for (int64_t i = 0; i < kS; ++i) sk += m[j * kS + i] * k[i];
        const double d = (b.v[(r * kHv + h) * kS + j] - sk) * beta;
        for (int64_t i = 0; i < kS; ++i) m[j * kS + i] += k[i] * d;
      }
      for (int64_t j = 0; j < kS; ++j) {
        double o = 0;
        for (int64_t i = 0; i < kS; ++i) o += m[j * kS + i] * q[i];
        out[(r * kHv + h) * kS + j] = o / std::sqrt(double{kS});
      }
    }
  }
  return out;
}

// Runs the op on one block of t rows (n real) with `state`; returns {out, new state}.
std::vector<std::vector<float>> RunBlock(const Block& b, int64_t t, int32_t n,
                                         const std::vector<float>& dt, const std::vector<float>& a,
                                         const std::vector<float>& state, int threads) {
  Graph g("gdn", {F32({t, kHk, kS}), F32({t, kHk, kS}), F32({t, kHv, kS}), F32({t, kHv}),
                  F32({t, kHv}), F32({kHv}), F32({kHv}), F32({kHv, kS, kS}), I32({1})});
  std::vector<Value> in;
  for (int i = 0; i < 9; ++i) in.push_back(g.Input(i));
  g.Output(ops::OpOutputs("gated_delta_net", in, {{"epsilon", double{kEps}}}));
  EXPECT_TRUE(g.status().ok()) << g.status();
  SessionOptions options;
  options.num_threads = threads;
  InferenceSession session(options);
  absl::StatusOr<CompiledGraph> model = session.Load(g);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  const std::vector<Tensor> tensors = {
      Floats({t, kHk, kS}, b.q), Floats({t, kHk, kS}, b.k),    Floats({t, kHv, kS}, b.v),
      Floats({t, kHv}, b.alpha), Floats({t, kHv}, b.beta),     Floats({kHv}, dt),
      Floats({kHv}, a),          Floats({kHv, kS, kS}, state), Ints({1}, {n})};
  std::vector<NamedTensor> named;
  std::vector<std::string> names;
  for (size_t i = 0; i < tensors.size(); ++i) names.push_back("input" + std::to_string(i));
  for (size_t i = 0; i < tensors.size(); ++i) named.emplace_back(names[i], tensors[i]);
  absl::StatusOr<TensorMap> out = model->Execute(named);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  std::vector<std::vector<float>> r;
  for (const char* name : {"output0", "output1"}) {
    absl::Span<const float> v = *out->Get(name)->Values<float>();
    r.emplace_back(v.begin(), v.end());
  }
  return r;
}

TEST(GatedDeltaNetOpTest, MatchesDoubleReferenceAcrossBlocks) {
  const std::vector<float> dt = Random(kHv, 5);
  std::vector<float> a = Random(kHv, 6);
  for (float& x : a) x = -std::exp(x);  // ssm_a = -exp(A_log)
  for (int threads : {1, 2}) {
    std::vector<double> want_state(kHv * kS * kS, 0.0);
    std::vector<float> state(kHv * kS * kS, 0.0f);
    // A prefill block of 5 rows with 2 padding rows, then two one-row decode blocks: the
    // padding rows must not reach the state.
    const struct {
      int64_t t;
      int32_t n;
    } blocks[] = {{7, 5}, {1, 1}, {1, 1}, {4, 3}};
    uint32_t seed = 100;
    for (const auto& bl : blocks) {
      const Block b = RandomBlock(bl.t, seed += 10);
      const std::vector<double> want = Reference(b, bl.t, bl.n, dt, a, want_state);
      std::vector<std::vector<float>> got = RunBlock(b, bl.t, bl.n, dt, a, state, threads);
      ASSERT_EQ(got.size(), 2u);
      ExpectClose(got[0], want, 1e-5);
      ExpectClose(got[1], want_state, 1e-5);
      state = got[1];
    }
    // The state is no longer zero (the check above compared something).
    double norm = 0;
    for (double x : want_state) norm += x * x;
    EXPECT_GT(norm, 0.1);
  }
}

TEST(GatedDeltaNetOpTest, NOfZeroKeepsTheStateAndZeroesTheOutput) {
  const std::vector<float> dt = Random(kHv, 5), a(kHv, -0.5f);
  const std::vector<float> state = Random(kHv * kS * kS, 9);
  std::vector<std::vector<float>> got = RunBlock(RandomBlock(3, 1), 3, 0, dt, a, state, 1);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1], state);
  EXPECT_EQ(got[0], std::vector<float>(3 * kHv * kS, 0.0f));
}

TEST(GatedDeltaNetOpTest, RefusesShapes) {
  auto build = [](std::vector<TensorType> types) {
    return BuildStatus(std::move(types), [](Graph& g) {
      std::vector<Value> in;
      for (int i = 0; i < 9; ++i) in.push_back(g.Input(i));
      ops::OpOutputs("gated_delta_net", in);
    });
  };
  absl::Status s = build({F32({2, 3, 8}), F32({2, 3, 8}), F32({2, 4, 8}), F32({2, 4}), F32({2, 4}),
                          F32({4}), F32({4}), F32({4, 8, 8}), I32({1})});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("v must be [t, hv, s] with hv a multiple of q's heads hk"));
  s = build({F32({2, 2, 8}), F32({2, 2, 8}), F32({2, 4, 8}), F32({2, 4}), F32({2, 4}), F32({4}),
             F32({4}), F32({4, 8, 4}), I32({1})});
  EXPECT_THAT(s.message(), HasSubstr("state must be [hv, s, s]"));
  s = build({F32({2, 2, 8}), F32({2, 2, 8}), F32({2, 4, 8}), F32({2, 4}), F32({2, 4}), F32({4}),
             F32({4}), F32({4, 8, 8}), F32({1})});
  EXPECT_THAT(s.message(), HasSubstr("n must be i32 [1]"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
