// Op "concat": joins its inputs (one or more plain tensors of one dtype and rank) along attribute
// axis (integer, negative counts from the end, default 0); other dimensions must match.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kConcatOpName[] = "concat";

struct ConcatAttributes : OpAttributes {
  int64_t axis = 0;  // as given (may be negative)
  std::vector<std::string> Describe() const override { return {absl::StrCat("axis=", axis)}; }
};

class ConcatKernel : public OpKernel {
 public:
  ConcatKernel(std::vector<int> inputs, std::vector<int64_t> chunk_bytes, int out, int64_t outer)
      : inputs_(std::move(inputs)),
        chunk_bytes_(std::move(chunk_bytes)),
        out_(out),
        outer_(outer) {}
  absl::Status Run(const ExecContext& ctx) override {
    uint8_t* y = Data<uint8_t>(ctx, out_);
    for (int64_t o = 0; o < outer_; ++o) {
      for (size_t i = 0; i < inputs_.size(); ++i) {
        const int64_t c = chunk_bytes_[i];
        if (c > 0) std::memcpy(y, Data<const uint8_t>(ctx, inputs_[i]) + o * c, c);
        y += c;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return kConcatOpName; }
  bool JoinsInputs() const override { return outer_ == 1; }

 private:
  std::vector<int> inputs_;
  std::vector<int64_t> chunk_bytes_;
  int out_;
  int64_t outer_;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"axis"};
  if (absl::Status s = CheckAttributeKeys(kConcatOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<int64_t> axis = GetIntAttribute(kConcatOpName, map, "axis", 0);
  if (!axis.ok()) return axis.status();
  auto attrs = std::make_shared<ConcatAttributes>();
  attrs->axis = *axis;
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const ValueType& first = in.types[0];
  const int rank = first.type.shape.rank();
  int64_t axis = static_cast<const ConcatAttributes&>(attributes).axis;
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    return Invalid(absl::StrFormat("axis %d is out of range for rank %d",
                                   static_cast<const ConcatAttributes&>(attributes).axis, rank));
  }
  std::vector<int64_t> dims = first.type.shape.dims();
  dims[axis] = 0;
  for (const ValueType& v : in.types) {
    if (v.is_quantized() || v.type.dtype != first.type.dtype || v.type.shape.rank() != rank) {
      return Invalid("values must be plain tensors of one dtype and rank");
    }
    for (int i = 0; i < rank; ++i) {
      if (i != axis && v.type.shape.dim(i) != first.type.shape.dim(i)) {
        return Invalid(absl::StrFormat("dimension %d differs outside axis %d", i, axis));
      }
    }
    dims[axis] += v.type.shape.dim(static_cast<int>(axis));
  }
  return One(Plain(first.type.dtype, Shape(std::move(dims))));
}

KernelOr Create(const KernelArgs& a) {
  const Shape& o = a.out_type().type.shape;
  int axis = static_cast<int>(a.node.attributes<ConcatAttributes>().axis);
  if (axis < 0) axis += o.rank();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= o.dim(i);
  for (int i = axis + 1; i < o.rank(); ++i) inner *= o.dim(i);
  std::vector<int64_t> chunks;
  for (size_t i = 0; i < a.node.inputs.size(); ++i) {
    chunks.push_back(a.in_shape(static_cast<int>(i)).dim(axis) * inner *
                     static_cast<int64_t>(DTypeSize(a.out_type().type.dtype)));
  }
  return Make(new ConcatKernel(a.node.inputs, std::move(chunks), a.out(), outer));
}

constexpr const char* kAttributeNames[] = {"axis"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kConcatOpName;
  def.min_inputs = 1;
  def.max_inputs = -1;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = Create;
  return def;
}

EDGEQ_REGISTER_OP(concat, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
