// Q5_K x Q8_K, portable scalar (GGML's ggml_vec_dot_q5_K_q8_K generic math).
#include "quantization/block_layout.h"
#include "runtime/kernels/generic/generic_common.h"
#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Q5_K levels: the nibbles plus the 5th bit, bit 2 j (low) / 2 j + 1 (high) of qh[l].
struct Q5_KLevels {
  using Block = blocks::BlockQ5_K;
  static int Low(const Block& b, int j, int l) {
    return (b.qs[32 * j + l] & 0x0F) | (((b.qh[l] >> (2 * j)) & 1) << 4);
  }
  static int High(const Block& b, int j, int l) {
    return (b.qs[32 * j + l] >> 4) | (((b.qh[l] >> (2 * j + 1)) & 1) << 4);
  }
};

}  // namespace

const KernelEntry kQ5_KGenericGemv = {Encoding::kQ5_K,
                                      Isa::kGeneric,
                                      Shape::kGemv,
                                      "q5_k_generic_gemv",
                                      QuantizeRowQ8_K,
                                      Q8_KRowBytes,
                                      nullptr,
                                      nullptr,
                                      GenericGemv<DotQ45_K<Q5_KLevels>>,
                                      16};
const KernelEntry kQ5_KGenericGemm = {Encoding::kQ5_K,
                                      Isa::kGeneric,
                                      Shape::kGemm,
                                      "q5_k_generic_gemm",
                                      QuantizeRowQ8_K,
                                      Q8_KRowBytes,
                                      nullptr,
                                      nullptr,
                                      GenericGemm<DotQ45_K<Q5_KLevels>>,
                                      16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
