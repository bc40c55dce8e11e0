// Op "gelu": 0.5 x (1 + erf(x / sqrt(2))) element-wise (exact GELU, plain f32).
#include <cmath>

#include "runtime/ops/op_util.h"
#include "runtime/ops/unary_kernel.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kGeluOpName[] = "gelu";

EDGEQ_REGISTER_OP(gelu, UnaryF32OpDef(kGeluOpName, [](const KernelArgs& a) {
                    return MakeElementwise(kGeluOpName, a, [](float x) {
                      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
                    });
                  }));

}  // namespace
}  // namespace op_util
}  // namespace edgeq
