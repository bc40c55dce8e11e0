// exp(x) on 4 floats with NEON (ARMv8-A baseline: every aarch64 CPU has it).
#ifndef EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_NEON_H_
#define EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_NEON_H_

#include <arm_neon.h>

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {

// x = n ln2 + r, degree-6 Taylor polynomial of e^r, times 2^n; x clamped to [-87.34, 89] (+inf
// from 88.38 on).
inline float32x4_t NeonExp(float32x4_t x) {
  x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-87.33654f)), vdupq_n_f32(89.0f));
  const float32x4_t n = vrndnq_f32(vmulq_f32(x, vdupq_n_f32(1.44269504f)));
  float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693145752f));
  r = vfmsq_f32(r, n, vdupq_n_f32(1.42860677e-6f));
  float32x4_t p = vdupq_n_f32(1.0f / 720);
  p = vfmaq_f32(vdupq_n_f32(1.0f / 120), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.0f / 24), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.0f / 6), p, r);
  p = vfmaq_f32(vdupq_n_f32(0.5f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.0f), p, r);
  const int32x4_t e = vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
  return vmulq_f32(p, vreinterpretq_f32_s32(e));
}

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_VECTOR_EXP_NEON_H_
