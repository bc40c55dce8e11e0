// qmatmul nodes against Dequantize + an f32 matmul, for every built-in encoding, with a tolerance
// derived from the kernels' 8-bit quantization of the activations.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace edgeq {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 7;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return v;
}

struct EncodingCase {
  const QuantizationEncoding* encoding;
  int64_t k;
  int64_t act_block;  // activations are quantized in blocks of this many values (0: not at all)
};

std::vector<EncodingCase> Cases() {
  return {{&Q4_0Encoding(), 64, 32},   {&Q8_0Encoding(), 96, 32},   {&Q4_KEncoding(), 256, 256},
          {&Q5_KEncoding(), 256, 256}, {&Q6_KEncoding(), 256, 256}, {&BFloat16Encoding(), 40, 0}};
}

// Checks one (encoding, m, n, threads) point; returns the number of mismatches.
void CheckQMatmul(const EncodingCase& c, int64_t m, int64_t n, int threads) {
  const int64_t k = c.k;
  std::vector<float> xv = Random(m * k, static_cast<uint32_t>(m * 131 + n));
  std::vector<float> wv = Random(n * k, static_cast<uint32_t>(n + 3));
  Tensor x = *Tensor::FromValues<float>({m, k}, xv);
  Tensor w = *Tensor::FromValues<float>({n, k}, wv);
  Graph graph("q", {TensorType(DType::kFloat32, {m, k})});
  graph.Output(ops::QMatmul(*c.encoding, graph.Input(0), graph.Quantize(*c.encoding, w)));
  InferenceSession session({.num_threads = threads});
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<Tensor> y = out->Get("output0");
  ASSERT_TRUE(y.ok());
  ASSERT_EQ(y->shape(), Shape({m, n}));
  absl::Span<const float> got = *y->Values<float>();

  Tensor dq = *c.encoding->Dequantize(*c.encoding->Quantize(w));
  absl::Span<const float> wd = *dq.Values<float>();
  for (int64_t i = 0; i < m; ++i) {
    // Per activation block: its 8-bit step (max |x| / 127) bounds the rounding error by half.
    std::vector<double> step(k, 0.0);
    if (c.act_block > 0) {
      for (int64_t b = 0; b < k; b += c.act_block) {
        double amax = 0;
        for (int64_t l = b; l < b + c.act_block; ++l)
          amax = std::max(amax, std::fabs(double{xv[i * k + l]}));
        for (int64_t l = b; l < b + c.act_block; ++l) step[l] = amax / 127.0;
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      double want = 0, bound = 0, mag = 0;
      for (int64_t l = 0; l < k; ++l) {
        want += double{xv[i * k + l]} * wd[j * k + l];
        bound += std::fabs(wd[j * k + l]) * step[l] * 0.5;
        mag += std::fabs(double{xv[i * k + l]} * wd[j * k + l]);
      }
      // Plus the fp16 rounding of the activation scales (2^-11 relative) and f32 summation.
      const double tol = bound * 1.01 + mag * (c.act_block > 0 ? 1.0 / 1024 : 1.0 / 256) + 1e-5;
      ASSERT_NEAR(got[i * n + j], want, tol)
          << c.encoding->name() << " m=" << m << " n=" << n << " threads=" << threads << " at ("
          << i << ", " << j << ")";
    }
  }
}

TEST(QMatmulOpTest, EveryEncodingEveryM) {
  for (const EncodingCase& c : Cases()) {
    for (int64_t m = 1; m <= 67; ++m) CheckQMatmul(c, m, 13, 1);
  }
}

// Past QMatmulKernel::Run's parallel threshold (1M multiply-adds) the pool's threads share the
// rows: 8 x 2048 x 256 (4M) with two threads, odd n included.
TEST(QMatmulOpTest, LargeProblemsRunOnThePool) {
  for (const EncodingCase& c : Cases()) {
    if (c.k < 256) continue;
    CheckQMatmul(c, 8, 2048, 2);
    CheckQMatmul(c, 1, 4099, 2);
  }
}

TEST(QMatmulOpTest, OddNAndTwoThreads) {
  for (const EncodingCase& c : Cases()) {
    for (int64_t n : {1, 3, 17, 33, 65}) {
      for (int64_t m : {1, 2, 7, 67}) {
        for (int threads : {1, 2}) CheckQMatmul(c, m, n, threads);
      }
    }
  }
}

TEST(QMatmulOpTest, BatchedActivations) {
  // lhs [2, 3, k] -> [2, 3, n].
  const EncodingCase c = Cases()[0];
  Tensor x = *Tensor::FromValues<float>({2, 3, 64}, Random(2 * 3 * 64, 5));
  Tensor w = *Tensor::FromValues<float>({9, 64}, Random(9 * 64, 6));
  Graph graph("q", {TensorType(DType::kFloat32, {2, 3, 64})});
  graph.Output(ops::QMatmul(*c.encoding, graph.Input(0), graph.Quantize(*c.encoding, w)));
  Graph flat("q", {TensorType(DType::kFloat32, {6, 64})});
  flat.Output(ops::QMatmul(*c.encoding, flat.Input(0), flat.Quantize(*c.encoding, w)));
  InferenceSession session;
  absl::StatusOr<CompiledGraph> a = session.Load(graph);
  absl::StatusOr<CompiledGraph> b = session.Load(flat);
  ASSERT_TRUE(a.ok() && b.ok());
  Tensor x2 = *x.Reshape({6, 64});
  absl::StatusOr<TensorMap> ya = a->Execute({{"input0", x}});
  absl::StatusOr<TensorMap> yb = b->Execute({{"input0", x2}});
  ASSERT_TRUE(ya.ok() && yb.ok());
  EXPECT_EQ(ya->Get("output0")->shape(), Shape({2, 3, 9}));
  EXPECT_EQ(ya->Get("output0")->bytes(), yb->Get("output0")->bytes());
}

}  // namespace
}  // namespace edgeq
