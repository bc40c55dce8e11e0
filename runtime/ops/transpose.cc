// Op "transpose": permutes dimensions (attribute perm, a list of integers: output dimension i is
// input dimension perm[i]). Any plain dtype.
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

constexpr char kTransposeOpName[] = "transpose";

struct TransposeAttributes : OpAttributes {
  std::vector<int64_t> perm;
  std::vector<std::string> Describe() const override {
    return {absl::StrCat("perm=[", absl::StrJoin(perm, ", "), "]")};
  }
};

class TransposeKernel : public OpKernel {
 public:
  TransposeKernel(int x, int out, const Shape& in, const std::vector<int64_t>& perm, size_t elem)
      : x_(x), out_(out), elem_(elem), n_(in.num_elements()) {
    std::vector<int64_t> in_strides(in.rank(), 1);
    for (int i = in.rank() - 2; i >= 0; --i) in_strides[i] = in_strides[i + 1] * in.dim(i + 1);
    for (size_t i = 0; i < perm.size(); ++i) {
      out_dims_.push_back(in.dim(static_cast<int>(perm[i])));
      strides_.push_back(in_strides[perm[i]]);
    }
  }
  absl::Status Run(const ExecContext& ctx) override {
    const uint8_t* x = Data<const uint8_t>(ctx, x_);
    uint8_t* y = Data<uint8_t>(ctx, out_);
    const int rank = static_cast<int>(out_dims_.size());
    int64_t index[Shape::kMaxRank] = {0};
    int64_t offset = 0;
    for (int64_t o = 0; o < n_; ++o) {
      std::memcpy(y + o * elem_, x + offset * elem_, elem_);
      for (int d = rank - 1; d >= 0; --d) {
        offset += strides_[d];
        if (++index[d] < out_dims_[d]) break;
        offset -= strides_[d] * out_dims_[d];
        index[d] = 0;
      }
    }
    return absl::OkStatus();
  }
  std::string name() const override { return kTransposeOpName; }

 private:
  int x_, out_;
  size_t elem_;
  int64_t n_;
  std::vector<int64_t> out_dims_, strides_;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"perm"};
  if (absl::Status s = CheckAttributeKeys(kTransposeOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<std::vector<int64_t>> perm = GetIntsAttribute(kTransposeOpName, map, "perm");
  if (!perm.ok()) return perm.status();
  auto attrs = std::make_shared<TransposeAttributes>();
  attrs->perm = *std::move(perm);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const std::vector<int64_t>& perm = static_cast<const TransposeAttributes&>(attributes).perm;
  const ValueType& x = in.types[0];
  if (x.is_quantized()) return Invalid("cannot transpose a quantized value");
  const int rank = x.type.shape.rank();
  std::vector<bool> seen(rank, false);
  bool ok = static_cast<int>(perm.size()) == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) ok = false;
    if (ok) seen[perm[i]] = true;
  }
  if (!ok) {
    return Invalid(absl::StrFormat("[%s] is not a permutation of %d dimensions",
                                   absl::StrJoin(perm, ", "), rank));
  }
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) dims[i] = x.type.shape.dim(static_cast<int>(perm[i]));
  return One(Plain(x.type.dtype, Shape(std::move(dims))));
}

constexpr const char* kAttributeNames[] = {"perm"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kTransposeOpName;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    return Make(new TransposeKernel(a.in(0), a.out(), a.in_shape(0),
                                    a.node.attributes<TransposeAttributes>().perm,
                                    DTypeSize(a.out_type().type.dtype)));
  };
  return def;
}

EDGEQ_REGISTER_OP(transpose, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
