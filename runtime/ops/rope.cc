// Op "rope": rotary position embedding, one op for every model (llama.cpp's rope types).
//   inputs   x f32 [s, ..., d]; positions i32 or i64 [s]; optional inv_freq f32 [pairs] with
//            2 * pairs <= d (the model's angle table, llama3 or long/short factors applied)
//   attributes mode ("norm": pairs (2i, 2i+1), Llama, llama2.c; "neox": pairs (i, i + pairs),
//            GPT-NeoX, Qwen, Gemma, Phi-3; default "norm") and theta (number > 0, default 10000;
//            without inv_freq the table is theta^(-2i/d) for i < d/2, d even)
// Pair i of every row at sequence index j turns by the angle positions[j] * inv_freq[i];
// dimensions from 2 * pairs on pass through unchanged. The kernel splits the s rows over the
// pool; each element's float operations are the same however the rows are split.
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/parallel.h"
#include "graph/ops.h"
#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kRopeOpName[] = "rope";

struct RopeAttributes : OpAttributes {
  ops::RopeMode mode = ops::RopeMode::kNorm;
  float theta = 10000.0f;
  std::vector<std::string> Describe() const override {
    std::vector<std::string> parts;
    if (mode == ops::RopeMode::kNeox) parts.push_back("mode=neox");
    parts.push_back(absl::StrFormat("theta=%g", theta));
    return parts;
  }
};

class RopeKernel : public OpKernel {
 public:
  // inv_freq_id < 0: the table `table` computed at Load.
  RopeKernel(const KernelArgs& a, bool neox, std::vector<float> table)
      : x_(a.in(0)),
        pos_(a.in(1)),
        inv_freq_(a.node.inputs.size() > 2 ? a.in(2) : -1),
        out_(a.out()),
        pos64_(a.in_type(1).type.dtype == DType::kInt64),
        neox_(neox),
        table_(std::move(table)) {
    const Shape& x = a.in_shape(0);
    s_ = x.dim(0);
    d_ = x.dim(-1);
    heads_ = s_ == 0 || d_ == 0 ? 0 : x.num_elements() / s_ / d_;
    pairs_ = inv_freq_ >= 0 ? a.in_shape(2).dim(0) : d_ / 2;
  }

  absl::Status Run(const ExecContext& ctx) override {
    const float* x = Data(ctx, x_);
    float* y = Data(ctx, out_);
    const float* inv_freq = inv_freq_ >= 0 ? Data(ctx, inv_freq_) : table_.data();
    const void* pos = ctx.slots[pos_];
    ParallelFor(ctx.pool, s_, 1, 8 * s_ * heads_ * d_,
                [&](size_t s, size_t c) { Rows(x, y, inv_freq, pos, s, s + c); });
    return absl::OkStatus();
  }
  std::string name() const override { return neox_ ? "rope_neox" : "rope_norm"; }

 private:
  void Rows(const float* x, float* y, const float* inv_freq, const void* pos, size_t begin,
            size_t end) const {
    // kNorm: pair i = (2i, 2i + 1); kNeox: pair i = (i, i + pairs).
    const int64_t stride = neox_ ? 1 : 2, partner = neox_ ? pairs_ : 1;
    const int64_t heads = heads_, d = d_, pairs = pairs_;
    for (size_t jj = begin; jj < end; ++jj) {
      const int64_t j = static_cast<int64_t>(jj);
      const int64_t p =
          pos64_ ? static_cast<const int64_t*>(pos)[j] : static_cast<const int32_t*>(pos)[j];
      const float fp = static_cast<float>(p);
      for (int64_t i = 0; i < pairs; ++i) {
        const float val = fp * inv_freq[i];
        const float cs = std::cos(val);
        const float sn = std::sin(val);
        for (int64_t h = 0; h < heads; ++h) {
          const int64_t o = (j * heads + h) * d + stride * i;
          const float v0 = x[o];
          const float v1 = x[o + partner];
          y[o] = v0 * cs - v1 * sn;
          y[o + partner] = v0 * sn + v1 * cs;
        }
      }
      if (2 * pairs < d) {
        for (int64_t h = 0; h < heads; ++h) {
          const int64_t o = (j * heads + h) * d;
          std::memcpy(y + o + 2 * pairs, x + o + 2 * pairs, (d - 2 * pairs) * sizeof(float));
        }
      }
    }
  }

  int x_, pos_, inv_freq_, out_;
  bool pos64_, neox_;
  std::vector<float> table_;
  int64_t s_ = 0, d_ = 0, heads_ = 0, pairs_ = 0;
};

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"mode", "theta"};
  if (absl::Status s = CheckAttributeKeys(kRopeOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<std::string> mode = GetStringAttribute(kRopeOpName, map, "mode", "norm");
  if (!mode.ok()) return mode.status();
  absl::StatusOr<double> theta = GetRealAttribute(kRopeOpName, map, "theta", 10000.0);
  if (!theta.ok()) return theta.status();
  auto attrs = std::make_shared<RopeAttributes>();
  static constexpr ops::RopeMode kModes[] = {ops::RopeMode::kNorm, ops::RopeMode::kNeox};
  static constexpr const char* kModeNames[] = {"norm", "neox"};
  bool known = false;
  for (int i = 0; i < 2; ++i) {
    if (*mode == kModeNames[i]) {
      attrs->mode = kModes[i];
      known = true;
    }
  }
  if (!known) {
    return Invalid(absl::StrCat("rope: attribute mode is \"", *mode, "\", expected norm or neox"));
  }
  attrs->theta = static_cast<float>(*theta);
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

TypesOr Infer(const InferInput& in, const OpAttributes& attributes) {
  const ValueType& x = in.types[0];
  const ValueType& positions = in.types[1];
  if (!IsPlainF32(x)) return Invalid("x must be plain f32");
  if (!IsIndex(positions)) return Invalid("positions must be i32 or i64");
  const Shape& xs = x.type.shape;
  const bool table = in.types.size() > 2;
  if (xs.rank() < 2 || (!table && xs.dim(-1) % 2 != 0)) {
    return Invalid(table ? "x must be [s, ..., d]" : "x must be [s, ..., d] with d even");
  }
  if (positions.type.shape.rank() != 1 || positions.type.shape.dim(0) != xs.dim(0)) {
    return Invalid("positions must be [s] with s the first dimension of x");
  }
  if (table) {
    const ValueType& f = in.types[2];
    if (!IsPlainF32(f) || f.type.shape.rank() != 1 || 2 * f.type.shape.dim(0) > xs.dim(-1)) {
      return Invalid("inv_freq must be f32 [pairs] with 2 * pairs <= d (x's last dimension)");
    }
  } else if (!(static_cast<const RopeAttributes&>(attributes).theta > 0.0f)) {
    return Invalid("theta must be > 0");
  }
  return One(Plain(DType::kFloat32, xs));
}

KernelOr Create(const KernelArgs& a) {
  const RopeAttributes& attrs = a.node.attributes<RopeAttributes>();
  std::vector<float> table;
  if (a.node.inputs.size() == 2) {
    const int64_t d = a.in_shape(0).dim(-1);
    table.resize(d / 2);
    for (int64_t i = 0; i < d / 2; ++i) {
      table[i] = 1.0f / std::pow(attrs.theta, static_cast<float>(2 * i) / static_cast<float>(d));
    }
  }
  return Make(new RopeKernel(a, attrs.mode == ops::RopeMode::kNeox, std::move(table)));
}

constexpr const char* kAttributeNames[] = {"mode", "theta"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def;
  def.name = kRopeOpName;
  def.min_inputs = 2;
  def.max_inputs = 3;
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  def.infer = Infer;
  def.create_kernel = Create;
  return def;
}

EDGEQ_REGISTER_OP(rope, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
