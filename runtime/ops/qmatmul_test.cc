// Op "qmatmul" (qmatmul.cc): a q8_0 and a q4_k product against a double reference over the
// decoded weights (the activations' 8-bit rounding bounds the difference); type and attribute
// errors. Every kernel is checked exhaustively by runtime/kernels/kernel_test.cc.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "quantization/encoding.h"
#include "runtime/ops/op_test_util.h"

namespace edgeq {
namespace op_test {
namespace {

using ::testing::HasSubstr;

TEST(QMatmulOpTest, MatchesDoubleReferenceOverDecodedWeights) {
  const int64_t m = 3, n = 7, k = 256;
  const std::vector<float> x = Random(m * k, 101), w = Random(n * k, 102);
  for (const QuantizationEncoding* enc : {&Q8_0Encoding(), &Q4_KEncoding()}) {
    const Tensor q = *enc->Quantize(Floats({n, k}, w));
    const Tensor decoded = *enc->Dequantize(q);
    const absl::Span<const float> d = *decoded.Values<float>();
    Graph g("qmatmul", {F32({m, k})});
    g.Output(ops::QMatmul(*enc, g.Input(0), g.Constant(q)));
    EXPECT_THAT(g.ToString(), HasSubstr(absl::StrCat("{encoding=", enc->name(), "}")));
    std::vector<double> want;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t l = 0; l < k; ++l) s += double{x[i * k + l]} * d[j * k + l];
        want.push_back(s);
      }
    }
    // x in [-1, 1) quantized to 8 bits per block: |error| <= sum |w| / 254 < k / 254 ~ 1.
    for (int threads : {1, 2}) ExpectClose(RunGraph(g, {Floats({m, k}, x)}, threads), want, 0.05);
  }
}

TEST(QMatmulOpTest, RefusesTypesAndAttributes) {
  const Tensor q = *Q8_0Encoding().Quantize(Floats({4, 32}, Random(4 * 32, 1)));
  Graph g("qmatmul", {F32({2, 32}), F32({4, 32})});
  ops::QMatmul(Q4_0Encoding(), g.Input(0), g.Constant(q));
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(),
              HasSubstr("rhs is encoded with q8_0, but the op was given encoding q4_0"));
  Graph h("qmatmul", {F32({2, 64})});
  ops::QMatmul(Q8_0Encoding(), h.Input(0), h.Constant(q));
  EXPECT_THAT(h.status().message(),
              HasSubstr("lhs k=64 but rhs (logical [4, 32], transposed) has k=32"));
  absl::Status s = BuildStatus({F32({2, 32}), F32({4, 32})}, [](Graph& g) {
    ops::Op("qmatmul", {g.Input(0), g.Input(1)}, {{"encoding", std::string("q9_9")}});
  });
  EXPECT_THAT(s.message(), HasSubstr("qmatmul: attribute encoding: "));
  s = BuildStatus({F32({2, 32}), F32({4, 32})}, [](Graph& g) {
    ops::Op("qmatmul", {g.Input(0), g.Input(1)});
  });
  EXPECT_THAT(s.message(), HasSubstr("qmatmul: missing attribute encoding"));
}

}  // namespace
}  // namespace op_test
}  // namespace edgeq
