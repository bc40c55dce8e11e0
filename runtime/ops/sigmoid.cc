// Op "sigmoid": 1 / (1 + exp(-x)) element-wise (plain f32; ggml_sigmoid's formula): the output
// gate of Qwen3.5's full-attention layers.
#include <cmath>

#include "runtime/ops/op_util.h"
#include "runtime/ops/unary_kernel.h"

namespace edgeq {
namespace op_util {
namespace {

constexpr char kSigmoidOpName[] = "sigmoid";

EDGEQ_REGISTER_OP(sigmoid, UnaryF32OpDef(kSigmoidOpName, [](const KernelArgs& a) {
                    return MakeElementwise(kSigmoidOpName, a,
                                           [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
                  }));

}  // namespace
}  // namespace op_util
}  // namespace edgeq
