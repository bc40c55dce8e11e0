// Shared NEON pieces of the ARM kernels: block loaders for the repacked q4_0/q8_0 layouts and
// their R-row driver, the K-quant level decoders and row kernels. Included by each ISA file so that
// it compiles with that file's -march.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/repack.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

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

// 16 int8 products summed into the int32 lanes of `acc` with widening multiplies (ARMv8-A
// baseline). The lanes hold other partial sums than sdot's; every caller sums all four.
// |level| <= 32 and |x| <= 127 here, so two products fit int16.
struct NeonDot16 {
  static inline int32x4_t Acc(int32x4_t acc, int8x16_t a, int8x16_t b) {
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    return vpadalq_s16(acc, vmull_high_s8(a, b));
  }
};

// ---- K-quants: the row kernels, generic over the 16-byte dot (NeonDot16 or sdot). ----

// Q4_K's levels are its nibbles: no high bits.
struct Q4_KLevels {
  using Block = blocks::BlockQ4_K;
  explicit Q4_KLevels(const Block& /*b*/) {}
  void AddHighBits(uint8x16_t*, uint8x16_t*, uint8x16_t*, uint8x16_t*) {}
};

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

// L (the encoding's level decoder) provides: using Block; explicit L(const Block&); void
// AddHighBits(uint8x16_t* l0, uint8x16_t* l1, uint8x16_t* h0, uint8x16_t* h1) adding the high bits
// of the next 64 levels (called once per 64 values, in order).
//
// The levels (0..15 for Q4_K, 0..31 for Q5_K) of values 64 j .. 64 j + 63 of super-block b, as
// int8: q[0], q[1] = sub-block 2 j (the low nibbles of qs[32 j .. 32 j + 31]), q[2], q[3] =
// sub-block 2 j + 1 (the high nibbles). `levels` is L(b); call for j = 0, 1, 2, 3 in order.
template <typename L>
inline void K45Levels64(const typename L::Block& b, int j, L* levels, int8x16_t q[4]) {
  const uint8x16_t m4 = vdupq_n_u8(0x0F);
  const uint8x16_t q0 = vld1q_u8(b.qs + 32 * j), q1 = vld1q_u8(b.qs + 32 * j + 16);
  uint8x16_t l0 = vandq_u8(q0, m4), l1 = vandq_u8(q1, m4);
  uint8x16_t h0 = vshrq_n_u8(q0, 4), h1 = vshrq_n_u8(q1, 4);
  levels->AddHighBits(&l0, &l1, &h0, &h1);
  q[0] = vreinterpretq_s8_u8(l0);
  q[1] = vreinterpretq_s8_u8(l1);
  q[2] = vreinterpretq_s8_u8(h0);
  q[3] = vreinterpretq_s8_u8(h1);
}

// Q4_K/Q5_K x Q8_K: per 32-value sub-block two 16-byte dots over the levels give exact int32
// lanes, multiplied by the sub-block's 6-bit scale; the mins use the activation's 16-value sums
// (bsums), as in GGML.
template <typename L, typename Dot>
struct K45Rows {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    float32x4_t acc[R];
    float accm[R];
    for (int r = 0; r < R; ++r) {
      acc[r] = vdupq_n_f32(0.0f);
      accm[r] = 0.0f;
    }
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const typename L::Block*>(w + r * wrb)[b];
        uint8_t sc[8], mn[8];
        blocks::UnpackKScales(bw.scales, sc, mn);
        int32_t summ = 0;
        for (int j = 0; j < 16; ++j) summ += bx[b].bsums[j] * mn[j / 2];
        int32x4_t sumi = vdupq_n_s32(0);
        L levels(bw);
        for (int j = 0; j < 4; ++j) {
          int8x16_t q[4];
          K45Levels64(bw, j, &levels, q);
          const int8_t* y = bx[b].qs + 64 * j;
          int32x4_t p0 = Dot::Acc(vdupq_n_s32(0), q[0], vld1q_s8(y));
          p0 = Dot::Acc(p0, q[1], vld1q_s8(y + 16));
          int32x4_t p1 = Dot::Acc(vdupq_n_s32(0), q[2], vld1q_s8(y + 32));
          p1 = Dot::Acc(p1, q[3], vld1q_s8(y + 48));
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

// The signed 6-bit values (level - 32, in -32..31) of a Q6_K super-block at 128 n + 32 t + 16 h
// .. + 15 for t = 0..3 (16-value group 8 n + 2 t + h) into q[t]: the low 4 bits are nibbles of
// ql[64 n + 16 h ..] (t = 0, 1: low nibbles of the first / second 32 bytes; t = 2, 3: high
// nibbles), the high 2 bits are bit pair t of qh[32 n + 16 h ..].
inline void Q6KValues64(const blocks::BlockQ6_K& b, int n, int h, int8x16_t q[4]) {
  const uint8x16_t m4 = vdupq_n_u8(0x0F);
  const uint8x16_t m3 = vdupq_n_u8(0x03);
  const int8x16_t off = vdupq_n_s8(32);
  const uint8_t* ql = b.ql + 64 * n;
  const uint8x16_t a = vld1q_u8(ql + 16 * h), c = vld1q_u8(ql + 32 + 16 * h);
  const uint8x16_t qh = vld1q_u8(b.qh + 32 * n + 16 * h);
  const uint8x16_t v[4] = {
      vorrq_u8(vandq_u8(a, m4), vshlq_n_u8(vandq_u8(qh, m3), 4)),
      vorrq_u8(vandq_u8(c, m4), vshlq_n_u8(vandq_u8(vshrq_n_u8(qh, 2), m3), 4)),
      vorrq_u8(vshrq_n_u8(a, 4), vshlq_n_u8(vandq_u8(vshrq_n_u8(qh, 4), m3), 4)),
      vorrq_u8(vshrq_n_u8(c, 4), vshlq_n_u8(vshrq_n_u8(qh, 6), 4)),
  };
  for (int t = 0; t < 4; ++t) q[t] = vsubq_s8(vreinterpretq_s8_u8(v[t]), off);
}

// Q6_K x Q8_K: signed 6-bit values (level - 32) rebuilt from ql/qh, one 16-byte dot per
// 16-value group (exact int32 lanes) multiplied by the group's int8 scale.
template <typename Dot>
struct Q6KRows {
  template <int R>
  static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x, int64_t k, float* out) {
    const auto* bx = reinterpret_cast<const blocks::BlockQ8_K*>(x);
    float32x4_t acc[R];
    for (int r = 0; r < R; ++r) acc[r] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      for (int r = 0; r < R; ++r) {
        const auto& bw = reinterpret_cast<const blocks::BlockQ6_K*>(w + r * wrb)[b];
        int32x4_t sumi = vdupq_n_s32(0);
        for (int n = 0; n < 2; ++n) {
          const int8_t* sc = bw.scales + 8 * n;
          const int8_t* y = bx[b].qs + 128 * n;
          for (int h = 0; h < 2; ++h) {  // 16-value halves l = 16h .. 16h + 15
            int8x16_t q[4];
            Q6KValues64(bw, n, h, q);
            for (int t = 0; t < 4; ++t) {  // values 32t + 16h .. +15: group 2t + h
              const int32x4_t p = Dot::Acc(vdupq_n_s32(0), q[t], vld1q_s8(y + 32 * t + 16 * h));
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
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_
