// The activation quantizers of the ARM 32-value block kernels with ARMv8-A NEON, byte-identical
// to the portable QuantizeRowQ8_0S / QuantizeRowQ8_1S (GGML's quantize_row_q8_0 math: d = amax /
// 127, q = roundf(x * (1 / d)), d stored fp16-rounded; Q8_1's s = fp16(d * sum(q))). Under qemu the
// portable loop spent about 22 instructions per value, a third of a small GEMM's count.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_ACTIVATIONS_NEON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_ACTIVATIONS_NEON_H_

#include <arm_neon.h>

#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: each kernel file keeps its own copy (see arm_common.h).
namespace {

// One block of 32: writes the values, returns the f32 (not fp16-rounded) scale and the sum.
inline float QuantizeBlockQ8_0Neon(const float* x, int8_t* qs, int32_t* sum) {
  float32x4_t v[8];
  float32x4_t m = vdupq_n_f32(0.0f);
  for (int i = 0; i < 8; ++i) {
    v[i] = vld1q_f32(x + 4 * i);
    m = vmaxq_f32(m, vabsq_f32(v[i]));
  }
  const float d = vmaxvq_f32(m) / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  if (std::isinf(id)) {  // a subnormal scale: GGML's loop writes zeros (as the portable one)
    vst1q_s8(qs, vdupq_n_s8(0));
    vst1q_s8(qs + 16, vdupq_n_s8(0));
    *sum = 0;
    return d;
  }
  int32x4_t q[8];
  int32x4_t s = vdupq_n_s32(0);
  for (int i = 0; i < 8; ++i) {
    q[i] = vcvtaq_s32_f32(vmulq_n_f32(v[i], id));  // roundf: to nearest, ties away from zero
    s = vaddq_s32(s, q[i]);
  }
  const int16x8_t h0 = vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1]));
  const int16x8_t h1 = vcombine_s16(vqmovn_s32(q[2]), vqmovn_s32(q[3]));
  const int16x8_t h2 = vcombine_s16(vqmovn_s32(q[4]), vqmovn_s32(q[5]));
  const int16x8_t h3 = vcombine_s16(vqmovn_s32(q[6]), vqmovn_s32(q[7]));
  vst1q_s8(qs, vcombine_s8(vqmovn_s16(h0), vqmovn_s16(h1)));
  vst1q_s8(qs + 16, vcombine_s8(vqmovn_s16(h2), vqmovn_s16(h3)));
  *sum = vaddvq_s32(s);
  return d;
}

// A Q8_0S row (qs, fp16-rounded d, sums); s (may be null) gets Q8_1's s = fp16(d * sum) per block.
inline void QuantizeRowQ8_0SNeonImpl(const float* x, int64_t k, uint8_t* out, float* s) {
  const int64_t nb = k / 32, nbp = Q8_0SPaddedBlocks(k);
  int8_t* qs = reinterpret_cast<int8_t*>(out);
  float* d = reinterpret_cast<float*>(out + nbp * 32);
  int32_t* sum = reinterpret_cast<int32_t*>(out + nbp * 36);
  for (int64_t b = 0; b < nb; ++b) {
    const float db = QuantizeBlockQ8_0Neon(x + 32 * b, qs + 32 * b, &sum[b]);
    d[b] = blocks::Fp16ToFloat(blocks::FloatToFp16(db));
    if (s != nullptr) {
      s[b] = blocks::Fp16ToFloat(blocks::FloatToFp16(static_cast<float>(sum[b]) * db));
    }
  }
  if (s != nullptr) {
    for (int64_t b = nb; b < nbp; ++b) s[b] = 0.0f;
  }
  ZeroPadBlocksQ8_0S(k, out);
}

inline void QuantizeRowQ8_0SNeon(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_0SNeonImpl(x, k, out, nullptr);
}

// Q8_1S: float s[nbp], then the Q8_0S row.
inline void QuantizeRowQ8_1SNeon(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_0SNeonImpl(x, k, out + 4 * Q8_0SPaddedBlocks(k), reinterpret_cast<float*>(out));
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_ACTIVATIONS_NEON_H_
