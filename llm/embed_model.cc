// Model::PrefillEmbeddings (llm/model.h): kept apart from model.cc, beside the embeddings that
// use it (llm/embed.h).
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "llm/model.h"
#include "llm/prefill_plan.h"

namespace edgeq {
namespace llm {

// The output norm (RMSNorm with output_norm.weight, as
// ggml_rms_norm: the sum of squares in double, the scale 1/sqrtf(mean + eps) in float) on each
// hidden row the body graphs give.
absl::Status Model::PrefillEmbeddings(
    absl::Span<const int> tokens, int pos,
    const std::function<absl::Status(int, absl::Span<const float>)>& on_row) {
  EDGEQ_RETURN_IF_ERROR(Check(tokens, pos));
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, weights_.Get("output_norm.weight", DType::kFloat32));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> weight, w->Values<float>());
  const int64_t dim = config_.embedding_length;
  if (static_cast<int64_t>(weight.size()) != dim) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "output_norm.weight has %d values; expected embedding_length %d", weight.size(), dim));
  }
  std::vector<float> row(dim);
  size_t i = 0;
  for (int size : PlanPrefill(static_cast<int64_t>(tokens.size()), block_sizes_)) {
    EDGEQ_ASSIGN_OR_RETURN(Block * b, BlockOfSize(size));
    const size_t n = std::min(tokens.size() - i, static_cast<size_t>(b->t));
    EDGEQ_ASSIGN_OR_RETURN(Tensor hidden,
                           RunBlock(*b, tokens.subspan(i, n), pos + static_cast<int>(i)));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> h, hidden.Values<float>());
    for (size_t r = 0; r < n; ++r) {
      const float* x = h.data() + r * dim;
      double sum = 0;
      for (int64_t k = 0; k < dim; ++k) sum += static_cast<double>(x[k]) * x[k];
      const float mean = static_cast<float>(sum / dim);
      const float scale = 1.0f / std::sqrt(mean + config_.rms_norm_epsilon);
      for (int64_t k = 0; k < dim; ++k) row[k] = (x[k] * scale) * weight[k];
      EDGEQ_RETURN_IF_ERROR(on_row(static_cast<int>(i + r), row));
    }
    i += n;
  }
  return absl::OkStatus();
}

}  // namespace llm
}  // namespace edgeq
