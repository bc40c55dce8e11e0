// The driver of the i8mm (smmla) GEMMs of the K-quant R4 layouts (repack_r4.h: Q4_KR4, Q6_KR4;
// q4_k_i8mm.cc, q6_k_i8mm.cc) over Q8_K activation rows. smmla multiplies two rows of 8 int8 by two
// others into a 2x2 int32 tile, so a register must hold 8 values of two activation rows: per tile
// of up to four pairs of rows the values are zipped so once (up to kKR4I8mmChunk super-blocks at a
// time, on the stack), then multiplied by every group of four weight rows of the task. Include it
// only from files compiled with +i8mm.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_K_R4_I8MM_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_K_R4_I8MM_H_

#include <arm_neon.h>

#include <algorithm>
#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/r4_common.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: see arm_common.h.
namespace {

// Super-blocks whose activations a tile zips at a time (32 KiB of stack).
constexpr int64_t kKR4I8mmChunk = 14;
// The zipped activations of a tile's pairs (up to 4) for one super-block, kKR4I8mmRecordBytes:
// sub-block s (values 32 s ..) of pair p at 256 s + 64 p, its values 8 h .. 8 h + 7 of the first
// row, then of the second, at + 16 h (the smmla operand of step h); then per pair p at 2048 + 48 p
// the rows' scales {d0, d0, d1, d1} (float) and the low and the high bytes of their sums of each
// 32 values (int16 sx[t][s] = bsums[2 s] + bsums[2 s + 1]: 8 bytes of row 0, 8 of row 1 each: the
// smmla operands of sum_s mn[s] x sx[s] = 256 sum_s mn[s] x high + sum_s mn[s] x low).
constexpr int64_t kKR4I8mmRecordBytes = 2048 + 4 * 48;

// Activation rows a and b's super-block (Q8_K blocks) zipped as above for pair p of rec.
inline void KR4I8mmZipPair(const blocks::BlockQ8_K& a, const blocks::BlockQ8_K& b, int p,
                           int8_t* rec) {
  for (int c = 0; c < 4; ++c) {  // values 64 c .. 64 c + 63: sub-blocks 2 c, 2 c + 1
    const int8x16x4_t x0 = vld1q_s8_x4(a.qs + 64 * c), x1 = vld1q_s8_x4(b.qs + 64 * c);
    for (int half = 0; half < 2; ++half) {
      int8x16x4_t z;
      for (int g = 0; g < 2; ++g) {
        const int64x2_t u = vreinterpretq_s64_s8(x0.val[2 * half + g]);
        const int64x2_t v = vreinterpretq_s64_s8(x1.val[2 * half + g]);
        z.val[2 * g] = vreinterpretq_s8_s64(vzip1q_s64(u, v));
        z.val[2 * g + 1] = vreinterpretq_s8_s64(vzip2q_s64(u, v));
      }
      vst1q_s8_x4(rec + 256 * (2 * c + half) + 64 * p, z);
    }
  }
  int8_t* extra = rec + 2048 + 48 * p;
  const float dd[4] = {a.d, a.d, b.d, b.d};
  vst1q_f32(reinterpret_cast<float*>(extra), vld1q_f32(dd));
  const int8x16_t sa = vreinterpretq_s8_s16(vpaddq_s16(vld1q_s16(a.bsums), vld1q_s16(a.bsums + 8)));
  const int8x16_t sb = vreinterpretq_s8_s16(vpaddq_s16(vld1q_s16(b.bsums), vld1q_s16(b.bsums + 8)));
  vst1q_s8(extra + 16, vuzp1q_s8(sa, sb));  // low bytes (unsigned)
  vst1q_s8(extra + 32, vuzp2q_s8(sa, sb));  // high bytes (signed)
}

// Activation rows 2 u .. 2 u + 2 P - 1 (the last may not exist: it repeats the one before, and its
// outputs are not stored) times the weight rows [j0, j1) (at most 16: four groups of four).
// K::SuperBlock<P>(blk, rec, acc): one super-block of a group of four weight rows (blk) against the
// P pairs (rec: their zipped super-block), accumulated into acc[2 p + q] (pair p x weight rows
// 2 q, 2 q + 1 in smmla's lane order: row 2 p + i, weight row 2 q + j at lane 2 i + j).
template <typename K, int P>
void KR4I8mmRows(const MatmulParams& p, int64_t u, int64_t j0, int64_t j1) {
  const int64_t nb = p.k / blocks::kQK_K;
  const blocks::BlockQ8_K* rows[2 * P];
  for (int t = 0; t < 2 * P; ++t) {
    const int64_t i = std::min(2 * u + t, p.m - 1);
    rows[t] = reinterpret_cast<const blocks::BlockQ8_K*>(p.xq + i * p.xq_row_bytes);
  }
  float32x4_t acc[4][2 * P];
  const int groups = static_cast<int>((j1 - j0 + 3) / 4);
  for (int g = 0; g < groups; ++g) {
    for (int t = 0; t < 2 * P; ++t) acc[g][t] = vdupq_n_f32(0.0f);
  }
  alignas(16) int8_t xz[kKR4I8mmChunk * kKR4I8mmRecordBytes];
  for (int64_t b0 = 0; b0 < nb; b0 += kKR4I8mmChunk) {
    const int64_t cb = std::min(kKR4I8mmChunk, nb - b0);
    for (int64_t bl = 0; bl < cb; ++bl) {
      for (int q = 0; q < P; ++q) {
        KR4I8mmZipPair(rows[2 * q][b0 + bl], rows[2 * q + 1][b0 + bl], q,
                       xz + bl * kKR4I8mmRecordBytes);
      }
    }
    for (int g = 0; g < groups; ++g) {
      const uint8_t* wg = p.w + (j0 + 4 * g) * p.w_row_bytes + b0 * K::kBlockBytes;
      for (int64_t bl = 0; bl < cb; ++bl) {
        K::template SuperBlock<P>(wg + bl * K::kBlockBytes, xz + bl * kKR4I8mmRecordBytes, acc[g]);
      }
    }
  }
  for (int g = 0; g < groups; ++g) {
    const int64_t j = j0 + 4 * g;
    for (int q = 0; q < P; ++q) {  // smmla's lane order back to rows
      const float64x2_t a01 = vreinterpretq_f64_f32(acc[g][2 * q]);
      const float64x2_t a23 = vreinterpretq_f64_f32(acc[g][2 * q + 1]);
      const float32x4_t r[2] = {vreinterpretq_f32_f64(vzip1q_f64(a01, a23)),
                                vreinterpretq_f32_f64(vzip2q_f64(a01, a23))};
      for (int t = 0; t < 2 && 2 * (u + q) + t < p.m; ++t) {
        StoreR4(r[t], p.y + (2 * (u + q) + t) * p.y_stride + j, j, j1);
      }
    }
  }
}

// The GEMM of K: pairs of activation rows in tiles of 4 pairs, then 2 and 1 (an odd last row with
// a row of zeros), per 16 weight rows (j0 is a multiple of 4).
template <typename K>
void KR4I8mmGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  const int64_t units = (p.m + 1) / 2;
  for (int64_t j = j0; j < j1; j += 16) {
    const int64_t je = std::min(j1, j + 16);
    int64_t u = 0;
    for (; u + 4 <= units; u += 4) KR4I8mmRows<K, 4>(p, u, j, je);
    if (u + 2 <= units) {
      KR4I8mmRows<K, 2>(p, u, j, je);
      u += 2;
    }
    if (u < units) KR4I8mmRows<K, 1>(p, u, j, je);
  }
}

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_K_R4_I8MM_H_
