// Op "tanh": tanh(x) element-wise (plain f32; final logit soft-capping).
#include <cmath>

#include "runtime/ops/op_util.h"
#include "runtime/ops/unary_kernel.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kTanhOpName[] = "tanh";

EDGEQ_REGISTER_OP(tanh, UnaryF32OpDef(kTanhOpName, [](const KernelArgs& a) {
                    return MakeElementwise(kTanhOpName, a, [](float x) { return std::tanh(x); });
                  }));

}  // namespace
}  // namespace op_util
}  // namespace edgeq
