// Q5_K x Q8_K with ARMv8.2-A dotprod (the row kernel arm::K45Dotprod over the 5-bit levels).
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/dotprod_common.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// The 5th bit of level l of 64-value chunk j is bit 2j (low 32) / 2j + 1 (high 32) of qh[l % 32].
class Q5_KLevels {
 public:
  using Block = blocks::BlockQ5_K;
  explicit Q5_KLevels(const Block& b) : qh0_(vld1q_u8(b.qh)), qh1_(vld1q_u8(b.qh + 16)) {}
  void AddHighBits(uint8x16_t* l0, uint8x16_t* l1, uint8x16_t* h0, uint8x16_t* h1) {
    const uint8x16_t one = vdupq_n_u8(1);
    *l0 = vorrq_u8(*l0, vshlq_n_u8(vandq_u8(qh0_, one), 4));
    *l1 = vorrq_u8(*l1, vshlq_n_u8(vandq_u8(qh1_, one), 4));
    qh0_ = vshrq_n_u8(qh0_, 1);
    qh1_ = vshrq_n_u8(qh1_, 1);
    *h0 = vorrq_u8(*h0, vshlq_n_u8(vandq_u8(qh0_, one), 4));
    *h1 = vorrq_u8(*h1, vshlq_n_u8(vandq_u8(qh1_, one), 4));
    qh0_ = vshrq_n_u8(qh0_, 1);
    qh1_ = vshrq_n_u8(qh1_, 1);
  }

 private:
  uint8x16_t qh0_, qh1_;
};

using Q5_KDotprod = arm::K45Dotprod<Q5_KLevels>;

}  // namespace

const KernelEntry kQ5_KDotprodGemv = {
    Encoding::kQ5_K, Isa::kNeonDotprod, Shape::kGemv, "q5_k_dotprod_gemv",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemv<Q5_KDotprod>, 16};
const KernelEntry kQ5_KDotprodGemm = {
    Encoding::kQ5_K, Isa::kNeonDotprod, Shape::kGemm, "q5_k_dotprod_gemm",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemm<Q5_KDotprod>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
