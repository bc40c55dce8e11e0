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
    ParallelFor(ctx.pool, rows_, 1, rows_ * d, [x, w, y, d, eps](size_t s, size_t c) {
      // Locals, not the closure's members: the stores through y could alias those (GCC then
      // loads w and d again in every iteration).
      const float* const wl = w;
      const int64_t dl = d;
      for (size_t r = s; r < s + c; ++r) {
        const float* xr = x + r * dl;
        float* yr = y + r * dl;
        // 16 partial sums (part[l] sums the squares of the elements l mod 16), added pairwise: the
        // sum does not wait on one add's latency per element. The groups of 16 in four 4-lane
        // vectors (GCC's -O2 does not vectorize these loops itself: y may alias x), lane-wise the
        // same operations.
        F4 a0 = {}, a1 = {}, a2 = {}, a3 = {};
        int64_t i = 0;
        for (; i + 16 <= dl; i += 16) {
          const F4 x0 = LoadF4(xr + i), x1 = LoadF4(xr + i + 4);
          const F4 x2 = LoadF4(xr + i + 8), x3 = LoadF4(xr + i + 12);
          a0 += x0 * x0;
          a1 += x1 * x1;
          a2 += x2 * x2;
          a3 += x3 * x3;
        }
        const F4 acc[4] = {a0, a1, a2, a3};
        float part[16];
        std::memcpy(part, acc, sizeof(part));
        for (; i < dl; ++i) part[i % 16] += xr[i] * xr[i];
        for (int w = 8; w >= 1; w /= 2) {
          for (int l = 0; l < w; ++l) part[l] += part[l + w];
        }
        float ss = part[0] / static_cast<float>(dl) + eps;
        ss = 1.0f / std::sqrt(ss);
        const F4 ssv = {ss, ss, ss, ss};
        int64_t j = 0;
        for (; j + 4 <= dl; j += 4) StoreF4(yr + j, LoadF4(wl + j) * (ssv * LoadF4(xr + j)));
        for (; j < dl; ++j) yr[j] = wl[j] * (ss * xr[j]);
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
