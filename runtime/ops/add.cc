// Op "add": a + b element-wise over two plain f32 tensors with numpy broadcasting (binary.h).
#include "runtime/ops/binary.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kAddOpName[] = "add";

struct AddFn {
  template <typename T>  // float or F4
  static T Apply(T a, T b) {
    return a + b;
  }
};

EDGEQ_REGISTER_OP(add, BinaryOpDef<AddFn, kAddOpName>());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
