#include "examples/custom_encoding/custom_op.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "gmock/gmock.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace edgeq {
namespace examples {
namespace {

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return v;
}

TEST(Q3SymMatmulOpTest, MatchesDequantizeThenMatmul) {
  ASSERT_TRUE(RegisterQ3SymMatmulOp().ok());
  ASSERT_TRUE(RegisterQ3SymMatmulOp().ok());  // idempotent
  const QuantizationEncoding* q3 = *FindEncoding("q3_sym");
  const int64_t m = 3, n = 5, k = 96;
  Tensor w = *Tensor::FromValues<float>({n, k}, Random(n * k, 1));
  std::vector<float> xv = Random(m * k, 2);
  Tensor x = *Tensor::FromValues<float>({m, k}, xv);

  Graph graph("q3", {TensorType(DType::kFloat32, {m, k})});
  Value qw = graph.Quantize(*q3, w);
  graph.Output(
      ops::Custom(kQ3SymMatmulOp, {graph.Input(0), qw}, {TensorType(DType::kFloat32, {m, n})})[0]);
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<TensorMap> out = model->Execute({{"input0", x}});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<Tensor> y = out->Get("output0");
  ASSERT_TRUE(y.ok());
  absl::Span<const float> got = *y->Values<float>();

  Tensor dq = *q3->Dequantize(*q3->Quantize(w));
  absl::Span<const float> wd = *dq.Values<float>();
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (int64_t l = 0; l < k; ++l) want += double{xv[i * k + l]} * wd[j * k + l];
      EXPECT_NEAR(got[i * n + j], want, 1e-4) << i << ", " << j;
    }
  }
}

TEST(Q3SymMatmulOpTest, ShapeFunctionRejectsOtherEncodings) {
  ASSERT_TRUE(RegisterQ3SymMatmulOp().ok());
  Graph graph("q3", {TensorType(DType::kFloat32, {2, 64})});
  Value qw = graph.Quantize(Q4_0Encoding(), *Tensor::Full({4, 64}, 1.0f));
  graph.Output(
      ops::Custom(kQ3SymMatmulOp, {graph.Input(0), qw}, {TensorType(DType::kFloat32, {2, 4})})[0]);
  InferenceSession session;
  absl::StatusOr<CompiledGraph> model = session.Load(graph);
  EXPECT_THAT(std::string(model.status().message()),
              ::testing::HasSubstr("W must be q3_sym of logical shape [n, 64], got u8[4, 36] "
                                   "(q4_0 of [4, 64])"));
}

}  // namespace
}  // namespace examples
}  // namespace edgeq
