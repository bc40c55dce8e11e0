// Op "gather" (embedding lookup): rows of `table` [v, d] (f32, or quantized: rows decoded with
// its encoding; a quantized table must be a constant) picked by `indices` (i32 or i64, any shape
// [...]) -> f32 [..., d]. An index outside [0, v) makes Execute fail with OutOfRange naming it.
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "quantization/encoding.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kGatherOpName[] = "gather";

class GatherKernel : public OpKernel {
 public:
  GatherKernel(int table, int idx, int out, bool idx64, int64_t count, int64_t v, int64_t d,
               int64_t row_bytes, const QuantizationEncoding* encoding,
               std::function<void(const void*, size_t)> on_row_read)
      : table_(table),
        idx_(idx),
        out_(out),
        idx64_(idx64),
        count_(count),
        v_(v),
        d_(d),
        row_bytes_(row_bytes),
        encoding_(encoding),
        on_row_read_(std::move(on_row_read)) {}
  absl::Status Run(const ExecContext& ctx) override {
    const uint8_t* table = Data<const uint8_t>(ctx, table_);
    float* y = Data(ctx, out_);
    for (int64_t i = 0; i < count_; ++i) {
      const int64_t r =
          idx64_ ? Data<const int64_t>(ctx, idx_)[i] : Data<const int32_t>(ctx, idx_)[i];
      if (r < 0 || r >= v_) {
        return absl::OutOfRangeError(absl::StrFormat(
            "gather: index %d (element %d of the indices) is outside the table's %d rows", r, i,
            v_));
      }
      const uint8_t* row = table + r * row_bytes_;
      if (encoding_ == nullptr) {
        std::memcpy(y + i * d_, row, d_ * sizeof(float));
      } else {
        encoding_->DequantizeRow(row, y + i * d_, d_);
      }
      if (on_row_read_) on_row_read_(row, static_cast<size_t>(row_bytes_));
    }
    return absl::OkStatus();
  }
  std::string name() const override {
    return encoding_ == nullptr ? kGatherOpName : absl::StrCat("gather_", encoding_->name());
  }

 private:
  int table_, idx_, out_;
  bool idx64_;
  int64_t count_, v_, d_, row_bytes_;
  const QuantizationEncoding* encoding_;
  // SessionOptions::on_constant_row_read for a constant table (else empty).
  std::function<void(const void*, size_t)> on_row_read_;
};

TypesOr Infer(const InferInput& in, const OpAttributes&) {
  const ValueType& table = in.types[0];
  const ValueType& indices = in.types[1];
  if (!IsIndex(indices)) return Invalid("indices must be i32 or i64");
  const Shape& t = table.logical_shape;
  if (t.rank() != 2) return Invalid("table must be [v, d]");
  if (!table.is_quantized() && table.type.dtype != DType::kFloat32) {
    return Invalid("table must be f32 or quantized");
  }
  std::vector<int64_t> dims = indices.type.shape.dims();
  dims.push_back(t.dim(1));
  return One(Plain(DType::kFloat32, Shape(std::move(dims))));
}

KernelOr Create(const KernelArgs& a) {
  const ValueType& table = a.in_type(0);
  const QuantizationEncoding* encoding = nullptr;
  if (table.is_quantized()) {
    EDGEQ_ASSIGN_OR_RETURN(encoding, FindEncoding(table.encoding));
    // Rows are decoded straight from the table's bytes: they must match its encoding and
    // logical shape (Graph::Constant checked it; checked again here, before Execute).
    const Tensor* constant = a.constant(0);
    if (constant == nullptr) {
      return absl::InvalidArgumentError("gather: a quantized table must be a constant");
    }
    EDGEQ_RETURN_IF_ERROR(CheckQuantizedTensor("gather table", *constant));
  }
  const int64_t v = table.logical_shape.dim(0);
  const int64_t d = table.logical_shape.dim(1);
  const int64_t row_bytes =
      table.type.shape.dim(1) * static_cast<int64_t>(DTypeSize(table.type.dtype));
  return Make(new GatherKernel(a.in(0), a.in(1), a.out(), a.in_type(1).type.dtype == DType::kInt64,
                               a.in_shape(1).num_elements(), v, d, row_bytes, encoding,
                               a.constant(0) != nullptr ? a.env.on_constant_row_read : nullptr));
}

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kGatherOpName;
  def.min_inputs = def.max_inputs = 2;
  def.infer = Infer;
  def.create_kernel = Create;
  return def;
}

EDGEQ_REGISTER_OP(gather, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
