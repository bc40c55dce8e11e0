// Shared NEON pieces of the ARM q4_0/q8_0 kernels: block loaders for the repacked layouts and the
// R-row driver. Included by each ISA file so that it compiles with that file's -march.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_

#include <arm_neon.h>

#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/repack.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {

// Q4_0X4 group g of a row: q[2b], q[2b + 1] = the 32 signed values (level - 8) of block b.
struct Q4_0X4Loader {
  static constexpr int kQsBytesPerBlock = 16;
  static inline void Load(const uint8_t* wr, int64_t g, int8x16_t q[8]) {
    const uint8_t* p = wr + 64 * g;
    const uint8x16_t v0 = vld1q_u8(p), v1 = vld1q_u8(p + 16), v2 = vld1q_u8(p + 32),
                     v3 = vld1q_u8(p + 48);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    const int8x16_t eight = vdupq_n_s8(8);
    q[0] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v0, m4)), eight);
    q[1] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v1, m4)), eight);
    q[2] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v2, m4)), eight);
    q[3] = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(v3, m4)), eight);
    q[4] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v0, 4)), eight);
    q[5] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v1, 4)), eight);
    q[6] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v2, 4)), eight);
    q[7] = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(v3, 4)), eight);
  }
};

// Q8_0X4 (signed) group g: 4 blocks of 32 int8 in natural order.
struct Q8_0X4Loader {
  static constexpr int kQsBytesPerBlock = 32;
  static inline void Load(const uint8_t* wr, int64_t g, int8x16_t q[8]) {
    const int8_t* p = reinterpret_cast<const int8_t*>(wr + 128 * g);
    for (int t = 0; t < 8; ++t) q[t] = vld1q_s8(p + 16 * t);
  }
};

inline float32x4_t LoadScales(const uint8_t* wr, int64_t nbp, int bytes_per_block, int64_t g) {
  return vcvt_f32_f16(vreinterpret_f16_u16(
      vld1_u16(reinterpret_cast<const uint16_t*>(wr + nbp * bytes_per_block) + 4 * g)));
}

// Dot: static int32x4_t Block(int8x16_t q0, int8x16_t q1, int8x16_t x0, int8x16_t x1), lanes
// summing to the block's exact integer dot product.
template <typename Loader, typename Dot>
struct ArmRows {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    float32x4_t acc[R];
    for (int r = 0; r < R; ++r) acc[r] = vdupq_n_f32(0.0f);
    for (int64_t g = 0; g < nbp / 4; ++g) {
      int8x16_t xv[8];
      for (int t = 0; t < 8; ++t) xv[t] = vld1q_s8(xq + 128 * g + 16 * t);
      const float32x4_t dx = vld1q_f32(xd + 4 * g);
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        int8x16_t q[8];
        Loader::Load(wr, g, q);
        const float32x4_t s = vmulq_f32(LoadScales(wr, nbp, Loader::kQsBytesPerBlock, g), dx);
        acc[r] = vfmaq_laneq_f32(acc[r], vcvtq_f32_s32(Dot::Block(q[0], q[1], xv[0], xv[1])), s, 0);
        acc[r] = vfmaq_laneq_f32(acc[r], vcvtq_f32_s32(Dot::Block(q[2], q[3], xv[2], xv[3])), s, 1);
        acc[r] = vfmaq_laneq_f32(acc[r], vcvtq_f32_s32(Dot::Block(q[4], q[5], xv[4], xv[5])), s, 2);
        acc[r] = vfmaq_laneq_f32(acc[r], vcvtq_f32_s32(Dot::Block(q[6], q[7], xv[6], xv[7])), s, 3);
      }
    }
    for (int r = 0; r < R; ++r) out[r] = vaddvq_f32(acc[r]);
  }
};

// Widening multiplies (ARMv8-A baseline): |q| <= 128, |x| <= 127, so two products fit int16.
struct NeonDot {
  static inline int32x4_t Block(int8x16_t q0, int8x16_t q1, int8x16_t x0, int8x16_t x1) {
    int16x8_t a = vmull_s8(vget_low_s8(q0), vget_low_s8(x0));
    a = vmlal_s8(a, vget_high_s8(q0), vget_high_s8(x0));
    int16x8_t b = vmull_s8(vget_low_s8(q1), vget_low_s8(x1));
    b = vmlal_s8(b, vget_high_s8(q1), vget_high_s8(x1));
    return vpadalq_s16(vpaddlq_s16(a), b);
  }
};

}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_
