// Op "div": a / b element-wise over two plain f32 tensors with numpy broadcasting (binary.h).
#include "runtime/ops/binary.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kDivOpName[] = "div";

struct DivFn {
  template <typename T>  // float or F4
  static T Apply(T a, T b) {
    return a / b;
  }
};

EDGEQ_REGISTER_OP(div, BinaryOpDef<DivFn, kDivOpName>());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
