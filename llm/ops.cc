#include "llm/ops.h"

#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "graph/ops.h"
#include "quantization/block_layout.h"
#include "runtime/custom_op.h"

namespace edgeq {
namespace llm {
namespace {

absl::StatusOr<std::vector<TensorType>> RopeShape(const char* name,
                                                  absl::Span<const ValueType> in) {
  if (in.size() != 3 || in[0].is_quantized() || in[0].type.dtype != DType::kFloat32 ||
      in[0].type.shape.rank() != 3 || in[1].type.dtype != DType::kInt32 ||
      in[1].type.shape != Shape({in[0].type.shape.dim(0)}) || in[2].type.dtype != DType::kFloat32 ||
      in[2].type.shape.rank() != 1 || 2 * in[2].type.shape.dim(0) > in[0].type.shape.dim(2)) {
    std::string got;
    for (const ValueType& v : in) got += (got.empty() ? "" : ", ") + v.ToString();
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s takes x f32 [t, heads, d], positions i32 [t], inv_freq f32 [n <= d / 2]; got (%s)",
        name, got));
  }
  return std::vector<TensorType>{in[0].type};
}

template <bool kNeox>
absl::Status RopeKernel(absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                        pthreadpool_t) {
  const Shape& s = in[0].shape();
  const int64_t t = s.dim(0), heads = s.dim(1), d = s.dim(2), pairs = in[2].shape().dim(0);
  const float* x = in[0].values<float>();
  const int32_t* pos = in[1].values<int32_t>();
  const float* inv_freq = in[2].values<float>();
  float* y = out[0].mutable_values<float>();
  // kNorm: pair i = (2i, 2i + 1); kNeox: pair i = (i, i + pairs).
  const int64_t stride = kNeox ? 1 : 2, partner = kNeox ? pairs : 1;
  for (int64_t j = 0; j < t; ++j) {
    const float p = static_cast<float>(pos[j]);
    for (int64_t i = 0; i < pairs; ++i) {
      const float val = p * inv_freq[i];
      const float c = std::cos(val);
      const float sn = std::sin(val);
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t o = (j * heads + h) * d + stride * i;
        const float v0 = x[o];
        const float v1 = x[o + partner];
        y[o] = v0 * c - v1 * sn;
        y[o + partner] = v0 * sn + v1 * c;
      }
    }
    if (2 * pairs < d) {
      for (int64_t h = 0; h < heads; ++h) {
        const int64_t o = (j * heads + h) * d;
        std::memcpy(y + o + 2 * pairs, x + o + 2 * pairs, (d - 2 * pairs) * sizeof(float));
      }
    }
  }
  return absl::OkStatus();
}

// ggml's table: the fp16 result for every fp16 input.
const std::vector<uint16_t>& GeluF16Table() {
  static const std::vector<uint16_t>* table = [] {
    auto* t = new std::vector<uint16_t>(1 << 16);
    constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
    constexpr float kCoef = 0.044715f;
    for (int i = 0; i < (1 << 16); ++i) {
      const float v = blocks::Fp16ToFloat(static_cast<uint16_t>(i));
      const float g = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * v * (1.0f + kCoef * v * v)));
      (*t)[i] = blocks::FloatToFp16(g);
    }
    return t;
  }();
  return *table;
}

absl::Status GeluTanhF16Kernel(absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                               pthreadpool_t) {
  const int64_t n = in[0].shape().num_elements();
  const float* x = in[0].values<float>();
  float* y = out[0].mutable_values<float>();
  const std::vector<uint16_t>& table = GeluF16Table();
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (v <= -10.0f) {
      y[i] = 0.0f;
    } else if (v >= 10.0f) {
      y[i] = v;
    } else {
      y[i] = blocks::Fp16ToFloat(table[blocks::FloatToFp16(v)]);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<TensorType>> UnaryShape(const char* name,
                                                   absl::Span<const ValueType> in) {
  if (in.size() != 1 || in[0].is_quantized() || in[0].type.dtype != DType::kFloat32) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s takes one f32 tensor; got %d inputs%s", name, in.size(),
                        in.empty() ? "" : absl::StrFormat(", the first %s", in[0].ToString())));
  }
  return std::vector<TensorType>{in[0].type};
}

absl::Status GeluTanhKernel(absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                            pthreadpool_t) {
  const int64_t n = in[0].shape().num_elements();
  const float* x = in[0].values<float>();
  float* y = out[0].mutable_values<float>();
  constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
  constexpr float kCoef = 0.044715f;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * v * (1.0f + kCoef * v * v)));
  }
  return absl::OkStatus();
}

absl::Status TanhKernel(absl::Span<const TensorRef> in, absl::Span<const TensorRef> out,
                        pthreadpool_t) {
  const int64_t n = in[0].shape().num_elements();
  const float* x = in[0].values<float>();
  float* y = out[0].mutable_values<float>();
  for (int64_t i = 0; i < n; ++i) y[i] = std::tanh(x[i]);
  return absl::OkStatus();
}

absl::Status Register(const char* name, CustomShapeFunction shape, CustomKernel kernel) {
  CustomOpDef def;
  def.name = name;
  def.shape_function = std::move(shape);
  def.kernel = std::move(kernel);
  absl::Status s = CustomOpRegistry::Global().Register(std::move(def));
  return s.code() == absl::StatusCode::kAlreadyExists ? absl::OkStatus() : s;
}

absl::Status RegisterAll() {
  absl::Status s = Register(
      kRopeOpName, [](absl::Span<const ValueType> in) { return RopeShape(kRopeOpName, in); },
      RopeKernel<false>);
  if (!s.ok()) return s;
  s = Register(
      kRopeNeoxOpName,
      [](absl::Span<const ValueType> in) { return RopeShape(kRopeNeoxOpName, in); },
      RopeKernel<true>);
  if (!s.ok()) return s;
  s = Register(
      kGeluTanhOpName,
      [](absl::Span<const ValueType> in) { return UnaryShape(kGeluTanhOpName, in); },
      GeluTanhKernel);
  if (!s.ok()) return s;
  s = Register(
      kGeluTanhF16OpName,
      [](absl::Span<const ValueType> in) { return UnaryShape(kGeluTanhF16OpName, in); },
      GeluTanhF16Kernel);
  if (!s.ok()) return s;
  s = Register(
      kTanhOpName, [](absl::Span<const ValueType> in) { return UnaryShape(kTanhOpName, in); },
      TanhKernel);
  return s;
}

}  // namespace

absl::Status RegisterLlmOps() {
  static const absl::Status* status = new absl::Status(RegisterAll());
  return *status;
}

Value Rope(Value x, Value positions, Value inv_freq, RopeMode mode) {
  const char* name = mode == RopeMode::kNeox ? kRopeNeoxOpName : kRopeOpName;
  if (!x.ok()) return Value();
  std::vector<Value> v = ops::Custom(name, {x, positions, inv_freq}, {x.type()});
  return v.empty() ? Value() : v[0];
}

Value GeluTanh(Value x, bool half_precision_table) {
  if (!x.ok()) return Value();
  std::vector<Value> v =
      ops::Custom(half_precision_table ? kGeluTanhF16OpName : kGeluTanhOpName, {x}, {x.type()});
  return v.empty() ? Value() : v[0];
}

Value Tanh(Value x) {
  if (!x.ok()) return Value();
  std::vector<Value> v = ops::Custom(kTanhOpName, {x}, {x.type()});
  return v.empty() ? Value() : v[0];
}

}  // namespace llm
}  // namespace edgeq
