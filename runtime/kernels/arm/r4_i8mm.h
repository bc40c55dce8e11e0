// The i8mm GEMM of the 32-value block types over the R4 layouts (repack_r4.h, shared with their
// dotprod GEMV) x Q8_0P / Q8_1P activation pairs (kernel_api.h). smmla multiplies a 2x8 int8
// matrix by another's transpose into a 2x2 int32 tile: per block, the four weight rows' chunks
// are zipped once into rows {0, 1} and {2, 3} x 8 values (8 zips), then every pair of activation
// rows takes one 64-byte load and eight smmla for its 2x4 dots, and its scales one 16-byte load.
// Include it only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_H_

#include <arm_neon.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/arm/r4_i8mm_inorder.h"
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

// Four smmla of step h: activation pairs a and b (registers xa, xb) with the zipped weight rows
// {0, 1} (z) and {2, 3} (y) into the chains s0 (a x rows 0, 1), s1 (a x rows 2, 3), s2, s3 (b).
#define EDGEQ_SMMLA4(xa, xb, z, y)      \
  "smmla %[s0].4s, %[" xa "].16b, %[" z \
  "].16b\n\t"                           \
  "smmla %[s1].4s, %[" xa "].16b, %[" y \
  "].16b\n\t"                           \
  "smmla %[s2].4s, %[" xb "].16b, %[" z \
  "].16b\n\t"                           \
  "smmla %[s3].4s, %[" xb "].16b, %[" y "].16b\n\t"

// The 16 smmla of two activation pairs with one block (z01, z23: LoadOperands) in one asm
// statement, their four chains interleaved so that a chain's next smmla is four smmla later:
// with intrinsics (and -fno-schedule-insns) GCC emits a pair's two chains back to back and an
// in-order core (Cortex-A510) waits on each smmla. s: as the int32 tiles of R4I8mm::Tile (s0, s1
// of pair a; s2, s3 of pair b). Integer sums: the same values in any order.
inline void SmmlaGroup(const int8x16_t z01[4], const int8x16_t z23[4], const int8x16x4_t& a,
                       const int8x16x4_t& b, int32x4_t s[4]) {
  asm("movi %[s0].4s, #0\n\t"
      "movi %[s1].4s, #0\n\t"
      "movi %[s2].4s, #0\n\t"
      "movi %[s3].4s, #0\n\t" EDGEQ_SMMLA4("a0", "b0", "z0", "y0")
          EDGEQ_SMMLA4("a1", "b1", "z1", "y1") EDGEQ_SMMLA4("a2", "b2", "z2", "y2")
              EDGEQ_SMMLA4("a3", "b3", "z3", "y3")
      : [s0] "=&w"(s[0]), [s1] "=&w"(s[1]), [s2] "=&w"(s[2]), [s3] "=&w"(s[3])
      : [z0] "w"(z01[0]), [z1] "w"(z01[1]), [z2] "w"(z01[2]), [z3] "w"(z01[3]), [y0] "w"(z23[0]),
        [y1] "w"(z23[1]), [y2] "w"(z23[2]), [y3] "w"(z23[3]), [a0] "w"(a.val[0]),
        [a1] "w"(a.val[1]), [a2] "w"(a.val[2]), [a3] "w"(a.val[3]), [b0] "w"(b.val[0]),
        [b1] "w"(b.val[1]), [b2] "w"(b.val[2]), [b3] "w"(b.val[3]));
}
#undef EDGEQ_SMMLA4

// W: an R4 block type (r4_common.h) whose levels fit int8 and need no offset. kCopy: a second
// instance of the same code, for R4I8mmInOrder's 2- and 1-pair tiles, so that the out-of-order
// GEMM's R4PairGemm<R4I8mm<W>> stays the only caller of the first one's tiles.
template <typename W, int kCopy = 0>
struct R4I8mm {
  static_assert(W::kLevelOffset == 0 && W::kMaxAbsLevel <= 128, "smmla takes int8 levels");
  static constexpr int64_t kRecordBytes = W::kHasMin ? kQ8_1PRecordBytes : kQ8_0PRecordBytes;

  // out[2 p + t] = the four rows' dots with activation row t of pair p (p < P).
  template <int P>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                   float32x4_t out[2 * P]) {
    if constexpr (P == 1 || W::kHasMin) {
      TileByPair<P>(wg, x, unit_bytes, k, out);  // (with a min, two pairs' registers spill)
    } else {
      TileByGroup<P>(wg, x, unit_bytes, k, out);
    }
  }

  // Pairs in groups of two (SmmlaGroup), each group scaled before the next one's smmla.
  template <int P>
  static void TileByGroup(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                          float32x4_t out[2 * P]) {
    float32x4_t acc01[P], acc23[P];
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
      for (int g = 0; g < P; g += 2) {
        int32x4_t s[4];
        SmmlaGroup(z01, z23, vld1q_s8_x4(reinterpret_cast<const int8_t*>(xp[g])),
                   vld1q_s8_x4(reinterpret_cast<const int8_t*>(xp[g + 1])), s);
        // The group's scaling stage by stage (loads, converts, products, sums: each result used
        // four instructions after it is made; each row's operations unchanged).
        const float32x4_t dxa = vld1q_f32(reinterpret_cast<const float*>(xp[g] + 64));
        const float32x4_t dxb = vld1q_f32(reinterpret_cast<const float*>(xp[g + 1] + 64));
        float32x4_t f[4], e[4];
        for (int t = 0; t < 4; ++t) f[t] = vcvtq_f32_s32(s[t]);
        e[0] = vmulq_f32(d01, dxa);
        e[1] = vmulq_f32(d23, dxa);
        e[2] = vmulq_f32(d01, dxb);
        e[3] = vmulq_f32(d23, dxb);
        acc01[g] = vfmaq_f32(acc01[g], f[0], e[0]);
        acc23[g] = vfmaq_f32(acc23[g], f[1], e[1]);
        acc01[g + 1] = vfmaq_f32(acc01[g + 1], f[2], e[2]);
        acc23[g + 1] = vfmaq_f32(acc23[g + 1], f[3], e[3]);
        xp[g] += kRecordBytes;
        xp[g + 1] += kRecordBytes;
      }
    }
    Finish<P>(acc01, acc23, out);
  }

  template <int P>
  static void Finish(const float32x4_t acc01[P], const float32x4_t acc23[P],
                     float32x4_t out[2 * P]) {
    for (int p = 0; p < P; ++p) {
      const float64x2_t a01 = vreinterpretq_f64_f32(OutScaled<W>(acc01[p]));
      const float64x2_t a23 = vreinterpretq_f64_f32(OutScaled<W>(acc23[p]));
      out[2 * p] = vreinterpretq_f32_f64(vzip1q_f64(a01, a23));  // row i0: r0 r1 r2 r3
      out[2 * p + 1] = vreinterpretq_f32_f64(vzip2q_f64(a01, a23));
    }
  }

  template <int P>
  static void TileByPair(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
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
    Finish<P>(acc01, acc23, out);
  }
};

// The wide tile of W (no min): 4 weight rows x 8 activation pairs (16 rows; R4I8mmGemm). Each
// block's weight operands (8 registers) are made once for the 16 rows, half the decoding per dot
// of R4I8mm's 4-pair tile; the 16 float accumulators, the operands and the scales of rows {0, 1}
// fill 25 registers, so a pair's 8 smmla run in two chains (one 64-byte load per pair), its scale
// stage right after. Per output the same int32 sums and float operations as R4I8mm::Tile (the
// product d x dx, the sum converted, one fused multiply-add per block): bit-identical.
template <typename W>
struct R4I8mmWide {
  static_assert(!W::kHasMin && W::kLevelOffset == 0 && W::kMaxAbsLevel <= 128, "smmla, no min");
  static constexpr int kPairs = 8;
  // The float 1.5 x 2^23 as bits: the smmla chains start from it instead of 0, so that a block's
  // int32 sum s (|s| <= 32 x 128 x 128 = 2^19 < 2^22) comes out as the float 1.5 x 2^23 + s
  // (exponent 23, one unit per ulp), and one fsub of 1.5 x 2^23 gives s exactly: the value scvtf
  // gives, for one vector operation where scvtf takes two on Neoverse N2 / V2's models.
  static constexpr int32_t kFloatBias = 0x4B400000;

  // Pairs 4 h .. 4 h + 3 (h = 0, 1): accumulators a01[4 h ..], a23[4 h ..] in arrays of four
  // (GCC keeps arrays of 8 vectors in memory, storing each accumulator every block).
  struct Half {
    float32x4_t acc01[4], acc23[4];
    const uint8_t* xp[4];
  };

  static inline void Pair(const int8x16_t z01[4], const int8x16_t z23[4], float32x4_t d01,
                          float32x4_t d23, const uint8_t*& xp, float32x4_t& acc01,
                          float32x4_t& acc23) {
    const int8x16x4_t xv = vld1q_s8_x4(reinterpret_cast<const int8_t*>(xp));
    const float32x4_t dx = vld1q_f32(reinterpret_cast<const float*>(xp + 64));
    const int32x4_t bias = vdupq_n_s32(kFloatBias);
    int32x4_t s01 = vmmlaq_s32(bias, xv.val[0], z01[0]);
    int32x4_t s23 = vmmlaq_s32(bias, xv.val[0], z23[0]);
    for (int h = 1; h < 4; ++h) {
      s01 = vmmlaq_s32(s01, xv.val[h], z01[h]);
      s23 = vmmlaq_s32(s23, xv.val[h], z23[h]);
    }
    const float32x4_t fb = vreinterpretq_f32_s32(bias);
    const float32x4_t f01 = vsubq_f32(vreinterpretq_f32_s32(s01), fb);
    const float32x4_t f23 = vsubq_f32(vreinterpretq_f32_s32(s23), fb);
    acc01 = vfmaq_f32(acc01, f01, vmulq_f32(d01, dx));
    acc23 = vfmaq_f32(acc23, f23, vmulq_f32(d23, dx));
    xp += kQ8_0PRecordBytes;
  }

  static void Tile(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                   float32x4_t out[2 * kPairs]) {
    Half lo, hi;
    for (int p = 0; p < 4; ++p) {
      lo.acc01[p] = lo.acc23[p] = hi.acc01[p] = hi.acc23[p] = vdupq_n_f32(0.0f);
      lo.xp[p] = x + p * unit_bytes;
      hi.xp[p] = x + (p + 4) * unit_bytes;
    }
    for (int64_t b = 0; b < k / 32; ++b) {
      int8x16_t z01[4], z23[4];
      float32x4_t d, m;
      LoadOperands<W>(wg + b * W::kBlockBytes, z01, z23, &d, &m);
      const float32x4_t d01 = RowPair<0>(d), d23 = RowPair<1>(d);
      for (int p = 0; p < 4; ++p) Pair(z01, z23, d01, d23, lo.xp[p], lo.acc01[p], lo.acc23[p]);
      for (int p = 0; p < 4; ++p) Pair(z01, z23, d01, d23, hi.xp[p], hi.acc01[p], hi.acc23[p]);
    }
    R4I8mm<W>::template Finish<4>(lo.acc01, lo.acc23, out);
    R4I8mm<W>::template Finish<4>(hi.acc01, hi.acc23, out + 8);
  }
};

// R4I8mm<W> with the 4-pair tile scheduled for in-order cores (R4I8mmInOrderLoop,
// r4_i8mm_inorder.h; W: Q4_0R4Block or Q8_0R4Block): the same sums and float operations, then
// R4I8mm's Finish, so bit-identical to R4I8mm<W>::Tile<4>. The 2- and 1-pair tiles are R4I8mm's
// (its second instance).
template <typename W>
struct R4I8mmInOrder {
  static constexpr bool kQ8 = std::is_same<W, Q8_0R4Block>::value;
  static_assert(kQ8 || std::is_same<W, Q4_0R4Block>::value, "the asm loop decodes q4_0 or q8_0");

  template <int P>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                   float32x4_t out[2 * P]) {
    if constexpr (P != 4) {
      R4I8mm<W, 1>::template Tile<P>(wg, x, unit_bytes, k, out);
    } else {
      float32x4_t acc[8];
      for (int t = 0; t < 8; ++t) acc[t] = vdupq_n_f32(0.0f);
      R4I8mmInOrderLoop<kQ8>(wg, x, unit_bytes, k / 32, acc);
      const float32x4_t acc01[4] = {acc[0], acc[2], acc[4], acc[6]};
      const float32x4_t acc23[4] = {acc[1], acc[3], acc[5], acc[7]};
      R4I8mm<W>::template Finish<4>(acc01, acc23, out);
    }
  }
};

// The i8mm GEMM of q4_0 / q8_0 (W without min), j0 a multiple of 4. In-order cores run R4PairGemm
// of R4I8mmInOrder (the 4-pair tile as one asm loop); out-of-order cores run the wide tile over
// the activation pairs in tiles of 8, then R4PairGemm over the remaining rows (tiles of 4, 2 and 1
// pairs). (R4PairGemm<R4I8mm<W>> is the one caller of its R4PairRows, so that GCC inlines it as
// before: called from here as well, the 4-pair tile became a function of its own and its block
// loop 101 instructions instead of 97.)
template <typename W>
void R4I8mmGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  const int64_t wide_units = (p.m + 1) / 2 / 8 * 8;
  if (ActiveCoreSchedule() == CoreSchedule::kInOrder) {
    R4PairGemm<R4I8mmInOrder<W>>(p, j0, j1);
    return;
  }
  if (wide_units == 0) {
    R4PairGemm<R4I8mm<W>>(p, j0, j1);
    return;
  }
  for (int64_t j = j0; j < j1; j += 4) {
    const uint8_t* wg = p.w + j * p.w_row_bytes;
    for (int64_t u = 0; u < wide_units; u += 8) {
      float32x4_t out[16];
      R4I8mmWide<W>::Tile(wg, p.xq + u * p.xq_row_bytes, p.xq_row_bytes, p.k, out);
      float* y = p.y + 2 * u * p.y_stride + j;
      const int rows = static_cast<int>(std::min<int64_t>(16, p.m - 2 * u));  // (odd m: 15)
      for (int t = 0; t < rows; ++t) StoreR4(out[t], y + t * p.y_stride, j, j1);
    }
  }
  if (2 * wide_units < p.m) {
    MatmulParams rest = p;
    rest.m = p.m - 2 * wide_units;
    rest.xq = p.xq + wide_units * p.xq_row_bytes;
    rest.y = p.y + 2 * wide_units * p.y_stride;
    R4PairGemm<R4I8mm<W>>(rest, j0, j1);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_R4_I8MM_H_
