// Q6_K x Q8_K with ARMv8.2-A dotprod: signed 6-bit values (level - 32) rebuilt from ql/qh, one sdot
// per 16-value group (exact int32 lanes) multiplied by the group's int8 scale.
#include <arm_neon.h>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_list.h"
#include "runtime/kernels/internal/row_driver.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

struct Q6_KDotprod {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    const uint8x16_t m3 = vdupq_n_u8(0x03);
    const int8x16_t off = vdupq_n_s8(32);
    float32x4_t acc[R];
    for (int r = 0; r < R; ++r) acc[r] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ6_K*>(w + r * wrb)[b];
        int32x4_t sumi = vdupq_n_s32(0);
        for (int n = 0; n < 2; ++n) {
          const uint8_t* ql = bw.ql + 64 * n;
          const uint8_t* qhp = bw.qh + 32 * n;
          const int8_t* sc = bw.scales + 8 * n;
          const int8_t* y = bx[b].qs + 128 * n;
          for (int h = 0; h < 2; ++h) {  // 16-value halves l = 16h .. 16h + 15
            const uint8x16_t a = vld1q_u8(ql + 16 * h), c = vld1q_u8(ql + 32 + 16 * h);
            const uint8x16_t qh = vld1q_u8(qhp + 16 * h);
            const uint8x16_t v[4] = {
                vorrq_u8(vandq_u8(a, m4), vshlq_n_u8(vandq_u8(qh, m3), 4)),
                vorrq_u8(vandq_u8(c, m4), vshlq_n_u8(vandq_u8(vshrq_n_u8(qh, 2), m3), 4)),
                vorrq_u8(vshrq_n_u8(a, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(qh, 4), m3), 4)),
                vorrq_u8(vshrq_n_u8(c, 4), vshlq_n_u8(vshrq_n_u8(qh, 6), 4)),
            };
            for (int t = 0; t < 4; ++t) {  // values 32t + 16h .. +15: group 2t + h
              const int8x16_t q = vsubq_s8(vreinterpretq_s8_u8(v[t]), off);
              const int32x4_t p = vdotq_s32(vdupq_n_s32(0), q, vld1q_s8(y + 32 * t + 16 * h));
              sumi = vmlaq_n_s32(sumi, p, sc[2 * t + h]);
            }
          }
        }
        const float d = blocks::Fp16ToFloat(bw.d) * bx[b].d;
        acc[r] = vfmaq_n_f32(acc[r], vcvtq_f32_s32(sumi), d);
      }
    }
    for (int r = 0; r < R; ++r) out[r] = vaddvq_f32(acc[r]);
  }
};

}  // namespace

const KernelEntry kQ6_KDotprodGemv = {
    Encoding::kQ6_K, Isa::kNeonDotprod, Shape::kGemv, "q6_k_dotprod_gemv",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemv<Q6_KDotprod>, 16};
const KernelEntry kQ6_KDotprodGemm = {
    Encoding::kQ6_K, Isa::kNeonDotprod, Shape::kGemm, "q6_k_dotprod_gemm",   QuantizeRowQ8_K,
    Q8_KRowBytes,    nullptr,           nullptr,      RowsGemm<Q6_KDotprod>, 16};

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
