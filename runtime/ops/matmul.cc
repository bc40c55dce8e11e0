// Ops "matmul" (lhs [..., m, k] · rhs [k, n], or batched rhs [..., k, n] with exactly lhs's batch
// dimensions -> [..., m, n]) and "matmul_transposed" (rhs [n, k] or [..., n, k]: a linear layer's
// weights, Q·K^T), plain f32. Kernels: XNNPACK's fully-connected operator for a rank-2 constant
// rhs when the session enables XNNPACK (weights packed once per session), else the portable loop.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "runtime/ops/op_util.h"
#include "xnnpack.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kMatmulOpName[] = "matmul";
constexpr char kMatmulTransposedOpName[] = "matmul_transposed";

// The portable f32 loop: any rhs (constant or not, batched or not, transposed or not).
class MatmulKernel : public OpKernel {
 public:
  MatmulKernel(int a, int b, int out, int64_t batch, int64_t m, int64_t k, int64_t n,
               bool rhs_batched, bool transposed)
      : a_(a),
        b_(b),
        out_(out),
        batch_(batch),
        m_(m),
        k_(k),
        n_(n),
        rhs_batched_(rhs_batched),
        transposed_(transposed) {}
  absl::Status Run(const ExecContext& ctx) override {
    const float* a = Data(ctx, a_);
    const float* b = Data(ctx, b_);
    float* y = Data(ctx, out_);
    const int64_t m = m_, k = k_, n = n_;
    const bool rhs_batched = rhs_batched_, transposed = transposed_;
    const int64_t rows = batch_ * m;
    ParallelFor(ctx.pool, rows, 1, rows * n * k, [=](size_t s, size_t c) {
      for (size_t row = s; row < s + c; ++row) {
        const float* ar = a + row * k;
        const float* bm = b + (rhs_batched ? static_cast<int64_t>(row) / m * k * n : 0);
        float* yr = y + row * n;
        if (transposed) {
          for (int64_t j = 0; j < n; ++j) {
            const float* br = bm + j * k;
            float sum = 0.0f;
            for (int64_t l = 0; l < k; ++l) sum += ar[l] * br[l];
            yr[j] = sum;
          }
        } else {
          for (int64_t j = 0; j < n; ++j) yr[j] = 0.0f;
          for (int64_t l = 0; l < k; ++l) {
            const float al = ar[l];
            const float* br = bm + l * n;
            for (int64_t j = 0; j < n; ++j) yr[j] += al * br[j];
          }
        }
      }
    });
    return absl::OkStatus();
  }
  std::string name() const override { return "matmul_f32_portable"; }

 private:
  int a_, b_, out_;
  int64_t batch_, m_, k_, n_;
  bool rhs_batched_, transposed_;
};

// A constant rank-2 rhs through XNNPACK's fully-connected operator (weights packed at Load, once
// per session: graphs over the same weights share the operator).
class XnnFullyConnectedKernel : public OpKernel {
 public:
  XnnFullyConnectedKernel(int a, int out, int64_t rows,
                          std::shared_ptr<internal::SharedXnnFullyConnected> op)
      : a_(a), out_(out), rows_(rows), op_(std::move(op)) {}
  absl::Status Run(const ExecContext& ctx) override {
    std::lock_guard<std::mutex> lock(op_->mu);
    xnn_operator_t op = static_cast<xnn_operator_t>(op_->op);
    xnn_status s =
        xnn_setup_fully_connected_nc_f32(op, rows_, Data(ctx, a_), Data(ctx, out_), ctx.pool);
    if (s == xnn_status_success) s = xnn_run_operator(op, ctx.pool);
    if (s != xnn_status_success) {
      return absl::InternalError(
          absl::StrFormat("matmul: XNNPACK fully-connected failed with status %d", s));
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "matmul_f32_xnnpack"; }
  // XNNPACK packs the weights into the operator at creation.
  bool CopiesConstantInput(int position) const override { return position == 1; }

 private:
  int a_, out_;
  int64_t rows_;
  std::shared_ptr<internal::SharedXnnFullyConnected> op_;
};

template <bool kTransposed>
TypesOr Infer(const InferInput& in, const OpAttributes&) {
  if (!IsPlainF32(in.types[0]) || !IsPlainF32(in.types[1])) {
    return Invalid("both operands must be plain f32 (use qmatmul for quantized)");
  }
  const Shape& a = in.types[0].type.shape;
  const Shape& b = in.types[1].type.shape;
  if (a.rank() < 2 || b.rank() < 2) return Invalid("operands need rank >= 2");
  const int64_t k = a.dim(-1);
  const int64_t rk = kTransposed ? b.dim(-1) : b.dim(-2);
  const int64_t n = kTransposed ? b.dim(-2) : b.dim(-1);
  if (rk != k)
    return Invalid(absl::StrFormat("inner dimensions differ: lhs k=%d, rhs k=%d", k, rk));
  if (b.rank() > 2) {
    std::vector<int64_t> ab(a.dims().begin(), a.dims().end() - 2);
    std::vector<int64_t> bb(b.dims().begin(), b.dims().end() - 2);
    if (ab != bb) return Invalid("a batched rhs must have exactly lhs's batch dimensions");
  }
  return One(Plain(DType::kFloat32, a.WithLastDim(n)));
}

template <bool kTransposed>
KernelOr Create(const KernelArgs& args) {
  const Shape& a = args.in_shape(0);
  const Shape& b = args.in_shape(1);
  const int64_t k = a.dim(-1);
  const int64_t n = args.out_type().type.shape.dim(-1);
  const int64_t m = a.dim(-2);
  const int64_t batch = m == 0 ? 0 : a.num_elements() / k / m;
  const Tensor* weights = args.constant(1);
  const internal::KernelEnv& env = args.env;
  if (env.use_xnnpack && weights != nullptr && b.rank() == 2 && k > 0 && n > 0) {
    const float* w = static_cast<const float*>(weights->raw_data());
    absl::StatusOr<std::shared_ptr<internal::SharedXnnFullyConnected>> op =
        env.weight_cache != nullptr ? env.weight_cache->GetOrCreateXnn(w, k, n, kTransposed)
                                    : internal::CreateXnnFullyConnected(w, k, n, kTransposed);
    if (!op.ok()) return op.status();
    return Make(new XnnFullyConnectedKernel(args.in(0), args.out(), batch * m, *std::move(op)));
  }
  return Make(new MatmulKernel(args.in(0), args.in(1), args.out(), batch, m, k, n, b.rank() > 2,
                               kTransposed));
}

template <bool kTransposed>
constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kTransposed ? kMatmulTransposedOpName : kMatmulOpName;
  def.min_inputs = def.max_inputs = 2;
  def.infer = Infer<kTransposed>;
  def.create_kernel = Create<kTransposed>;
  return def;
}

EDGEQ_REGISTER_OP(matmul, Def<false>());
EDGEQ_REGISTER_OP(matmul_transposed, Def<true>());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
