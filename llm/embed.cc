#include "llm/embed.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace llm {

absl::StatusOr<Pooling> ParsePooling(absl::string_view name) {
  for (Pooling p : {Pooling::kNone, Pooling::kMean, Pooling::kCls, Pooling::kLast}) {
    if (name == PoolingName(p)) return p;
  }
  return absl::InvalidArgumentError(
      absl::StrFormat("pooling %s; expected one of none, mean, cls, last", QuoteForError(name)));
}

const char* PoolingName(Pooling pooling) {
  switch (pooling) {
    case Pooling::kNone:
      return "none";
    case Pooling::kMean:
      return "mean";
    case Pooling::kCls:
      return "cls";
    case Pooling::kLast:
      return "last";
  }
  return "?";
}

absl::Status NormalizeEmbedding(absl::Span<float> v, int normalize) {
  if (normalize < -1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "embedding normalization %d; expected -1 (none), 0 (int16), 1, 2 (euclidean) or a "
        "p > 2",
        normalize));
  }
  double sum = 0.0;
  if (normalize == -1) {
    sum = 1.0;
  } else if (normalize == 0) {
    for (float x : v) sum = std::max(sum, static_cast<double>(std::abs(x)));
    sum /= 32760.0;
  } else if (normalize == 2) {
    for (float x : v) sum += x * x;  // float products, as common_embd_normalize
    sum = std::sqrt(sum);
  } else {
    for (float x : v) sum += std::pow(std::abs(x), normalize);
    sum = std::pow(sum, 1.0 / normalize);
  }
  const float norm = sum > 0.0 ? 1.0 / sum : 0.0f;
  for (float& x : v) x *= norm;
  return absl::OkStatus();
}

absl::StatusOr<std::vector<float>> Embed(Model& model, absl::Span<const int> tokens,
                                         Pooling pooling, int normalize) {
  if (tokens.empty()) return absl::InvalidArgumentError("Embed: no tokens given");
  EDGEQ_RETURN_IF_ERROR(NormalizeEmbedding({}, normalize));
  const int64_t dim = model.config().embedding_length, n = static_cast<int64_t>(tokens.size());
  std::vector<float> out(pooling == Pooling::kNone ? n * dim : dim, 0.0f);
  std::vector<double> sum(pooling == Pooling::kMean ? dim : 0, 0.0);
  EDGEQ_RETURN_IF_ERROR(model.PrefillEmbeddings(tokens, 0, [&](int i, absl::Span<const float> row) {
    if (pooling == Pooling::kNone) {
      std::copy(row.begin(), row.end(), out.begin() + i * dim);
    } else if (pooling == Pooling::kMean) {
      for (int64_t k = 0; k < dim; ++k) sum[k] += row[k];
    } else if ((pooling == Pooling::kCls && i == 0) || (pooling == Pooling::kLast && i == n - 1)) {
      std::copy(row.begin(), row.end(), out.begin());
    }
    return absl::OkStatus();
  }));
  if (pooling == Pooling::kMean) {
    for (int64_t k = 0; k < dim; ++k) out[k] = static_cast<float>(sum[k] / n);
  }
  for (int64_t r = 0; r < static_cast<int64_t>(out.size()) / dim; ++r) {
    EDGEQ_RETURN_IF_ERROR(NormalizeEmbedding(absl::MakeSpan(out).subspan(r * dim, dim), normalize));
  }
  return out;
}

}  // namespace llm
}  // namespace edgeq
