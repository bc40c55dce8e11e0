// Op "gelu_tanh": 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) element-wise (plain f32), the
// tanh approximation of GELU (GeGLU of Gemma).
//   attribute half_precision_table (integer 0/1, default 0): as ggml's CPU backend computes it
//   for f32 (GGML_GELU_FP16): x <= -10 gives 0, x >= 10 gives x, otherwise x is rounded to fp16
//   and the result is the fp16 rounding of the formula at that value (a 64K-entry table). This
//   differs from the formula by up to ~1e-3 relative per element, enough to move the logits of a
//   GeGLU model by ~5e-4 relative, so llm::Model uses it to match llama.cpp.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "quantization/block_layout.h"
#include "runtime/ops/op_util.h"
#include "runtime/ops/unary_kernel.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kGeluTanhOpName[] = "gelu_tanh";

struct GeluTanhAttributes : OpAttributes {
  bool half_precision_table = false;
  std::vector<std::string> Describe() const override {
    if (!half_precision_table) return {};
    return {"half_precision_table"};
  }
};

constexpr float kSqrt2OverPi = 0.79788456080286535587989211986876f;
constexpr float kCoef = 0.044715f;

float GeluTanh(float v) {
  return 0.5f * v * (1.0f + std::tanh(kSqrt2OverPi * v * (1.0f + kCoef * v * v)));
}

// ggml's table: the fp16 result for every fp16 input.
const uint16_t* GeluF16Table() {
  static const std::vector<uint16_t>* table = [] {
    auto* t = new std::vector<uint16_t>(1 << 16);
    for (int i = 0; i < (1 << 16); ++i) {
      (*t)[i] = blocks::FloatToFp16(GeluTanh(blocks::Fp16ToFloat(static_cast<uint16_t>(i))));
    }
    return t;
  }();
  return table->data();
}

AttributesOr Parse(const AttributeMap& map) {
  static constexpr const char* kKeys[] = {"half_precision_table"};
  if (absl::Status s = CheckAttributeKeys(kGeluTanhOpName, map, kKeys); !s.ok()) return s;
  absl::StatusOr<int64_t> table = GetIntAttribute(kGeluTanhOpName, map, "half_precision_table", 0);
  if (!table.ok()) return table.status();
  if (*table != 0 && *table != 1) {
    return Invalid("gelu_tanh: attribute half_precision_table must be 0 or 1");
  }
  auto attrs = std::make_shared<GeluTanhAttributes>();
  attrs->half_precision_table = *table == 1;
  return std::shared_ptr<const OpAttributes>(std::move(attrs));
}

KernelOr Create(const KernelArgs& a) {
  if (!a.node.attributes<GeluTanhAttributes>().half_precision_table) {
    return MakeElementwise(kGeluTanhOpName, a, GeluTanh);
  }
  const uint16_t* table = GeluF16Table();
  return MakeElementwise("gelu_tanh_f16_table", a, [table](float v) {
    if (v <= -10.0f) return 0.0f;
    if (v >= 10.0f) return v;
    return blocks::Fp16ToFloat(table[blocks::FloatToFp16(v)]);
  });
}

constexpr const char* kAttributeNames[] = {"half_precision_table"};

constexpr BuiltinOpDef Def() {
  BuiltinOpDef def = UnaryF32OpDef(kGeluTanhOpName, Create);
  def.attribute_names = kAttributeNames;
  def.parse_attributes = Parse;
  return def;
}

EDGEQ_REGISTER_OP(gelu_tanh, Def());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
