#include "examples/custom_encoding/custom_op.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "examples/custom_encoding/q3_sym.h"
#include "runtime/custom_op.h"

namespace edgeq {
namespace examples {
namespace {

absl::StatusOr<std::vector<TensorType>> ShapeFunction(absl::Span<const ValueType> in) {
  if (in.size() != 2) {
    return absl::InvalidArgumentError(absl::StrFormat("takes 2 inputs, got %d", in.size()));
  }
  const ValueType& x = in[0];
  const ValueType& w = in[1];
  if (x.is_quantized() || x.type.dtype != DType::kFloat32 || x.type.shape.rank() != 2) {
    return absl::InvalidArgumentError(
        absl::StrFormat("x must be f32 [m, k], got %s", x.ToString()));
  }
  if (w.encoding != Q3SymEncoding::kName || w.logical_shape.rank() != 2 ||
      w.logical_shape.dim(1) != x.type.shape.dim(1)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "W must be q3_sym of logical shape [n, %d], got %s", x.type.shape.dim(1), w.ToString()));
  }
  return std::vector<TensorType>{
      TensorType(DType::kFloat32, {x.type.shape.dim(0), w.logical_shape.dim(0)})};
}

absl::Status Kernel(absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                    pthreadpool_t /*pool*/) {
  static const Q3SymEncoding codec;
  const int64_t m = in[0].shape().dim(0);
  const int64_t k = in[0].shape().dim(1);
  const int64_t n = in[1].type->logical_shape.dim(0);
  const int64_t blocks = k / Q3SymEncoding::kBlockValues;
  const float* x = in[0].values<float>();
  const uint8_t* w = in[1].values<uint8_t>();
  float* y = out[0].mutable_values<float>();
  float decoded[Q3SymEncoding::kBlockValues];
  for (int64_t i = 0; i < m * n; ++i) y[i] = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t b = 0; b < blocks; ++b) {
      codec.DequantizeRow(w + (j * blocks + b) * Q3SymEncoding::kBlockBytes, decoded,
                          Q3SymEncoding::kBlockValues);
      for (int64_t i = 0; i < m; ++i) {
        const float* xb = x + i * k + b * Q3SymEncoding::kBlockValues;
        float sum = 0.0f;
        for (int l = 0; l < Q3SymEncoding::kBlockValues; ++l) sum += xb[l] * decoded[l];
        y[i * n + j] += sum;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RegisterQ3SymMatmulOp() {
  EDGEQ_RETURN_IF_ERROR(RegisterQ3SymEncoding());
  static const absl::Status status = [] {
    CustomOpDef def;
    def.name = kQ3SymMatmulOp;
    def.shape_function = ShapeFunction;
    def.kernel = Kernel;
    return CustomOpRegistry::Global().Register(std::move(def));
  }();
  return status;
}

}  // namespace examples
}  // namespace edgeq
