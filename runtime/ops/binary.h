// Element-wise binary ops of f32 with numpy broadcasting (add.cc, sub.cc, mul.cc, div.cc): the
// shared type inference and kernel; each op file gives its name and its function (Apply on float
// and on F4, op_util.h: same-shape operands go four lanes at a time).
#ifndef EDGEQ_RUNTIME_OPS_BINARY_H_
#define EDGEQ_RUNTIME_OPS_BINARY_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "graph/ops.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {

template <typename Fn>
class BinaryKernel : public OpKernel {
 public:
  BinaryKernel(std::string op, int a, int b, int out, const Shape& sa, const Shape& sb,
               const Shape& so)
      : op_(std::move(op)), a_(a), b_(b), out_(out), n_(so.num_elements()) {
    if (sa == so && sb == so) {
      mode_ = kSame;
    } else if (sb.num_elements() == 1 && sa == so) {
      mode_ = kScalarB;
    } else if (sa.num_elements() == 1 && sb == so) {
      mode_ = kScalarA;
    } else {
      mode_ = kGeneral;
      const int rank = so.rank();
      dims_ = so.dims();
      stride_a_ = Strides(sa, so);
      stride_b_ = Strides(sb, so);
      inner_ = rank == 0 ? 1 : so.dim(-1);
      inner_a_ = rank == 0 ? 0 : stride_a_[rank - 1];
      inner_b_ = rank == 0 ? 0 : stride_b_[rank - 1];
    }
  }

  absl::Status Run(const ExecContext& ctx) override {
    const float* a = Data(ctx, a_);
    const float* b = Data(ctx, b_);
    float* y = Data(ctx, out_);
    switch (mode_) {
      case kSame:
        ParallelFor(ctx.pool, n_, 4096, n_, [a, b, y](size_t s, size_t c) {
          // Locals: the stores through y could alias the closure's members.
          const float* const pa = a;
          const float* const pb = b;
          float* const py = y;
          size_t i = s;
          for (; i + 4 <= s + c; i += 4) {
            StoreF4(py + i, Fn::Apply(LoadF4(pa + i), LoadF4(pb + i)));
          }
          for (; i < s + c; ++i) py[i] = Fn::Apply(pa[i], pb[i]);
        });
        break;
      case kScalarB: {
        const float bv = b[0];
        ParallelFor(ctx.pool, n_, 4096, n_, [=](size_t s, size_t c) {
          for (size_t i = s; i < s + c; ++i) y[i] = Fn::Apply(a[i], bv);
        });
        break;
      }
      case kScalarA: {
        const float av = a[0];
        ParallelFor(ctx.pool, n_, 4096, n_, [=](size_t s, size_t c) {
          for (size_t i = s; i < s + c; ++i) y[i] = Fn::Apply(av, b[i]);
        });
        break;
      }
      case kGeneral:
        RunGeneral(ctx, a, b, y);
        break;
    }
    return absl::OkStatus();
  }

  std::string name() const override { return op_; }
  // Element i of a is read only to write element i of the output.
  int OverwritableInput() const override { return mode_ == kSame || mode_ == kScalarB ? 0 : -1; }

 private:
  enum Mode { kSame, kScalarB, kScalarA, kGeneral };

  void RunGeneral(const ExecContext& ctx, const float* a, const float* b, float* y) const {
    const int64_t rows = inner_ == 0 ? 0 : n_ / inner_;
    ParallelFor(ctx.pool, rows, 16, n_, [&](size_t s, size_t c) {
      const int rank = static_cast<int>(dims_.size());
      for (size_t row = s; row < s + c; ++row) {
        int64_t rem = static_cast<int64_t>(row);
        int64_t oa = 0, ob = 0;
        for (int d = rank - 2; d >= 0; --d) {
          const int64_t idx = rem % dims_[d];
          rem /= dims_[d];
          oa += idx * stride_a_[d];
          ob += idx * stride_b_[d];
        }
        float* yr = y + row * inner_;
        for (int64_t i = 0; i < inner_; ++i) {
          yr[i] = Fn::Apply(a[oa + i * inner_a_], b[ob + i * inner_b_]);
        }
      }
    });
  }

  // Element strides of `s` aligned to the output's dimensions (0 where broadcast).
  static std::vector<int64_t> Strides(const Shape& s, const Shape& out) {
    std::vector<int64_t> strides(out.rank(), 0);
    int64_t stride = 1;
    for (int i = s.rank() - 1; i >= 0; --i) {
      const int o = out.rank() - s.rank() + i;
      strides[o] = s.dim(i) == 1 ? 0 : stride;
      stride *= s.dim(i);
    }
    return strides;
  }

  std::string op_;
  int a_, b_, out_;
  int64_t n_;
  Mode mode_;
  std::vector<int64_t> dims_, stride_a_, stride_b_;
  int64_t inner_ = 0, inner_a_ = 0, inner_b_ = 0;
};

// The broadcast output type of two plain f32 operands.
inline TypesOr InferBinary(const InferInput& in, const OpAttributes&) {
  if (!IsPlainF32(in.types[0]) || !IsPlainF32(in.types[1])) {
    return Invalid("operands must be plain f32");
  }
  absl::StatusOr<Shape> shape =
      ops::BroadcastShapes(in.types[0].type.shape, in.types[1].type.shape);
  if (!shape.ok()) return Invalid(shape.status().message());
  return One(Plain(DType::kFloat32, *shape));
}

// The definition of binary op kName applying Fn element-wise.
template <typename Fn, const char* kName>
constexpr BuiltinOpDef BinaryOpDef() {
  BuiltinOpDef def;
  def.name = kName;
  def.min_inputs = def.max_inputs = 2;
  def.infer = InferBinary;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    return Make(new BinaryKernel<Fn>(kName, a.in(0), a.in(1), a.out(), a.in_shape(0), a.in_shape(1),
                                     a.out_type().type.shape));
  };
  return def;
}

}  // namespace op_util
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_OPS_BINARY_H_
