// NEON activations (ARMv8-A baseline: 4 floats per vector; the tail one lane at a time).
#include <arm_neon.h>

#include <cstdint>

#include "runtime/kernels/vector/activation.h"
#include "runtime/kernels/vector/exp_neon.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

float32x4_t NeonSilu(float32x4_t x) {
  const float32x4_t e = NeonExp(vnegq_f32(x));
  return vdivq_f32(x, vaddq_f32(vdupq_n_f32(1.0f), e));
}

void SiluNeon(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, NeonSilu(vld1q_f32(x + i)));
  for (; i < n; ++i) y[i] = vgetq_lane_f32(NeonSilu(vdupq_n_f32(x[i])), 0);
}

void SwigluNeon(const float* gate, const float* up, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(y + i, vmulq_f32(NeonSilu(vld1q_f32(gate + i)), vld1q_f32(up + i)));
  }
  for (; i < n; ++i) y[i] = vgetq_lane_f32(NeonSilu(vdupq_n_f32(gate[i])), 0) * up[i];
}

const ActivationKernel kKernel = {"activation_neon", Isa::kNeon, &SiluNeon, &SwigluNeon};

}  // namespace
}  // namespace arm

const ActivationKernel* const kActivationNeon = &arm::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
