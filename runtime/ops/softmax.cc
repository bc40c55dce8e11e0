// Op "softmax": softmax over the last axis (plain f32 of rank >= 1).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/parallel.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kSoftmaxOpName[] = "softmax";

class SoftmaxKernel : public OpKernel {
 public:
  SoftmaxKernel(int x, int out, int64_t rows, int64_t d) : x_(x), out_(out), rows_(rows), d_(d) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    const int64_t d = d_;
    ParallelFor(ctx.pool, rows_, 1, 4 * rows_ * d, [=](size_t s, size_t c) {
      for (size_t r = s; r < s + c; ++r) {
        const float* xr = x + r * d;
        float* yr = y + r * d;
        float mx = -std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < d; ++i) mx = std::max(mx, xr[i]);
        float sum = 0.0f;
        for (int64_t i = 0; i < d; ++i) {
          yr[i] = std::exp(xr[i] - mx);
          sum += yr[i];
        }
        for (int64_t i = 0; i < d; ++i) yr[i] /= sum;
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override { return kSoftmaxOpName; }

 private:
  int x_, out_;
  int64_t rows_, d_;
};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kSoftmaxOpName;
  def.infer = [](const InferInput& in, const OpAttributes&) -> TypesOr {
    if (!IsPlainF32(in.types[0])) return Invalid("operand must be plain f32");
    if (in.types[0].type.shape.rank() < 1) return Invalid("operand needs rank >= 1");
    return One(Plain(DType::kFloat32, in.types[0].type.shape));
  };
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    const auto [rows, d] = RowsOf(a.in_shape(0));
    return Make(new SoftmaxKernel(a.in(0), a.out(), rows, d));
  };
  return def;
}

EDGEQ_REGISTER_OP(softmax, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
