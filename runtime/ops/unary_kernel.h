// A kernel applying a scalar function element-wise over the pool (gelu.cc, gelu_tanh.cc,
// tanh.cc).
#ifndef EDGEQ_RUNTIME_OPS_UNARY_KERNEL_H_
#define EDGEQ_RUNTIME_OPS_UNARY_KERNEL_H_

#include <cstdint>
#include <string>
#include <utility>

#include "core/parallel.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {

// Fn: a callable float(float), copied into each task.
template <typename Fn>
class ElementwiseKernel : public OpKernel {
 public:
  ElementwiseKernel(std::string name, int x, int out, int64_t n, Fn fn)
      : name_(std::move(name)), x_(x), out_(out), n_(n), fn_(std::move(fn)) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    const Fn fn = fn_;
    ParallelFor(ctx.pool, n_, 4096, 4 * n_, [=](size_t s, size_t c) {
      for (size_t i = s; i < s + c; ++i) y[i] = fn(x[i]);
    });
    return absl::OkStatus();
  }
  std::string name() const override { return name_; }

 private:
  std::string name_;
  int x_, out_;
  int64_t n_;
  Fn fn_;
};

template <typename Fn>
KernelOr MakeElementwise(std::string name, const KernelArgs& a, Fn fn) {
  return Make(new ElementwiseKernel<Fn>(std::move(name), a.in(0), a.out(),
                                        a.out_type().type.shape.num_elements(), std::move(fn)));
}

}  // namespace op_util
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_OPS_UNARY_KERNEL_H_
