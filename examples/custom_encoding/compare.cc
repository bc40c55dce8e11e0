#include "examples/custom_encoding/compare.h"

#include <cmath>
#include <random>
#include <vector>

#include "core/status_macros.h"
#include "core/tensor.h"
#include "examples/custom_encoding/q3_sym.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace examples {

absl::StatusOr<std::vector<EncodingError>> CompareEncodings() {
  EDGEQ_RETURN_IF_ERROR(RegisterQ3SymEncoding());

  std::mt19937 rng(2024);
  std::normal_distribution<float> dist(0.0f, 0.02f);
  std::vector<float> w(64 * 256);
  for (float& v : w) v = dist(rng);
  EDGEQ_ASSIGN_OR_RETURN(Tensor weights, Tensor::FromValues<float>(Shape{64, 256}, w));

  std::vector<EncodingError> rows;
  for (const char* name : {"q3_sym", "q4_0", "q8_0"}) {
    // Looked up by name, exactly like a built-in.
    EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* enc, FindEncoding(name));
    EDGEQ_ASSIGN_OR_RETURN(Tensor q, enc->Quantize(weights));
    // The tensor's tag is enough to find its decoder again.
    EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* dec, FindEncoding(q.encoding()));
    EDGEQ_ASSIGN_OR_RETURN(Tensor y, dec->Dequantize(q));
    const float* yv = static_cast<const float*>(y.raw_data());
    double sq = 0, max_err = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      const double e = std::fabs(static_cast<double>(yv[i]) - w[i]);
      sq += e * e;
      if (e > max_err) max_err = e;
    }
    rows.push_back({name, q.shape().ToString(), static_cast<int64_t>(q.size_bytes()),
                    std::sqrt(sq / w.size()), max_err});
  }
  return rows;
}

}  // namespace examples
}  // namespace edgeq
