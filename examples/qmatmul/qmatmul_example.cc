#include "examples/qmatmul/qmatmul_example.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace edgeq {
namespace examples {

absl::StatusOr<QMatmulExampleResult> RunQMatmulExample(int num_threads) {
  const TensorType input_type(DType::kFloat32, {32, 64});
  EDGEQ_ASSIGN_OR_RETURN(Tensor w, Tensor::Full({32, 64}, 0.15f));
  EDGEQ_ASSIGN_OR_RETURN(Tensor input, Tensor::Full({32, 64}, 0.5f));

  // f32 reference: [32, 64] x [32, 64]^T.
  Graph f32_graph("matmul_f32", {input_type});
  f32_graph.Output(ops::MatmulTransposed(f32_graph.Input(0), f32_graph.Constant(w)));

  // The seed's graph.
  Graph graph("qmatmul", {input_type});
  Value qw = graph.Quantize(Q4_0Encoding(), w);
  graph.Output(ops::QMatmul(Q4_0Encoding(), graph.Input(0), qw));

  InferenceSession session({.num_threads = num_threads});
  EDGEQ_ASSIGN_OR_RETURN(CompiledGraph f32_model, session.Load(f32_graph));
  EDGEQ_ASSIGN_OR_RETURN(CompiledGraph model, session.Load(graph));

  QMatmulExampleResult result;
  EDGEQ_ASSIGN_OR_RETURN(TensorMap f32_out, f32_model.Execute({{"input0", input}}));
  EDGEQ_ASSIGN_OR_RETURN(Tensor f32_y, f32_out.Get("output0"));
  EDGEQ_ASSIGN_OR_RETURN(result.f32_result, f32_y.Clone());
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, model.Execute({{"input0", input}}));
  EDGEQ_ASSIGN_OR_RETURN(Tensor y, out.Get("output0"));
  EDGEQ_ASSIGN_OR_RETURN(result.q4_0_result, y.Clone());

  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> a, result.f32_result.Values<float>());
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> b, result.q4_0_result.Values<float>());
  for (size_t i = 0; i < a.size(); ++i) {
    result.max_abs_diff = std::max(result.max_abs_diff, std::fabs(a[i] - b[i]));
  }
  result.model_dump = model.DebugString();
  result.graph_dump = graph.ToString();
  return result;
}

std::string FormatQMatmulExample(const QMatmulExampleResult& result) {
  std::string out = result.graph_dump + result.model_dump;
  auto show = [&](const char* title, const Tensor& t) {
    absl::Span<const float> v = *t.Values<float>();
    absl::StrAppendFormat(&out, "%s %s, row 0: [", title, t.DebugString());
    for (int j = 0; j < 8; ++j) absl::StrAppendFormat(&out, "%s%.6f", j ? ", " : "", v[j]);
    absl::StrAppendFormat(&out, ", ...]\n");
  };
  show("f32 matmul: ", result.f32_result);
  show("q4_0 qmatmul:", result.q4_0_result);
  absl::StrAppendFormat(&out, "max |f32 - q4_0| = %.6g\n", result.max_abs_diff);
  return out;
}

}  // namespace examples
}  // namespace edgeq
