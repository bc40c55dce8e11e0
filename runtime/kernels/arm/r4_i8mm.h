// The i8mm GEMM of the 32-value block types over the R4 layouts (repack_r4.h, shared with their
// dotprod GEMV) x Q8_0P / Q8_1P activation pairs (kernel_api.h). smmla multiplies a 2x8 int8
// matrix by another's transpose into a 2x2 int32 tile: per block, the four weight rows' chunks
// are zipped once into rows {0, 1} and {2, 3} x 8 values (8 zips), then every pair of activation
// rows takes one 64-byte load and eight smmla for its 2x4 dots, and its scales one 16-byte load.
// Include it only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_H_

#include <arm_neon.h>

#include <cstdint>
#include <type_traits>

#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: see arm_common.h.
namespace {

// {v[2 h], v[2 h + 1], v[2 h], v[2 h + 1]}: rows 2 h, 2 h + 1 of a four-row vector in the lane
// order of an smmla tile (activation row i, weight row j at lane 2 i + j).
template <int h>
inline float32x4_t RowPair(float32x4_t v) {
  return vreinterpretq_f32_f64(vdupq_laneq_f64(vreinterpretq_f64_f32(v), h));
}

// W::LoadZipped(block, z01, z23, d, m), where a block type has it: the smmla operands straight
// from the block's bytes (for the nibble types: zip the 32 stored bytes of each chunk pair once,
// then split the nibbles, 4 zips where zipping the decoded levels takes 8).
template <typename W, typename = void>
struct HasLoadZipped : std::false_type {};
template <typename W>
struct HasLoadZipped<W, std::void_t<decltype(&W::LoadZipped)>> : std::true_type {};

// z01[h]: rows 0 and 1 x values 8 h .. 8 h + 7 of a block; z23[h]: rows 2 and 3.
template <typename W>
inline void LoadOperands(const uint8_t* blk, int8x16_t z01[4], int8x16_t z23[4], float32x4_t* d,
                         float32x4_t* m) {
  if constexpr (HasLoadZipped<W>::value) {
    W::LoadZipped(blk, z01, z23, d, m);
  } else {
    int8x16_t w[8];
    W::Load(blk, w, d, m);
    for (int h = 0; h < 4; ++h) {  // chunks 2 h, 2 h + 1 hold values 8 h .. 8 h + 7
      const int32x4_t a = vreinterpretq_s32_s8(w[2 * h]), c = vreinterpretq_s32_s8(w[2 * h + 1]);
      z01[h] = vreinterpretq_s8_s32(vzip1q_s32(a, c));
      z23[h] = vreinterpretq_s8_s32(vzip2q_s32(a, c));
    }
  }
}

// W: an R4 block type (r4_common.h) whose levels fit int8 and need no offset.
template <typename W>
struct R4I8mm {
  static_assert(W::kLevelOffset == 0 && W::kMaxAbsLevel <= 128, "smmla takes int8 levels");
  static constexpr int64_t kRecordBytes = W::kHasMin ? kQ8_1PRecordBytes : kQ8_0PRecordBytes;

  // out[2 p + t] = the four rows' dots with activation row t of pair p (p < P).
  template <int P>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                   float32x4_t out[2 * P]) {
    float32x4_t acc01[P], acc23[P];  // lanes {i0.r0, i0.r1, i1.r0, i1.r1} and rows 2, 3
    const uint8_t* xp[P];
    for (int p = 0; p < P; ++p) {
      acc01[p] = acc23[p] = vdupq_n_f32(0.0f);
      xp[p] = x + p * unit_bytes;
    }
    for (int64_t b = 0; b < k / 32; ++b) {
      int8x16_t z01[4], z23[4];
      float32x4_t d, m = vdupq_n_f32(0.0f);
      LoadOperands<W>(wg + b * W::kBlockBytes, z01, z23, &d, &m);
      const float32x4_t d01 = RowPair<0>(d), d23 = RowPair<1>(d);
      const float32x4_t m01 = RowPair<0>(m), m23 = RowPair<1>(m);
      for (int p = 0; p < P; ++p) {
        const int8x16x4_t xv = vld1q_s8_x4(reinterpret_cast<const int8_t*>(xp[p]));
        const float32x4_t dx = vld1q_f32(reinterpret_cast<const float*>(xp[p] + 64));
        int32x4_t s01 = vmmlaq_s32(vdupq_n_s32(0), xv.val[0], z01[0]);
        int32x4_t s23 = vmmlaq_s32(vdupq_n_s32(0), xv.val[0], z23[0]);
        for (int h = 1; h < 4; ++h) {
          s01 = vmmlaq_s32(s01, xv.val[h], z01[h]);
          s23 = vmmlaq_s32(s23, xv.val[h], z23[h]);
        }
        acc01[p] = vfmaq_f32(acc01[p], vcvtq_f32_s32(s01), vmulq_f32(d01, dx));
        acc23[p] = vfmaq_f32(acc23[p], vcvtq_f32_s32(s23), vmulq_f32(d23, dx));
        if (W::kHasMin) {
          const float32x4_t sx = vld1q_f32(reinterpret_cast<const float*>(xp[p] + 80));
          acc01[p] = vfmaq_f32(acc01[p], m01, sx);
          acc23[p] = vfmaq_f32(acc23[p], m23, sx);
        }
        xp[p] += kRecordBytes;
      }
    }
    for (int p = 0; p < P; ++p) {
      const float64x2_t a01 = vreinterpretq_f64_f32(OutScaled<W>(acc01[p]));
      const float64x2_t a23 = vreinterpretq_f64_f32(OutScaled<W>(acc23[p]));
      out[2 * p] = vreinterpretq_f32_f64(vzip1q_f64(a01, a23));  // row i0: r0 r1 r2 r3
      out[2 * p + 1] = vreinterpretq_f32_f64(vzip2q_f64(a01, a23));
    }
  }
};

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_H_
