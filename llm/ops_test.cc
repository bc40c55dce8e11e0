// The decoder ops of llm/ops.h (and the built-in ops the decoders use for bias add and head-wise
// RMSNorm) against naive references written here.
#include "llm/ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "runtime/session.h"

namespace edgeq {
namespace llm {
namespace {

TensorType F32(Shape s) { return TensorType(DType::kFloat32, std::move(s)); }
TensorType I32(Shape s) { return TensorType(DType::kInt32, std::move(s)); }

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return v;
}

// Loads `graph`, runs it on input0, input1, ... and returns output0 (empty on error).
std::vector<float> RunGraph(const Graph& graph, const std::vector<Tensor>& inputs) {
  EXPECT_TRUE(RegisterLlmOps().ok());
  InferenceSession session({.num_threads = 1});
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  EXPECT_TRUE(model.ok()) << model.status();
  if (!model.ok()) return {};
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) names.push_back("input" + std::to_string(i));
  std::vector<NamedTensor> named;
  for (size_t i = 0; i < inputs.size(); ++i) named.emplace_back(names[i], inputs[i]);
  absl::StatusOr<TensorMap> out = model->Execute(named);
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  absl::Span<const float> v = *out->Get("output0")->Values<float>();
  return std::vector<float>(v.begin(), v.end());
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
    }
  }
}

class RopeTest : public ::testing::TestWithParam<RopeMode> {};

TEST_P(RopeTest, MatchesReference) {
  const RopeMode mode = GetParam();
  const int64_t t = 3, heads = 2, d = 10, pairs = 4;  // dims 8, 9 pass through
  const std::vector<float> x = Random(t * heads * d, 1);
  const std::vector<int32_t> pos = {0, 5, 17};
  std::vector<float> inv(pairs);
  for (int i = 0; i < pairs; ++i) inv[i] = std::pow(100.0f, -2.0f * i / (2 * pairs));
  Graph g("rope", {F32({t, heads, d}), I32({t})});
  g.Output(
      Rope(g.Input(0), g.Input(1), g.Constant(*Tensor::FromValues<float>({pairs}, inv)), mode));
  const std::vector<float> got = RunGraph(
      g, {*Tensor::FromValues<float>({t, heads, d}, x), *Tensor::FromValues<int32_t>({t}, pos)});
  std::vector<float> want = x;
  for (int64_t j = 0; j < t; ++j) {
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t o = (j * heads + h) * d;
      for (int64_t i = 0; i < pairs; ++i) {
        const int64_t a = mode == RopeMode::kNeox ? i : 2 * i;
        const int64_t b = mode == RopeMode::kNeox ? i + pairs : 2 * i + 1;
        const double angle = static_cast<double>(pos[j]) * inv[i];
        want[o + a] = static_cast<float>(x[o + a] * std::cos(angle) - x[o + b] * std::sin(angle));
        want[o + b] = static_cast<float>(x[o + a] * std::sin(angle) + x[o + b] * std::cos(angle));
      }
    }
  }
  ExpectNear(got, want, 2e-5f);
  // Position 0 is the identity, and the pass-through dimensions are untouched.
  for (int64_t i = 0; i < heads * d; ++i) EXPECT_EQ(got[i], x[i]);
  EXPECT_EQ(got[d + 8], x[d + 8]);
  EXPECT_EQ(got[(2 * heads - 1) * d + 9], x[(2 * heads - 1) * d + 9]);
}

INSTANTIATE_TEST_SUITE_P(Modes, RopeTest, ::testing::Values(RopeMode::kNorm, RopeMode::kNeox));

TEST(RopeTest, NeoxPairsHalves) {
  // One head of 4 dims at position 1 with angle pi/2 for pair 0 and 0 for pair 1:
  // NEOX rotates (x0, x2) and (x1, x3); NORM rotates (x0, x1) and (x2, x3).
  Graph g("rope", {F32({1, 1, 4}), I32({1})});
  const Value inv = g.Constant(*Tensor::FromValues<float>({2}, {static_cast<float>(M_PI / 2), 0}));
  g.Output(Rope(g.Input(0), g.Input(1), inv, RopeMode::kNeox));
  const std::vector<float> got = RunGraph(g, {*Tensor::FromValues<float>({1, 1, 4}, {1, 2, 3, 4}),
                                              *Tensor::FromValues<int32_t>({1}, {1})});
  ExpectNear(got, {-3, 2, 1, 4}, 1e-6f);
}

TEST(RopeTest, RejectsBadShapes) {
  // The op's type inference runs as the node is built: the graph records the error.
  Graph g("rope", {F32({2, 1, 4}), I32({3})});
  g.Output(Rope(g.Input(0), g.Input(1), g.Constant(*Tensor::Full({2}, 1.0f)), RopeMode::kNeox));
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find("rope(f32[2, 1, 4], i32[3], f32[2]): positions must be [s] "
                                      "with s the first dimension of x"),
            std::string::npos)
      << g.status();
  InferenceSession session;
  EXPECT_EQ(session.Load(g).status(), g.status());
}

TEST(GeluTanhTest, MatchesFormula) {
  std::vector<float> x = Random(64, 3);
  for (float& v : x) v *= 6.0f;
  x.push_back(0.0f);
  x.push_back(20.0f);
  x.push_back(-20.0f);
  const int64_t n = static_cast<int64_t>(x.size());
  Graph g("gelu_tanh", {F32({n})});
  g.Output(GeluTanh(g.Input(0)));
  const std::vector<float> got = RunGraph(g, {*Tensor::FromValues<float>({n}, x)});
  std::vector<float> want;
  for (float v : x) {
    const double d = v;
    want.push_back(static_cast<float>(
        0.5 * d * (1 + std::tanh(std::sqrt(2 / M_PI) * (d + 0.044715 * d * d * d)))));
  }
  ExpectNear(got, want, 1e-5f);
  EXPECT_EQ(got[n - 3], 0.0f);
  EXPECT_EQ(got[n - 2], 20.0f);
  EXPECT_EQ(got[n - 1], -0.0f);
  // Known values: gelu_tanh(1) = 0.841192, gelu_tanh(-1) = -0.158808.
  Graph g2("gelu_tanh", {F32({2})});
  g2.Output(GeluTanh(g2.Input(0)));
  ExpectNear(RunGraph(g2, {*Tensor::FromValues<float>({2}, {1.0f, -1.0f})}),
             {0.841192f, -0.158808f}, 1e-6f);
}

TEST(GeluTanhTest, HalfPrecisionTableAsGgml) {
  std::vector<float> x = Random(256, 4);
  for (float& v : x) v *= 8.0f;
  for (float v : {-10.0f, -10.5f, 10.0f, 12.25f, 0.0f, 1.0f}) x.push_back(v);
  const int64_t n = static_cast<int64_t>(x.size());
  Graph g("gelu_tanh_f16", {F32({n})});
  g.Output(GeluTanh(g.Input(0), /*half_precision_table=*/true));
  const std::vector<float> got = RunGraph(g, {*Tensor::FromValues<float>({n}, x)});
  ASSERT_EQ(got.size(), x.size());
  double worst = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    const double exact =
        0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
    if (v <= -10) {
      EXPECT_EQ(got[i], 0.0f);
    } else if (v >= 10) {
      EXPECT_EQ(got[i], x[i]);
    } else {
      // fp16 input and output: within ~2^-10 of the value (plus the input's rounding).
      EXPECT_NEAR(got[i], exact, 2e-3 * std::fabs(exact) + 2e-3 * std::fabs(v) + 1e-6) << v;
      worst = std::max(worst, std::fabs(got[i] - exact));
      // The result is an fp16 value.
      EXPECT_EQ(got[i], static_cast<float>(got[i])) << v;
    }
  }
  EXPECT_GT(worst, 0);  // not the f32 formula
  // gelu(1) = 0.841192 -> fp16 0.84130859375 (nearest: 0.8413 vs 0.84082 spacing 2^-11).
  EXPECT_EQ(got[n - 1], 0.84130859375f);
}

TEST(TanhTest, MatchesStd) {
  const std::vector<float> x = {-30.0f, -1.0f, 0.0f, 0.5f, 2.0f, 30.0f};
  Graph g("tanh", {F32({6})});
  g.Output(Tanh(g.Input(0)));
  std::vector<float> want;
  for (float v : x) want.push_back(std::tanh(v));
  ExpectNear(RunGraph(g, {*Tensor::FromValues<float>({6}, x)}), want, 1e-7f);
  EXPECT_NEAR(want[3], 0.46211716f, 1e-7f);
}

// The decoders' bias add and head-wise RMSNorm are built-in ops: Add broadcasts a [d] bias over
// rows, RmsNorm on [t, heads, hd] normalizes each head with a [hd] weight.
TEST(BuiltinOpsTest, BiasAddAndHeadwiseRmsNorm) {
  const int64_t t = 2, heads = 3, hd = 4;
  const std::vector<float> x = Random(t * heads * hd, 5);
  const std::vector<float> bias = Random(heads * hd, 6);
  const std::vector<float> w = Random(hd, 7);
  Graph g("qk_norm", {F32({t, heads * hd})});
  const Value biased =
      ops::Add(g.Input(0), g.Constant(*Tensor::FromValues<float>({heads * hd}, bias)));
  g.Output(ops::RmsNorm(ops::Reshape(biased, {t, heads, hd}),
                        g.Constant(*Tensor::FromValues<float>({hd}, w)), 1e-6f));
  const std::vector<float> got = RunGraph(g, {*Tensor::FromValues<float>({t, heads * hd}, x)});
  std::vector<float> want(x.size());
  for (int64_t r = 0; r < t * heads; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < hd; ++i) {
      const double v = x[r * hd + i] + bias[(r % heads) * hd + i];
      ss += v * v;
    }
    const double scale = 1.0 / std::sqrt(ss / hd + 1e-6);
    for (int64_t i = 0; i < hd; ++i) {
      want[r * hd + i] =
          static_cast<float>((x[r * hd + i] + bias[(r % heads) * hd + i]) * scale * w[i]);
    }
  }
  ExpectNear(got, want, 1e-5f);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
