#include "examples/mixed_precision/mixed_precision.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "graph/ops.h"
#include "quantization/encoding.h"
#include "runtime/session.h"

namespace edgeq {
namespace examples {
namespace {

// Deterministic, roughly Gaussian values (sum of four uniforms), scaled.
std::vector<float> Weights(int64_t count, uint32_t seed, float scale) {
  std::vector<float> v(count);
  uint32_t s = seed;
  auto uniform = [&s] {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>(s >> 8) / static_cast<float>(1 << 24) - 0.5f;
  };
  for (float& x : v) x = scale * (uniform() + uniform() + uniform() + uniform());
  return v;
}

}  // namespace

absl::StatusOr<std::vector<MixedPrecisionRow>> RunMixedPrecision(const MixedPrecisionOptions& o) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor w,
                         Tensor::FromValues<float>({o.n, o.k}, Weights(o.n * o.k, 1, 0.05f)));
  EDGEQ_ASSIGN_OR_RETURN(Tensor x,
                         Tensor::FromValues<float>({o.m, o.k}, Weights(o.m * o.k, 2, 1.0f)));
  const std::vector<const QuantizationEncoding*> encodings = {&Q4_0Encoding(), &Q6_KEncoding(),
                                                              &Q8_0Encoding()};
  Graph graph("mixed_precision", {TensorType(DType::kFloat32, {o.m, o.k})});
  std::vector<MixedPrecisionRow> rows;
  for (const QuantizationEncoding* e : encodings) {
    Value qw = graph.Quantize(*e, w);
    graph.Output(ops::QMatmul(*e, graph.Input(0), qw));
    MixedPrecisionRow row;
    row.encoding = std::string(e->name());
    if (qw.ok()) row.weight_bytes = qw.shape().num_elements();
    rows.push_back(row);
  }
  graph.Output(ops::MatmulTransposed(graph.Input(0), graph.Constant(w)));
  MixedPrecisionRow f32_row;
  f32_row.encoding = "f32";
  f32_row.weight_bytes = o.n * o.k * 4;
  rows.push_back(f32_row);

  InferenceSession session({.num_threads = o.num_threads});
  EDGEQ_ASSIGN_OR_RETURN(CompiledGraph model, session.Load(graph));
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, model.Execute({{"input0", x}}));

  // Kernel names, in output order, from the model's dump ("%id = op -> kernel").
  const std::string dump = model.DebugString();
  std::vector<std::string> kernels;
  for (size_t pos = dump.find(" -> "); pos != std::string::npos; pos = dump.find(" -> ", pos + 1)) {
    kernels.push_back(dump.substr(pos + 4, dump.find('\n', pos) - pos - 4));
  }

  EDGEQ_ASSIGN_OR_RETURN(Tensor ref_t, out.Get("output3"));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> ref, ref_t.Values<float>());
  double ref_sq = 0;
  for (float v : ref) ref_sq += double{v} * v;
  const double ref_rms = std::sqrt(ref_sq / static_cast<double>(ref.size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    EDGEQ_ASSIGN_OR_RETURN(Tensor t, out.Get(absl::StrFormat("output%d", i)));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> y, t.Values<float>());
    double sq = 0, mx = 0;
    for (size_t j = 0; j < y.size(); ++j) {
      const double d = std::fabs(double{y[j]} - ref[j]);
      mx = std::max(mx, d);
      sq += d * d;
    }
    rows[i].max_abs_error = mx;
    rows[i].relative_rmse = std::sqrt(sq / static_cast<double>(y.size())) / ref_rms;
    rows[i].bits_per_weight =
        8.0 * static_cast<double>(rows[i].weight_bytes) / static_cast<double>(o.n * o.k);
    if (i < kernels.size()) rows[i].kernel = kernels[i];
  }
  return rows;
}

std::string FormatMixedPrecision(const std::vector<MixedPrecisionRow>& rows) {
  std::string out = absl::StrFormat("%-6s %-24s %12s %10s %14s %14s\n", "weight", "kernel", "bytes",
                                    "bits/w", "max abs err", "relative rmse");
  for (const MixedPrecisionRow& r : rows) {
    absl::StrAppendFormat(&out, "%-6s %-24s %12d %10.3f %14.6f %14.6f\n", r.encoding, r.kernel,
                          r.weight_bytes, r.bits_per_weight, r.max_abs_error, r.relative_rmse);
  }
  return out;
}

}  // namespace examples
}  // namespace edgeq
