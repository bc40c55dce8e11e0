// Op "reshape": the same data in a new shape (attribute shape, a list of integers; one may be
// -1: inferred). Any plain dtype.
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

constexpr char kReshapeOpName[] = "reshape";

struct ReshapeAttributes : OpAttributes {
  std::vector<int64_t> shape;
  std::vector<std::string> Describe() const override {
    return {absl::StrCat("shape=[", absl::StrJoin(shape, ", "), "]")};
  }
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"shape"};
  if (absl::Status s = CheckAttributeKeys(kReshapeOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> shape = GetIntsAttribute(kReshapeOpName, map, "shape");
  if (!shape.ok()) return shape.status();
  auto attrs = std::make_shared<ReshapeAttributes>();
  attrs->shape = *std::move(shape);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  std::vector<int64_t> shape = static_cast<const ReshapeAttributes&>(attributes).shape;
  const ValueType& x = in.types[0];
  const std::string target = absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
  if (x.is_quantized()) return Invalid("cannot reshape a quantized value");
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      return Invalid(absl::StrCat("bad target shape ", target));
    } else {
      known *= shape[i];
    }
  }
  const int64_t total = x.type.shape.num_elements();
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return Invalid(absl::StrCat("cannot infer -1 in target shape ", target));
    }
    shape[infer] = total / known;
    known = total;
  }
  if (known != total) {
    return Invalid(
        absl::StrFormat("target shape %s holds %d elements, the input %d", target, known, total));
  }
  return One(Plain(x.type.dtype, Shape(shape)));
}

constexpr const char* kAttributeNames[] = {"shape"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kReshapeOpName;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    const ValueType& out = a.out_type();
    return internal::CreateCopyKernel(
        a.in(0), a.out(),
        static_cast<size_t>(out.type.shape.num_elements()) * DTypeSize(out.type.dtype),
        kReshapeOpName);
  };
  return def;
}

EDGEQ_REGISTER_OP(reshape, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
