// NEON attention (ARMv8-A baseline: 4 floats per vector, FMA).
#include <arm_neon.h>

#include <cstdint>

#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/vector/exp_neon.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

float NeonExpScalar(float x) { return vgetq_lane_f32(NeonExp(vdupq_n_f32(x)), 0); }

struct NeonOps {
  static void ScoresTile(const float* const* q, int64_t rows, const float* k, int64_t stride,
                         int64_t n, int64_t hs, float scale, float* const* s) {
    ScoresTileByRow<NeonOps>(q, rows, k, stride, n, hs, scale, s);
  }
  static void WeightedSumTile(float* const* s, int64_t rows, const float* v, int64_t stride,
                              int64_t n, int64_t hs, bool accumulate, float* const* o) {
    WeightedSumTileByRow<NeonOps>(s, rows, v, stride, n, hs, accumulate, o);
  }
  static void Scores(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
                     float scale, float* s) {
    ScoresByDot<NeonOps>(q, k, stride, n, hs, scale, s);
  }
  static void WeightedSum(const float* s, const float* v, int64_t stride, int64_t n, int64_t hs,
                          bool accumulate, float* o) {
    WeightedSumByAxpy<NeonOps>(s, v, stride, n, hs, accumulate, o);
  }
  static float Dot(const float* a, const float* b, int64_t n) {
    float32x4_t s0 = vdupq_n_f32(0.0f), s1 = vdupq_n_f32(0.0f);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
      s1 = vfmaq_f32(s1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
    }
    for (; i + 4 <= n; i += 4) s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
    float s = vaddvq_f32(vaddq_f32(s0, s1));
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), vld1q_f32(x + i), a));
    for (; i < n; ++i) y[i] += a * x[i];
  }
  static void Scale(float* y, float a, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vmulq_n_f32(vld1q_f32(y + i), a));
    for (; i < n; ++i) y[i] *= a;
  }
  static float Max(const float* x, int64_t n) {
    float32x4_t vm = vdupq_n_f32(x[0]);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vm = vmaxq_f32(vm, vld1q_f32(x + i));
    float m = vmaxvq_f32(vm);
    for (; i < n; ++i) m = m > x[i] ? m : x[i];
    return m;
  }
  static float ExpSum(float* x, int64_t n, float max) {
    const float32x4_t vmax = vdupq_n_f32(max);
    float32x4_t vs = vdupq_n_f32(0.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const float32x4_t e = NeonExp(vsubq_f32(vld1q_f32(x + i), vmax));
      vst1q_f32(x + i, e);
      vs = vaddq_f32(vs, e);
    }
    float s = vaddvq_f32(vs);
    for (; i < n; ++i) {
      x[i] = NeonExpScalar(x[i] - max);
      s += x[i];
    }
    return s;
  }
};

const AttentionKernel kKernel = {"attention_neon", Isa::kNeon, &AttendRows<NeonOps>};

}  // namespace
}  // namespace arm

const AttentionKernel* const kAttentionNeon = &arm::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
