// NEON delta rule (delta_rule.h): a state row's 16-lane partial sums are four 4-float vectors
// (lanes 0-3, 4-7, 8-11, 12-15); rows whose length is not a multiple of 16 go through the generic
// code. vmulq + vaddq, never vfmaq: the same roundings as the other kernels.
#include <arm_neon.h>

#include <cstdint>

#include "runtime/kernels/vector/delta_rule.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

// Lanes added 8, 4, 2 and 1 apart (delta_rule.h's order).
float SumLanes16(const float32x4_t* p) {
  const float32x4_t a = vaddq_f32(vaddq_f32(p[0], p[2]), vaddq_f32(p[1], p[3]));
  const float32x2_t c = vadd_f32(vget_low_f32(a), vget_high_f32(a));
  return vget_lane_f32(c, 0) + vget_lane_f32(c, 1);
}

void TokenNeon(float* m, const float* k, const float* q, const float* v, float decay, float b,
               float scale, int64_t s, float* o) {
  if (s % 16 != 0) {
    DeltaRuleTokenGeneric(m, k, q, v, decay, b, scale, s, o);
    return;
  }
  const float32x4_t vdecay = vdupq_n_f32(decay);
  for (int64_t j = 0; j < s; ++j) {
    float* mj = m + j * s;
    float32x4_t dot[4] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f),
                          vdupq_n_f32(0.0f)};
    for (int64_t i = 0; i < s; i += 16) {
      for (int h = 0; h < 4; ++h) {
        const float32x4_t x = vmulq_f32(vld1q_f32(mj + i + 4 * h), vdecay);
        dot[h] = vaddq_f32(dot[h], vmulq_f32(x, vld1q_f32(k + i + 4 * h)));
      }
    }
    const float32x4_t d = vdupq_n_f32((v[j] - SumLanes16(dot)) * b);
    float32x4_t out[4] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f),
                          vdupq_n_f32(0.0f)};
    for (int64_t i = 0; i < s; i += 16) {
      for (int h = 0; h < 4; ++h) {
        float* p = mj + i + 4 * h;
        const float32x4_t x =
            vaddq_f32(vmulq_f32(vld1q_f32(p), vdecay), vmulq_f32(vld1q_f32(k + i + 4 * h), d));
        vst1q_f32(p, x);
        out[h] = vaddq_f32(out[h], vmulq_f32(x, vld1q_f32(q + i + 4 * h)));
      }
    }
    o[j] = SumLanes16(out) * scale;
  }
}

const DeltaRuleKernel kKernel = {"delta_rule_neon", Isa::kNeon, &TokenNeon};

}  // namespace
}  // namespace arm

const DeltaRuleKernel* const kDeltaRuleNeon = &arm::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
