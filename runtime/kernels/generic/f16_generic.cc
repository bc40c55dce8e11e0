// f16 weights x f32 activations, portable scalar f32 dot.
#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

float DotF16(const uint8_t* w, const uint8_t* x, int64_t k) {
  float sum = 0.0f;
  for (int64_t l = 0; l < k; ++l) {
    uint16_t b;
    float v;
    std::memcpy(&b, w + 2 * l, 2);
    std::memcpy(&v, x + 4 * l, 4);
    sum += blocks::Fp16ToFloat(b) * v;
  }
  return sum;
}

}  // namespace

const KernelEntry kF16GenericGemv = {
    Encoding::kF16, Isa::kGeneric, Shape::kGemv, "f16_generic_gemv",  nullptr,
    F32RowBytes,    nullptr,       nullptr,      GenericGemv<DotF16>, 16};
const KernelEntry kF16GenericGemm = {
    Encoding::kF16, Isa::kGeneric, Shape::kGemm, "f16_generic_gemm",  nullptr,
    F32RowBytes,    nullptr,       nullptr,      GenericGemm<DotF16>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
