// Op "swiglu": silu(gate) * up in one pass (the gated FFN of Llama, Qwen, ...); gate and up plain
// f32 of one shape. Through the ISA's activation kernel (runtime/kernels/vector/activation.h).
#include <string>

#include "absl/strings/str_cat.h"
#include "core/parallel.h"
#include "runtime/kernels/vector/activation.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kSwiGluOpName[] = "swiglu";

class SwiGluKernel : public OpKernel {
 public:
  SwiGluKernel(int gate, int up, int out, int64_t n, const kernels::ActivationKernel* act)
      : gate_(gate), up_(up), out_(out), n_(n), act_(act) {}

  absl::Status Run(const ExecContext& ctx) override {
    const float* gate = Data(ctx, gate_);
    const float* up = Data(ctx, up_);
    float* y = Data(ctx, out_);
    const auto swiglu = act_->swiglu;
    ParallelFor(ctx.pool, n_, 4096, 4 * n_, [=](size_t s, size_t c) {
      swiglu(gate + s, up + s, y + s, static_cast<int64_t>(c));
    });
    return absl::OkStatus();
  }
  std::string name() const override { return absl::StrCat("swiglu_", SuffixOf(act_->name)); }

 private:
  int gate_, up_, out_;
  int64_t n_;
  const kernels::ActivationKernel* act_;
};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kSwiGluOpName;
  def.min_inputs = def.max_inputs = 2;
  def.infer = [](const InferInput& in, const OpAttributes&) -> TypesOr {
    if (!IsPlainF32(in.types[0]) || !IsPlainF32(in.types[1])) {
      return Invalid("gate and up must be plain f32");
    }
    if (in.types[0].type.shape != in.types[1].type.shape) {
      return Invalid("gate and up must have one shape");
    }
    return One(Plain(DType::kFloat32, in.types[0].type.shape));
  };
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    return Make(new SwiGluKernel(a.in(0), a.in(1), a.out(), a.out_type().type.shape.num_elements(),
                                 &kernels::SelectActivationKernel(a.env.isa_cap)));
  };
  return def;
}

EDGEQ_REGISTER_OP(swiglu, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
