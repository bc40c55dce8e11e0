// Q5_K x Q8_K with ARMv8.2-A dotprod: per 32-value sub-block two sdot over the 5-bit levels
// give exact int32 lanes, multiplied by the sub-block's 6-bit scale; the mins use the
// activation's 16-value sums (bsums), as in GGML.
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/k_scales.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q5_KDotprod {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    const uint8x16_t one = vdupq_n_u8(1);
    float32x4_t acc[R];
    float accm[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = vdupq_n_f32(0.0f);
      accm[r] = 0.0f;
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ5_K*>(w + r * wrb)[b];
        uint8_t sc[8], mn[8];
        UnpackKScales(bw.scales, sc, mn);
        int32_t summ = 0;
        for (int j = 0; j < 16; ++j) summ += bx[b].bsums[j] * mn[j / 2];
        int32x4_t sumi = vdupq_n_s32(0);
        uint8x16_t qh0 = vld1q_u8(bw.qh), qh1 = vld1q_u8(bw.qh + 16);
        for (int j = 0; j < 4; ++j) {
          const uint8x16_t q0 = vld1q_u8(bw.qs + 32 * j), q1 = vld1q_u8(bw.qs + 32 * j + 16);
          uint8x16_t l0 = vandq_u8(q0, m4), l1 = vandq_u8(q1, m4);
          uint8x16_t h0 = vshrq_n_u8(q0, 4), h1 = vshrq_n_u8(q1, 4);
          l0 = vorrq_u8(l0, vshlq_n_u8(vandq_u8(qh0, one), 4));
          l1 = vorrq_u8(l1, vshlq_n_u8(vandq_u8(qh1, one), 4));
          qh0 = vshrq_n_u8(qh0, 1);
          qh1 = vshrq_n_u8(qh1, 1);
          h0 = vorrq_u8(h0, vshlq_n_u8(vandq_u8(qh0, one), 4));
          h1 = vorrq_u8(h1, vshlq_n_u8(vandq_u8(qh1, one), 4));
          qh0 = vshrq_n_u8(qh0, 1);
          qh1 = vshrq_n_u8(qh1, 1);
          const int8_t* y = bx[b].qs + 64 * j;
          int32x4_t p0 = vdotq_s32(vdupq_n_s32(0), vreinterpretq_s8_u8(l0), vld1q_s8(y));
          p0 = vdotq_s32(p0, vreinterpretq_s8_u8(l1), vld1q_s8(y + 16));
          int32x4_t p1 = vdotq_s32(vdupq_n_s32(0), vreinterpretq_s8_u8(h0), vld1q_s8(y + 32));
          p1 = vdotq_s32(p1, vreinterpretq_s8_u8(h1), vld1q_s8(y + 48));
          sumi = vmlaq_n_s32(sumi, p0, sc[2 * j]);
          sumi = vmlaq_n_s32(sumi, p1, sc[2 * j + 1]);
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        const float dmin = blocks::Fp16ToFloat(bw.dmin) * bx[b].d;
        acc[r] = vfmaq_n_f32(acc[r], vcvtq_f32_s32(sumi), d);
        accm[r] += dmin * summ;
      }
    }
    for (int r = 0; r < R; ++r) out[r] = vaddvq_f32(acc[r]) - accm[r];
  }
};

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
