// Op "ssm_conv": the causal depthwise convolution with a carried state (the short convolution of
// LFM2's conv layers and of Qwen3.5's linear-attention layers; GGML's ggml_ssm_conv over the
// state prepended to the block, as llama.cpp builds it).
//
//   inputs:  x f32 [t, c] (the block's rows), state f32 [k - 1, c] (the k - 1 input rows before
//            the block), weight f32 [c, k] (each channel's taps, oldest first), n i32 [1] (the
//            block's real rows, in [0, t]: rows past n are padding)
//   outputs: y f32 [t, c], y[i][ch] = sum_j weight[ch][j] * s[i + j] over s = state ++ x
//            (accumulated in f32 from j = 0, as GGML: bit-exact with it);
//            new_state f32 [k - 1, c] = the last k - 1 rows of state ++ x[0..n) (padding rows
//            never enter it; n = 0 keeps the state).
// Rows of y past n are computed from the padding and mean nothing.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

class SsmConvKernel : public OpKernel {
 public:
  SsmConvKernel(int x, int state, int weight, int n, int y, int new_state, int64_t t, int64_t c,
                int64_t k)
      : x_(x),
        state_(state),
        weight_(weight),
        n_(n),
        y_(y),
        new_state_(new_state),
        t_(t),
        c_(c),
        k_(k) {}

  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    const float* state = Data(ctx, state_);
    const float* w = Data(ctx, weight_);
    const int32_t n = *Data<const int32_t>(ctx, n_);
    if (n < 0 || n > t_) {
      return absl::InvalidArgumentError(
          absl::StrFormat("ssm_conv: real row count %d is outside [0, %d]", n, t_));
    }
    float* y = Data(ctx, y_);
    float* new_state = Data(ctx, new_state_);
    const int64_t t = t_, c = c_, k = k_, d = k_ - 1;
    // Row r of state ++ x.
    auto row = [=](int64_t r) { return r < d ? state + r * c : x + (r - d) * c; };
    ParallelFor(ctx.pool, static_cast<size_t>(c), 64, t * c * k, [=](size_t s, size_t cnt) {
      for (int64_t i = 0; i < t; ++i) {
        float* out = y + i * c;
        for (int64_t ch = static_cast<int64_t>(s); ch < static_cast<int64_t>(s + cnt); ++ch) {
          const float* taps = w + ch * k;
          float sum = 0.0f;
          for (int64_t j = 0; j < k; ++j) sum += row(i + j)[ch] * taps[j];
          out[ch] = sum;
        }
      }
    });
    // The last d rows of state ++ x[0..n): rows n .. n + d - 1 of it.
    for (int64_t j = 0; j < d; ++j) {
      std::memcpy(new_state + j * c, row(n + j), static_cast<size_t>(c) * sizeof(float));
    }
    return absl::OkStatus();
  }
  std::string name() const override { return "ssm_conv_f32"; }

 private:
  int x_, state_, weight_, n_, y_, new_state_;
  int64_t t_, c_, k_;
};

TypesOr Infer(const InferInput& in, const OpAttributes&) {
  const ValueType &x = in.types[0], &state = in.types[1], &w = in.types[2], &n = in.types[3];
  if (!IsPlainF32(x) || !IsPlainF32(state) || !IsPlainF32(w)) {
    return Invalid("x, state and weight must be plain f32");
  }
  if (n.type.dtype != DType::kInt32 || n.is_quantized() || n.type.shape != Shape({1})) {
    return Invalid("n (the real rows) must be i32 [1]");
  }
  const Shape &xs = x.type.shape, &ss = state.type.shape, &ws = w.type.shape;
  if (xs.rank() != 2 || ws.rank() != 2 || ss.rank() != 2) {
    return Invalid("expected x [t, c], state [k - 1, c], weight [c, k]");
  }
  const int64_t c = xs.dim(1), k = ws.dim(1);
  if (ws.dim(0) != c || k < 2 || ss != Shape({k - 1, c})) {
    return Invalid(absl::StrFormat(
        "expected weight [%d, k >= 2] and state [k - 1, %d] for x %s; got weight %s, state %s", c,
        c, xs.ToString(), ws.ToString(), ss.ToString()));
  }
  return std::vector<ValueType>{Plain(DType::kFloat32, xs), Plain(DType::kFloat32, ss)};
}

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = "ssm_conv";
  def.min_inputs = def.max_inputs = 4;
  def.infer = Infer;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    const Shape& xs = a.in_shape(0);
    return Make(new SsmConvKernel(a.in(0), a.in(1), a.in(2), a.in(3), a.node.outputs[0],
                                  a.node.outputs[1], xs.dim(0), xs.dim(1), a.in_shape(2).dim(1)));
  };
  return def;
}

EDGEQ_REGISTER_OP(ssm_conv, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
