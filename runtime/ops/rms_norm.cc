// Op "rms_norm": x [..., d] * weight [d] / sqrt(mean(x^2 over the last axis) + epsilon), plain
// f32. Attribute epsilon (number >= 0, default 1e-5).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kRmsNormOpName[] = "rms_norm";

struct RmsNormAttributes : OpAttributes {
  float epsilon = 1e-5f;
  std::vector<std::string> Describe() const override {
    return {absl::StrFormat("epsilon=%g", epsilon)};
  }
};

class RmsNormKernel : public OpKernel {
 public:
  RmsNormKernel(int x, int w, int out, int64_t rows, int64_t d, float eps)
      : x_(x), w_(w), out_(out), rows_(rows), d_(d), eps_(eps) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    const float* w = Data(ctx, w_);
    float* y = Data(ctx, out_);
    const int64_t d = d_;
    const float eps = eps_;
    ParallelFor(ctx.pool, rows_, 1, rows_ * d, [=](size_t s, size_t c) {
      for (size_t r = s; r < s + c; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        // 16 partial sums (lanes the compiler keeps in vector registers), added pairwise: the
        // sum does not wait on one add's latency per element.
        float part[16] = {};
        int64_t i = 0;
        for (; i + 16 <= d; i += 16) {
          for (int l = 0; l < 16; ++l) part[l] += xr[i + l] * xr[i + l];
        }
        for (; i < d; ++i) part[i % 16] += xr[i] * xr[i];
        for (int w = 8; w >= 1; w /= 2) {
          for (int l = 0; l < w; ++l) part[l] += part[l + w];
        }
        float ss = part[0] / static_cast<float>(d) + eps;
        ss = 1.0f / std::sqrt(ss);
        for (int64_t i = 0; i < d; ++i) yr[i] = w[i] * (ss * xr[i]);
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override { return kRmsNormOpName; }

 private:
  int x_, w_, out_;
  int64_t rows_, d_;
  float eps_;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"epsilon"};
  if (absl::Status s = CheckAttributeKeys(kRmsNormOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<double> eps = GetRealAttribute(kRmsNormOpName, map, "epsilon", 1e-5);
  if (!eps.ok()) return eps.status();
  auto attrs = std::make_shared<RmsNormAttributes>();
  attrs->epsilon = static_cast<float>(*eps);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const ValueType& x = in.types[0];
  const ValueType& weight = in.types[1];
  if (!IsPlainF32(x) || !IsPlainF32(weight)) return Invalid("operands must be plain f32");
  if (x.type.shape.rank() < 1 || weight.type.shape.rank() != 1 ||
      weight.type.shape.dim(0) != x.type.shape.dim(-1)) {
    return Invalid("weight must be [d] with d the last dimension of x");
  }
  if (!(static_cast<const RmsNormAttributes&>(attributes).epsilon >= 0.0f)) {
    return Invalid("epsilon must be >= 0");
  }
  return One(Plain(DType::kFloat32, x.type.shape));
}

constexpr const char* kAttributeNames[] = {"epsilon"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kRmsNormOpName;
  def.min_inputs = def.max_inputs = 2;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    const auto [rows, d] = RowsOf(a.in_shape(0));
    return Make(new RmsNormKernel(a.in(0), a.in(1), a.out(), rows, d,
                                  a.node.attributes<RmsNormAttributes>().epsilon));
  };
  return def;
}

EDGEQ_REGISTER_OP(rms_norm, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
