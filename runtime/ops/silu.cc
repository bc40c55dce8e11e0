// Op "silu": x * sigmoid(x) element-wise (plain f32), through the ISA's activation kernel
// (runtime/kernels/vector/activation.h).
#include <string>

#include "absl/strings/str_cat.h"
#include "core/parallel.h"
#include "runtime/kernels/vector/activation.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kSiluOpName[] = "silu";

class SiluKernel : public OpKernel {
 public:
  SiluKernel(int x, int out, int64_t n, const kernels::ActivationKernel* act)
      : x_(x), out_(out), n_(n), act_(act) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    const auto silu = act_->silu;
    ParallelFor(ctx.pool, n_, 4096, 4 * n_,
                [=](size_t s, size_t c) { silu(x + s, y + s, static_cast<int64_t>(c)); });
    return absl::OkStatus();
  }
  std::string name() const override { return absl::StrCat("silu_", SuffixOf(act_->name)); }

 private:
  int x_, out_;
  int64_t n_;
  const kernels::ActivationKernel* act_;
};

EDGEQ_REGISTER_OP(silu, UnaryF32OpDef(kSiluOpName, [](const KernelArgs& a) -> KernelOr {
                    return Make(new SiluKernel(a.in(0), a.out(),
                                               a.out_type().type.shape.num_elements(),
                                               &kernels::SelectActivationKernel(a.env.isa_cap)));
                  }));

}  // namespace
}  // namespace op_util
}  // namespace edgeq
