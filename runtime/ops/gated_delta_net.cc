// Op "gated_delta_net": the gated delta rule of Qwen3-Next / Qwen3.5 linear-attention layers in
// its recurrent form (llama.cpp's ggml_gated_delta_net with the gate and beta of
// src/models/qwen35.cpp folded in), over a block of t rows of which the first n are real.
//   inputs  q      f32 [t, hk, s]   query heads (after the short convolution and SiLU)
//           k      f32 [t, hk, s]   key heads
//           v      f32 [t, hv, s]   value heads (hv a multiple of hk; value head h reads key and
//                                   query head h % hk, as ggml does)
//           alpha  f32 [t, hv]      decay projection; g = softplus(alpha + dt_bias) * a
//           beta   f32 [t, hv]      write strength projection; b = sigmoid(beta)
//           dt_bias f32 [hv], a f32 [hv]  (ssm_dt.bias, ssm_a = -exp(A_log))
//           state  f32 [hv, s, s]   per head M[j][i] = S[i][j] (row j: value dim, column i: key
//                                   dim; ggml's transposed layout)
//           n      i32 [1]          real rows (0 <= n <= t)
//   outputs out    f32 [t, hv, s]   rows >= n are zero
//           state' f32 [hv, s, s]   the state after the n real rows (padding rows never touch it)
// Per real row and value head, with q and k L2-normalized (x / max(|x|, epsilon)):
//   S *= exp(g); d = (v - S^T k) * b; S += k d^T; out = S^T q / sqrt(s)
// (the state update through the ISA's delta-rule kernel, runtime/kernels/vector/delta_rule.h).
// Attribute epsilon (number >= 0, default 1e-6): of the L2 norms.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "runtime/kernels/vector/delta_rule.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kGdnOpName[] = "gated_delta_net";

struct GdnAttributes : OpAttributes {
  float epsilon = 1e-6f;
  std::vector<std::string> Describe() const override {
    return {absl::StrFormat("epsilon=%g", epsilon)};
  }
};

struct GdnDims {
  int64_t t, hk, hv, s;
};

// x / max(|x|, eps) into y (the sum of squares in double, as ggml's l2_norm).
void L2Normalize(const float* x, int64_t s, float eps, float* y) {
  double sum = 0.0;
  for (int64_t i = 0; i < s; ++i) sum += static_cast<double>(x[i] * x[i]);
  const float scale = 1.0f / std::fmax(std::sqrt(static_cast<float>(sum)), eps);
  for (int64_t i = 0; i < s; ++i) y[i] = x[i] * scale;
}

class GdnKernel : public OpKernel {
 public:
  GdnKernel(std::vector<int> in, int out, int state_out, GdnDims d, float eps,
            const kernels::DeltaRuleKernel* rule)
      : in_(std::move(in)), out_(out), state_out_(state_out), d_(d), eps_(eps), rule_(rule) {}

  absl::Status Run(const ExecContext& ctx) override {
    const int32_t n = *Data<int32_t>(ctx, in_[8]);
    if (n < 0 || n > d_.t) {
      return absl::OutOfRangeError(absl::StrFormat(
          "gated_delta_net: real row count n is %d; expected 0 <= n <= %d", n, d_.t));
    }
    float* out = Data(ctx, out_);
    std::memset(out, 0, sizeof(float) * d_.t * d_.hv * d_.s);
    float* scratch = static_cast<float*>(ctx.scratch);
    const int64_t ss = d_.s * d_.s;
    ParallelFor(ctx.pool, d_.hv, 1, d_.hv * ss * (n + 1), [&](size_t b, size_t c) {
      for (size_t h = b; h < b + c; ++h) {
        RunHead(ctx, n, static_cast<int64_t>(h), scratch + h * 2 * d_.s, out);
      }
    });
    return absl::OkStatus();
  }

  size_t ScratchBytes() const override { return sizeof(float) * 2 * d_.hv * d_.s; }
  std::string name() const override { return absl::StrCat(kGdnOpName, "_", SuffixOf(rule_->name)); }

 private:
  // Value head h over the n real rows; `work` holds 2 s floats (q, k normalized).
  void RunHead(const ExecContext& ctx, int32_t n, int64_t h, float* work, float* out) const {
    const int64_t s = d_.s, hk = d_.hk, hv = d_.hv, kh = h % hk;
    const float* q = Data(ctx, in_[0]);
    const float* k = Data(ctx, in_[1]);
    const float* v = Data(ctx, in_[2]);
    const float* alpha = Data(ctx, in_[3]);
    const float* beta = Data(ctx, in_[4]);
    const float dt_bias = Data(ctx, in_[5])[h];
    const float a = Data(ctx, in_[6])[h];
    float* m = Data(ctx, state_out_) + h * s * s;
    std::memcpy(m, Data(ctx, in_[7]) + h * s * s, sizeof(float) * s * s);
    float* qn = work;
    float* kn = work + s;
    const float scale = 1.0f / std::sqrt(static_cast<float>(s));
    for (int32_t r = 0; r < n; ++r) {
      L2Normalize(q + (r * hk + kh) * s, s, eps_, qn);
      L2Normalize(k + (r * hk + kh) * s, s, eps_, kn);
      const float x = alpha[r * hv + h] + dt_bias;
      const float softplus = x > 20.0f ? x : std::log(1.0f + std::exp(x));
      const float decay = std::exp(softplus * a);
      const float b = 1.0f / (1.0f + std::exp(-beta[r * hv + h]));
      // Row j of M (column j of S) is updated and read independently of the others: one pass
      // over the state (ggml makes four, with the same per-row arithmetic).
      rule_->token(m, kn, qn, v + (r * hv + h) * s, decay, b, scale, s, out + (r * hv + h) * s);
    }
  }

  std::vector<int> in_;
  int out_, state_out_;
  GdnDims d_;
  float eps_;
  const kernels::DeltaRuleKernel* rule_;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"epsilon"};
  if (absl::Status s = CheckAttributeKeys(kGdnOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<double> eps = GetRealAttribute(kGdnOpName, map, "epsilon", 1e-6);
  if (!eps.ok()) return eps.status();
  auto attrs = std::make_shared<GdnAttributes>();
  attrs->epsilon = static_cast<float>(*eps);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

// The shapes of the inputs against q's [t, hk, s] and v's heads; the message names the input.
absl::Status CheckShapes(const InferInput& in) {
  static constexpr const char* kNames[] = {"q", "k", "v", "alpha", "beta", "dt_bias", "a", "state"};
  for (int i = 0; i < 8; ++i) {
    if (!IsPlainF32(in.types[i]))
      return Invalid(absl::StrFormat("%s must be plain f32", kNames[i]));
  }
  const Shape& q = in.types[0].type.shape;
  const Shape& v = in.types[2].type.shape;
  if (q.rank() != 3 || v.rank() != 3) return Invalid("q and v must be [t, heads, s]");
  const int64_t t = q.dim(0), hk = q.dim(1), s = q.dim(2), hv = v.dim(1);
  if (in.types[1].type.shape != q) return Invalid("k must have q's shape [t, hk, s]");
  if (v.dim(0) != t || v.dim(2) != s || hk == 0 || hv % hk != 0) {
    return Invalid("v must be [t, hv, s] with hv a multiple of q's heads hk");
  }
  if (in.types[3].type.shape != Shape({t, hv}) || in.types[4].type.shape != Shape({t, hv})) {
    return Invalid("alpha and beta must be [t, hv]");
  }
  if (in.types[5].type.shape != Shape({hv}) || in.types[6].type.shape != Shape({hv})) {
    return Invalid("dt_bias and a must be [hv]");
  }
  if (in.types[7].type.shape != Shape({hv, s, s})) return Invalid("state must be [hv, s, s]");
  const ValueType& n = in.types[8];
  if (n.type.dtype != DType::kInt32 || n.is_quantized() || n.type.shape != Shape({1})) {
    return Invalid("n must be i32 [1]");
  }
  return absl::OkStatus();
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  if (absl::Status s = CheckShapes(in); !s.ok()) return s;
  if (!(static_cast<const GdnAttributes&>(attributes).epsilon >= 0.0f)) {
    return Invalid("epsilon must be >= 0");
  }
  return std::vector<ValueType>{Plain(DType::kFloat32, in.types[2].type.shape),
                                Plain(DType::kFloat32, in.types[7].type.shape)};
}

constexpr const char* kAttributeNames[] = {"epsilon"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kGdnOpName;
  def.min_inputs = def.max_inputs = 9;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = [](const KernelArgs& a) -> KernelOr {
    const Shape& q = a.in_shape(0);
    const GdnDims d{q.dim(0), q.dim(1), a.in_shape(2).dim(1), q.dim(2)};
    std::vector<int> in;
    for (int i = 0; i < 9; ++i) in.push_back(a.in(i));
    return Make(new GdnKernel(std::move(in), a.out(), a.node.outputs[1], d,
                              a.node.attributes<GdnAttributes>().epsilon,
                              &kernels::SelectDeltaRuleKernel(a.env.isa_cap)));
  };
  return def;
}

EDGEQ_REGISTER_OP(gated_delta_net, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
