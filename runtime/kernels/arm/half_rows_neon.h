// The row kernel of the 16-bit float weights (bf16, f16) x f32 activations with ARMv8-A NEON: 4
// weight rows at a time against one activation row, 8 values per step, each weight converted to
// f32 by C::Lo / C::Hi (f16: FCVTL, exact; bf16: a 16-bit left shift) and C::ToFloat (the tail).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_HALF_ROWS_NEON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_HALF_ROWS_NEON_H_

#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: each including file keeps its own copy (compiled with its own flags).
namespace {

struct F16ConvertNeon {
  static inline float32x4_t Lo(uint16x8_t h) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h)));
  }
  static inline float32x4_t Hi(uint16x8_t h) { return vcvt_high_f32_f16(vreinterpretq_f16_u16(h)); }
  static inline float ToFloat(uint16_t b) { return blocks::Fp16ToFloat(b); }
};

struct Bf16ConvertNeon {
  static inline float32x4_t Lo(uint16x8_t h) {
    return vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16));
  }
  static inline float32x4_t Hi(uint16x8_t h) {
    return vreinterpretq_f32_u32(vshll_high_n_u16(h, 16));
  }
  static inline float ToFloat(uint16_t b) {
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

template <typename C>
struct HalfRowsNeon {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* xb, int64_t k, float* out) {
    const float* x = reinterpret_cast<const float*>(xb);
    float32x4_t acc0[R], acc1[R];
    for (int r = 0; r < R; ++r) acc0[r] = acc1[r] = vdupq_n_f32(0.0f);
    int64_t l = 0;
    for (; l + 8 <= k; l += 8) {
      const float32x4_t x0 = vld1q_f32(x + l), x1 = vld1q_f32(x + l + 4);
      for (int r = 0; r < R; ++r) {
        const uint16x8_t h = vld1q_u16(reinterpret_cast<const uint16_t*>(w + r * wrb) + l);
        acc0[r] = vfmaq_f32(acc0[r], C::Lo(h), x0);
        acc1[r] = vfmaq_f32(acc1[r], C::Hi(h), x1);
      }
    }
    for (int r = 0; r < R; ++r) {
      float s = vaddvq_f32(vaddq_f32(acc0[r], acc1[r]));
      for (int64_t t = l; t < k; ++t) {
        uint16_t b;
        std::memcpy(&b, w + r * wrb + 2 * t, 2);
        s += C::ToFloat(b) * x[t];
      }
      out[r] = s;
    }
  }
};

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_HALF_ROWS_NEON_H_
