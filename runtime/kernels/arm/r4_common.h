// The q4_0/q8_0 kernels over the R4 layouts (repack_r4.h: four weight rows interleaved per block)
// x Q8_0S activations: a lane-indexed sdot tile (dotprod: GEMV and GEMM) and an smmla tile (i8mm
// GEMM). Each tile decodes a block of four weight rows once for all its activation rows. Include
// only from files compiled with +dotprod (R4Dotprod) or +i8mm (R4I8mm).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_R4_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_R4_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// W provides kBlockBytes and Load(block, w[8], d): w[c] = values 4 c .. 4 c + 3 of the four rows
// (row r in bytes 4 r .. 4 r + 3) times a power of two, d = the four rows' f32 scales divided by
// it.
struct Q4_0R4Block {
  static constexpr int kBlockBytes = 72;
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d) {
    const int8x16x4_t v = vld1q_s8_x4(reinterpret_cast<const int8_t*>(blk + 8));
    const int8x16_t hi = vdupq_n_s8(static_cast<int8_t>(0xF0));
    for (int c = 0; c < 4; ++c) {
      w[c] = vshlq_n_s8(v.val[c], 4);     // 16 x (low nibble level - 8)
      w[c + 4] = vandq_s8(v.val[c], hi);  // 16 x (high nibble level - 8)
    }
    *d = vmulq_n_f32(
        vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(blk)))),
        0.0625f);
  }
};

// IQ4_NL on the R4 layout (indices as stored): each nibble indexes GGML's 16 levels.
struct Iq4NlR4Block {
  static constexpr int kBlockBytes = 72;
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d) {
    const uint8x16x4_t v = vld1q_u8_x4(blk + 8);
    const int8x16_t levels = vld1q_s8(blocks::kIq4NlValues);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    for (int c = 0; c < 4; ++c) {
      w[c] = vqtbl1q_s8(levels, vandq_u8(v.val[c], m4));
      w[c + 4] = vqtbl1q_s8(levels, vshrq_n_u8(v.val[c], 4));
    }
    *d = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(blk))));
  }
};

struct Q8_0R4Block {
  static constexpr int kBlockBytes = 136;
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d) {
    const int8x16x4_t a = vld1q_s8_x4(reinterpret_cast<const int8_t*>(blk + 8));
    const int8x16x4_t b = vld1q_s8_x4(reinterpret_cast<const int8_t*>(blk + 72));
    for (int c = 0; c < 4; ++c) {
      w[c] = a.val[c];
      w[c + 4] = b.val[c];
    }
    *d = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(blk))));
  }
};

// Exactness: |16 (level - 8)| <= 128 and |x| <= 127 (or |q|, |x| <= 128, 127): 32 products per
// lane stay far inside int32.

// R4 tile with lane-indexed sdot: out[i] = the four rows' dots with activation row i (i < M).
// Per block and activation row: one 32-byte load, eight sdot, one convert, two multiplies.
template <typename W>
struct R4Dotprod {
  static constexpr int kTileRows = 8;
  template <int M>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t xrb, int64_t k, float32x4_t out[M]) {
    const int64_t nb = k / 32, nbp = Q8_0SPaddedBlocks(k);
    // One pointer per activation row to its values and scales, advanced block by block (so that
    // the loads post-increment instead of computing addresses).
    const int8_t* xq[M];
    const float* xd[M];
    for (int i = 0; i < M; ++i) {
      xq[i] = Q8_0SQs(x + i * xrb);
      xd[i] = Q8_0SD(x + i * xrb, nbp);
    }
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; ++b) {
      int8x16_t w[8];
      float32x4_t d;
      W::Load(wg + b * W::kBlockBytes, w, &d);
      for (int i = 0; i < M; ++i) {
        const int8x16x2_t xv = vld1q_s8_x2(xq[i]);
        xq[i] += 32;
        const int8x16_t x0 = xv.val[0], x1 = xv.val[1];
        int32x4_t s = vdotq_laneq_s32(vdupq_n_s32(0), w[0], x0, 0);
        s = vdotq_laneq_s32(s, w[1], x0, 1);
        s = vdotq_laneq_s32(s, w[2], x0, 2);
        s = vdotq_laneq_s32(s, w[3], x0, 3);
        s = vdotq_laneq_s32(s, w[4], x1, 0);
        s = vdotq_laneq_s32(s, w[5], x1, 1);
        s = vdotq_laneq_s32(s, w[6], x1, 2);
        s = vdotq_laneq_s32(s, w[7], x1, 3);
        acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(s), vmulq_n_f32(d, *xd[i]++));
      }
    }
    for (int i = 0; i < M; ++i) out[i] = acc[i];
  }
};

// Stores the rows of group g that exist (j1 bounds the matrix's columns).
inline void StoreR4(float32x4_t v, float* y, int64_t j, int64_t j1) {
  if (j + 4 <= j1) {
    vst1q_f32(y, v);
  } else {
    float t[4];
    vst1q_f32(t, v);
    for (int64_t r = 0; j + r < j1; ++r) y[r] = t[r];
  }
}

// T: R4Dotprod<W>. j0 is a multiple of 4 (tile_n is).
template <typename T>
void R4Gemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; j += 4) {
    float32x4_t out[1];
    T::template Tile<1>(p.w + j * p.w_row_bytes, p.xq, 0, p.k, out);
    StoreR4(out[0], p.y + j, j, j1);
  }
}

template <typename T, int M>
inline void R4Rows(const MatmulParams& p, const uint8_t* wg, int64_t i, int64_t j, int64_t j1) {
  float32x4_t out[M];
  T::template Tile<M>(wg, p.xq + i * p.xq_row_bytes, p.xq_row_bytes, p.k, out);
  for (int t = 0; t < M; ++t) StoreR4(out[t], p.y + (i + t) * p.y_stride + j, j, j1);
}

// Activation rows in tiles of T::kTileRows, then the last ones in tiles of 4, 2 and 1 (T1: the
// tile for one row).
template <typename T, typename T1>
void R4Gemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; j += 4) {
    const uint8_t* wg = p.w + j * p.w_row_bytes;
    int64_t i = 0;
    for (; i + T::kTileRows <= p.m; i += T::kTileRows) R4Rows<T, T::kTileRows>(p, wg, i, j, j1);
    if (T::kTileRows > 4 && i + 4 <= p.m) {
      R4Rows<T, 4>(p, wg, i, j, j1);
      i += 4;
    }
    if (i + 2 <= p.m) {
      R4Rows<T, 2>(p, wg, i, j, j1);
      i += 2;
    }
    if (i < p.m) R4Rows<T1, 1>(p, wg, i, j, j1);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_R4_COMMON_H_
