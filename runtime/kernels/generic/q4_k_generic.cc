// Q4_K x Q8_K, portable scalar (GGML's ggml_vec_dot_q4_K_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Q4_K levels: nibbles of qs (low: values 64 j + l, high: 64 j + 32 + l).
struct Q4_KLevels {
  using Block = blocks::BlockQ4_K;
  static int Low(const Block& b, int j, int l) { return b.qs[32 * j + l] & 0x0F; }
  static int High(const Block& b, int j, int l) { return b.qs[32 * j + l] >> 4; }
};

}  // namespace

const KernelEntry kQ4_KGenericGemv = {Encoding::kQ4_K,
                                      Isa::kGeneric,
                                      Shape::kGemv,
                                      "q4_k_generic_gemv",
                                      QuantizeRowQ8_K,
                                      Q8_KRowBytes,
                                      nullptr,
                                      nullptr,
                                      GenericGemv<DotQ45_K<Q4_KLevels>>,
                                      16};
const KernelEntry kQ4_KGenericGemm = {Encoding::kQ4_K,
                                      Isa::kGeneric,
                                      Shape::kGemm,
                                      "q4_k_generic_gemm",
                                      QuantizeRowQ8_K,
                                      Q8_KRowBytes,
                                      nullptr,
                                      nullptr,
                                      GenericGemm<DotQ45_K<Q4_KLevels>>,
                                      16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
