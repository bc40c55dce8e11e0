#include "runtime/ops/op_util.h"

namespace edgeq {
namespace op_util {

OpDef ToOpDef(const BuiltinOpDef& def) {
  OpDef op;
  op.name = def.name == nullptr ? "" : def.name;
  op.min_inputs = def.min_inputs;
  op.max_inputs = def.max_inputs;
  op.attribute_names.assign(def.attribute_names.begin(), def.attribute_names.end());
  if (def.infer != nullptr) op.infer = def.infer;
  if (def.parse_attributes != nullptr) op.parse_attributes = def.parse_attributes;
  if (def.create_kernel != nullptr) op.create_kernel = def.create_kernel;
  return op;
}

TypesOr InferUnaryF32(const InferInput& in, const OpAttributes&) {
  if (!IsPlainF32(in.types[0])) return Invalid("operand must be plain f32");
  return One(Plain(DType::kFloat32, in.types[0].type.shape));
}

}  // namespace op_util
}  // namespace edgeq
