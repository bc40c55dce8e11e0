// Op "slice": x[starts[0]:ends[0], starts[1]:ends[1], ...], one start and end per dimension, step
// 1 (attributes starts and ends, lists of integers). Any plain dtype.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kSliceOpName[] = "slice";

struct SliceAttributes : OpAttributes {
  std::vector<int64_t> starts, ends;
  std::vector<std::string> Describe() const override {
    return {absl::StrCat("starts=[", absl::StrJoin(starts, ", "), "]"),
            absl::StrCat("ends=[", absl::StrJoin(ends, ", "), "]")};
  }
};

class SliceKernel : public OpKernel {
 public:
  SliceKernel(int x, int out, const Shape& in, const std::vector<int64_t>& starts,
              const std::vector<int64_t>& ends, size_t elem)
      : x_(x), out_(out) {
    const int rank = in.rank();
    std::vector<int64_t> in_strides(rank, 1);
    for (int i = rank - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in.dim(i + 1);
    if (rank == 0) {
      row_bytes_ = elem;
      rows_ = 1;
      return;
    }
    row_bytes_ = (ends[rank - 1] - starts[rank - 1]) * elem;
    // One run of bytes when the dimensions before the last partial one take one index each (those
    // after it are whole).
    int last_partial = -1;
    for (int i = 0; i < rank; ++i) {
      if (ends[i] - starts[i] != in.dim(i)) last_partial = i;
    }
    contiguous_ = true;
    for (int i = 0; i < last_partial; ++i) contiguous_ = contiguous_ && ends[i] - starts[i] == 1;
    base_ = 0;
    for (int i = 0; i < rank; ++i) base_ += starts[i] * in_strides[i] * elem;
    rows_ = 1;
    for (int i = 0; i + 1 < rank; ++i) {
      dims_.push_back(ends[i] - starts[i]);
      strides_.push_back(in_strides[i] * elem);
      rows_ *= ends[i] - starts[i];
    }
  }
  absl::Status Run(const ExecContext& ctx) override {
    const uint8_t* x = Data<const uint8_t>(ctx, x_);
    uint8_t* y = Data<uint8_t>(ctx, out_);
    const int rank = static_cast<int>(dims_.size());
    int64_t index[Shape::kMaxRank] = {0};
    int64_t offset = base_;
    for (int64_t r = 0; r < rows_; ++r) {
      if (row_bytes_ > 0) std::memcpy(y + r * row_bytes_, x + offset, row_bytes_);
      for (int d = rank - 1; d >= 0; --d) {
        offset += strides_[d];
        if (++index[d] < dims_[d]) break;
        offset -= strides_[d] * dims_[d];
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return kSliceOpName; }
  int64_t ViewOffset() const override { return contiguous_ ? base_ : -1; }

 private:
  int x_, out_;
  bool contiguous_ = false;
  int64_t row_bytes_ = 0, base_ = 0, rows_ = 0;
  std::vector<int64_t> dims_, strides_;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"starts", "ends"};
  if (absl::Status s = CheckAttributeKeys(kSliceOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> starts = GetIntsAttribute(kSliceOpName, map, "starts");
  if (!starts.ok()) return starts.status();
  absl::StatusOr<std::vector<int64_t>> ends = GetIntsAttribute(kSliceOpName, map, "ends");
  if (!ends.ok()) return ends.status();
  auto attrs = std::make_shared<SliceAttributes>();
  attrs->starts = *std::move(starts);
  attrs->ends = *std::move(ends);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const auto& attrs = static_cast<const SliceAttributes&>(attributes);
  const ValueType& x = in.types[0];
  if (x.is_quantized()) return Invalid("cannot slice a quantized value");
  const int rank = x.type.shape.rank();
  if (static_cast<int>(attrs.starts.size()) != rank ||
      static_cast<int>(attrs.ends.size()) != rank) {
    return Invalid(absl::StrFormat("need %d starts and ends, got %d and %d", rank,
                                   attrs.starts.size(), attrs.ends.size()));
  }
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int64_t s = attrs.starts[i], e = attrs.ends[i], d = x.type.shape.dim(i);
    if (s < 0 || s > e || e > d) {
      return Invalid(absl::StrFormat("dimension %d: [%d, %d) is not inside [0, %d]", i, s, e, d));
    }
    dims[i] = e - s;
  }
  return One(Plain(x.type.dtype, Shape(std::move(dims))));
}

constexpr const char* kAttributeNames[] = {"starts", "ends"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kSliceOpName;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    const auto& attrs = a.node.attributes<SliceAttributes>();
    return Make(new SliceKernel(a.in(0), a.out(), a.in_shape(0), attrs.starts, attrs.ends,
                                DTypeSize(a.out_type().type.dtype)));
  };
  return def;
}

EDGEQ_REGISTER_OP(slice, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
