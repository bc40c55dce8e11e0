// Op "mul": a * b element-wise over two plain f32 tensors with numpy broadcasting (binary.h).
#include "runtime/ops/binary.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kMulOpName[] = "mul";

struct MulFn {
  template <typename T>  // float or F4
  static T Apply(T a, T b) {
    return a * b;
  }
};

EDGEQ_REGISTER_OP(mul, BinaryOpDef<MulFn, kMulOpName>());

}  // namespace
}  // namespace op_util
}  // namespace edgeq
