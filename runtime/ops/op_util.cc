#include "runtime/ops/op_util.h"

#include <utility>

namespace edgeq {
namespace op_util {

OpDef UnaryF32OpDef(const char* name, KernelFactory factory) {
  OpDef def;
  def.name = name;
  def.min_inputs = def.max_inputs = 1;
  def.infer = [](const InferInput& in, const OpAttributes&) -> TypesOr {
    if (!IsPlainF32(in.types[0])) return Invalid("operand must be plain f32");
    return One(Plain(DType::kFloat32, in.types[0].type.shape));
  };
  def.create_kernel = std::move(factory);
  return def;
}

}  // namespace op_util
}  // namespace edgeq
