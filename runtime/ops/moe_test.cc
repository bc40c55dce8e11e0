// Op "moe" (moe.cc): routed experts against a double reference (softmax and sigmoid gating, the
// selection bias, renormalisation, f32 and quantized experts, padding rows zero and unread),
// ties broken towards the lower expert index, and its errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/ops/op_test_util.h"
#include "runtime/session.h"

namespace edgeq {
namespace op_test {
namespace {

using ::testing::HasSubstr;

struct Case {
  int64_t t, d, e, f, k;
  bool sigmoid = false;
  bool normalize = true;
  double scale = 1.0;
  bool bias = false;
};

struct Weights {
  std::vector<float> gate, up, down;  // [e, f, d], [e, f, d], [e, d, f] (decoded if quantized)
  Tensor gate_t, up_t, down_t;        // the graph constants
};

Weights MakeWeights(const Case& c, const QuantizationEncoding* enc, uint32_t seed) {
  Weights w;
  w.gate = Random(c.e * c.f * c.d, seed);
  w.up = Random(c.e * c.f * c.d, seed + 1);
  w.down = Random(c.e * c.d * c.f, seed + 2);
  w.gate_t = Floats({c.e, c.f, c.d}, w.gate);
  w.up_t = Floats({c.e, c.f, c.d}, w.up);
  w.down_t = Floats({c.e, c.d, c.f}, w.down);
  if (enc != nullptr) {
    for (auto [v, t] : {std::pair{&w.gate, &w.gate_t}, {&w.up, &w.up_t}, {&w.down, &w.down_t}}) {
      *t = *enc->Quantize(*t);
      const Tensor decoded = *enc->Dequantize(*t);
      const absl::Span<const float> d = *decoded.Values<float>();
      v->assign(d.begin(), d.end());
    }
  }
  return w;
}

Graph MoeGraph(const Case& c, const Weights& w, const std::vector<float>& bias) {
  std::vector<TensorType> in = {F32({c.t, c.d}), F32({c.t, c.e}), I32({1})};
  Graph g("moe", in);
  std::vector<Value> args = {g.Input(0),         g.Input(1),           g.Constant(w.gate_t),
                             g.Constant(w.up_t), g.Constant(w.down_t), g.Input(2)};
  if (c.bias) args.push_back(g.Constant(Floats({c.e}, bias)));
  g.Output(ops::Op("moe", args,
                   {{"gating", std::string(c.sigmoid ? "sigmoid" : "softmax")},
                    {"k", c.k},
                    {"normalize", int64_t{c.normalize ? 1 : 0}},
                    {"scale", c.scale}}));
  EXPECT_TRUE(g.status().ok()) << g.status();
  return g;
}

// The double reference of the first n rows (zeros after).
std::vector<double> Reference(const Case& c, const Weights& w, const std::vector<float>& x,
                              const std::vector<float>& logits, const std::vector<float>& bias,
                              int64_t n) {
  std::vector<double> y(c.t * c.d, 0.0);
  for (int64_t r = 0; r < n; ++r) {
    std::vector<double> p(c.e);
    double mx = -INFINITY, sum = 0;
    for (int64_t j = 0; j < c.e; ++j) mx = std::max(mx, double{logits[r * c.e + j]});
    for (int64_t j = 0; j < c.e; ++j) {
      const double l = logits[r * c.e + j];
      p[j] = c.sigmoid ? 1.0 / (1.0 + std::exp(-l)) : std::exp(l - mx);
      sum += p[j];
    }
    if (!c.sigmoid)
      for (double& v : p) v /= sum;
    std::vector<int> order(c.e);
    std::iota(order.begin(), order.end(), 0);
    auto score = [&](int j) { return p[j] + (c.bias ? bias[j] : 0.0); };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score(a) > score(b); });
    double wsum = 0;
    for (int64_t i = 0; i < c.k; ++i) wsum += p[order[i]];
    for (int64_t i = 0; i < c.k; ++i) {
      const int e = order[i];
      const double wt = p[e] / (c.normalize ? std::max(wsum, 6.103515625e-5) : 1.0) * c.scale;
      std::vector<double> h(c.f);
      for (int64_t j = 0; j < c.f; ++j) {
        double g = 0, u = 0;
        for (int64_t l = 0; l < c.d; ++l) {
          g += double{w.gate[(e * c.f + j) * c.d + l]} * x[r * c.d + l];
          u += double{w.up[(e * c.f + j) * c.d + l]} * x[r * c.d + l];
        }
        h[j] = g / (1.0 + std::exp(-g)) * u;
      }
      for (int64_t j = 0; j < c.d; ++j) {
        double s = 0;
        for (int64_t l = 0; l < c.f; ++l) s += double{w.down[(e * c.d + j) * c.f + l]} * h[l];
        y[r * c.d + j] += wt * s;
      }
    }
  }
  return y;
}

std::vector<float> RunMoe(const Case& c, const Weights& w, const std::vector<float>& x,
                          const std::vector<float>& logits, const std::vector<float>& bias, int n,
                          int threads) {
  return RunGraph(MoeGraph(c, w, bias),
                  {Floats({c.t, c.d}, x), Floats({c.t, c.e}, logits), Ints({1}, {n})}, threads);
}

// max |got - want| <= tol * max |want| (quantized experts: the kernels round the activations
// to 8 bits per block twice, before gate/up and before down, an error proportional to the
// largest values of a row rather than to each output).
void ExpectNormwiseClose(const std::vector<float>& got, const std::vector<double>& want,
                         double tol) {
  ASSERT_EQ(got.size(), want.size());
  double err = 0, scale = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    err = std::max(err, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
    if (want[i] == 0.0) {
      EXPECT_EQ(got[i], 0.0f) << "at " << i;  // padding rows
    }
  }
  EXPECT_LE(err, tol * scale);
}

// Padding rows (the last) hold huge values: their output rows are zero and nothing else moves.
void CheckCase(const Case& c, const QuantizationEncoding* enc, int n, double tol) {
  const Weights w = MakeWeights(c, enc, 11);
  std::vector<float> x = Random(c.t * c.d, 21), logits = Random(c.t * c.e, 22);
  for (float& v : logits) v *= 4.0f;
  for (int64_t i = n * c.d; i < c.t * c.d; ++i) x[i] = 1e30f;
  const std::vector<float> bias = Random(c.e, 23);
  const std::vector<double> want = Reference(c, w, x, logits, bias, n);
  for (int threads : {1, 2}) {
    const std::vector<float> got = RunMoe(c, w, x, logits, bias, n, threads);
    if (enc == nullptr) {
      ExpectClose(got, want, tol);
    } else {
      ExpectNormwiseClose(got, want, tol);
    }
  }
}

TEST(MoeOpTest, SoftmaxF32ExpertsMatchDoubleReference) {
  CheckCase({/*t=*/6, /*d=*/48, /*e=*/5, /*f=*/40, /*k=*/2}, nullptr, 5, 1e-5);
  CheckCase({/*t=*/3, /*d=*/48, /*e=*/5, /*f=*/40, /*k=*/3, false, /*normalize=*/false,
             /*scale=*/2.5},
            nullptr, 3, 1e-5);
}

TEST(MoeOpTest, SigmoidGatingWithSelectionBias) {
  // Bias in [-1, 1) against sigmoid probabilities in (0, 1): it changes the choice.
  CheckCase({/*t=*/7, /*d=*/32, /*e=*/8, /*f=*/64, /*k=*/2, /*sigmoid=*/true, true, 1.0,
             /*bias=*/true},
            nullptr, 7, 1e-5);
}

TEST(MoeOpTest, QuantizedExpertsMatchDecodedReference) {
  // A wrong expert or weight gives errors of the order of the values themselves.
  CheckCase({/*t=*/9, /*d=*/64, /*e=*/6, /*f=*/96, /*k=*/2}, &Q8_0Encoding(), 8, 0.03);
  CheckCase({/*t=*/1, /*d=*/64, /*e=*/6, /*f=*/96, /*k=*/2}, &Q4_0Encoding(), 1, 0.03);
  CheckCase({/*t=*/5, /*d=*/256, /*e=*/3, /*f=*/256, /*k=*/2, /*sigmoid=*/true, true, 1.0, true},
            &Q4_KEncoding(), 4, 0.03);
}

// Equal logits: the k lowest expert indices are chosen (the reference's stable sort).
TEST(MoeOpTest, TiesChooseTheLowerExpertIndex) {
  const Case c{2, 32, 6, 32, 3};
  const Weights w = MakeWeights(c, nullptr, 31);
  const std::vector<float> x = Random(c.t * c.d, 32), logits(c.t * c.e, 0.5f);
  const std::vector<double> want = Reference(c, w, x, logits, {}, 2);
  ExpectClose(RunMoe(c, w, x, logits, {}, 2, 1), want, 1e-5);
  // Experts 3..5 instead would give other values: the check can fail.
  Weights other = w;
  std::rotate(other.gate.begin(), other.gate.begin() + 3 * c.f * c.d, other.gate.end());
  const std::vector<double> wrong = Reference(c, other, x, logits, {}, 2);
  EXPECT_GT(std::abs(wrong[0] - want[0]), 1e-3);
}

TEST(MoeOpTest, RefusesTypesAttributesAndRowCounts) {
  const Case c{2, 32, 4, 32, 2};
  const Weights w = MakeWeights(c, nullptr, 41);
  auto build = [&](const std::string& gating, int64_t k, Shape down_shape) {
    return BuildStatus({F32({2, 32}), F32({2, 4}), I32({1})}, [&](Graph& g) {
      const Tensor down = Floats(down_shape, std::vector<float>(down_shape.num_elements(), 0.f));
      ops::Op("moe",
              {g.Input(0), g.Input(1), g.Constant(w.gate_t), g.Constant(w.up_t), g.Constant(down),
               g.Input(2)},
              {{"gating", gating}, {"k", k}});
    });
  };
  EXPECT_THAT(build("relu", 2, {4, 32, 32}).message(),
              HasSubstr("moe: attribute gating is 'relu'; expected softmax or sigmoid"));
  EXPECT_THAT(build("softmax", 5, {4, 32, 32}).message(),
              HasSubstr("k=5 experts per row but logits have 4 experts"));
  EXPECT_THAT(build("softmax", 0, {4, 32, 32}).message(),
              HasSubstr("moe: attribute k is 0; expected at least 1"));
  const absl::Status shape = build("softmax", 2, {4, 32, 16});
  EXPECT_EQ(shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(shape.message(), HasSubstr("down must be f32 or quantized of logical shape "
                                         "[4, 32, 32]"));
  // n past the block at Execute: OutOfRange naming the bound.
  SessionOptions options;
  InferenceSession session(options);
  absl::StatusOr<CompiledGraph> model = session.Load(MoeGraph(c, w, {}));
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor x = Floats({2, 32}, Random(64, 1)), l = Floats({2, 4}, Random(8, 2));
  const Tensor n = Ints({1}, {3});
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}, {"input1", l}, {"input2", n}});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_THAT(out.status().message(),
              HasSubstr("moe: real row count n is 3; expected 0 <= n <= 2"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
