// The 32-value block kernels over the R4 layouts (repack_r4.h: four weight rows interleaved per
// block): R4Tile x Q8_0S (Q8_1S for the types with a min) activation rows, which decodes a block of
// four weight rows once for all its activation rows, with the four rows' dots by lane-indexed sdot
// (SdotLanes, dotprod GEMVs) or by widening multiplies (NeonLanes, ARMv8-A baseline: GEMV and
// GEMM); R4SdotPairs x Q8_0P / Q8_1P pairs of activation rows (dotprod GEMMs) and its driver
// R4PairGemm, shared with the i8mm tile of r4_i8mm.h. SdotLanes and R4SdotPairs are instantiated
// only in files compiled with +dotprod.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_R4_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_R4_COMMON_H_

#include <arm_neon.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/repack_r4.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// W provides kBlockBytes, kHasMin, kLevelOffset, kMaxAbsLevel, kOutScale and Load(block, w[8], d,
// m): w[c] = values 4 c .. 4 c + 3 of the four rows (row r in bytes 4 r .. 4 r + 3) times a power
// of two 1 / kOutScale, minus kLevelOffset; d = the four rows' f32 scales; m = their f32 mins
// (kHasMin only: y = d level + m). |w| <= kMaxAbsLevel. The tiles multiply their sums by kOutScale
// once at the end (exact: a power of two), not every block's scales.
// The constants every R4 block type states (see the comment above).
template <int kBytes, bool kMin, int kOffset, int kMaxAbs>
struct R4BlockTraits {
  static constexpr int kBlockBytes = kBytes;
  static constexpr bool kHasMin = kMin;
  static constexpr int kLevelOffset = kOffset;
  static constexpr int kMaxAbsLevel = kMaxAbs;
  static constexpr float kOutScale = 1.0f;
  // R4SdotPairs takes two pairs per asm group (false: one pair at a time, where the grouped
  // loop executes more instructions).
  static constexpr bool kSdotGroups = true;
};

inline float32x4_t LoadHalf4(const uint8_t* p) {
  return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(reinterpret_cast<const uint16_t*>(p))));
}

struct Q4_0R4Block : R4BlockTraits<72, false, 0, 128> {
  static constexpr float kOutScale = 0.0625f;
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t*) {
    const int8x16x4_t v = vld1q_s8_x4(reinterpret_cast<const int8_t*>(blk + 8));
    const int8x16_t hi = vdupq_n_s8(static_cast<int8_t>(0xF0));
    for (int c = 0; c < 4; ++c) {
      w[c] = vshlq_n_s8(v.val[c], 4);     // 16 x (low nibble level - 8)
      w[c + 4] = vandq_s8(v.val[c], hi);  // 16 x (high nibble level - 8)
    }
    *d = LoadHalf4(blk);
  }
  // The i8mm operands (r4_i8mm.h): chunks 2 h, 2 h + 1 zipped as stored, then split: the low
  // nibbles are values 8 h .., the high ones 16 + 8 h ...
  static inline void LoadZipped(const uint8_t* blk, int8x16_t z01[4], int8x16_t z23[4],
                                float32x4_t* d, float32x4_t*) {
    const int32x4x4_t v = vld1q_s32_x4(reinterpret_cast<const int32_t*>(blk + 8));
    const int8x16_t hi = vdupq_n_s8(static_cast<int8_t>(0xF0));
    for (int h = 0; h < 2; ++h) {
      const int8x16_t a = vreinterpretq_s8_s32(vzip1q_s32(v.val[2 * h], v.val[2 * h + 1]));
      const int8x16_t c = vreinterpretq_s8_s32(vzip2q_s32(v.val[2 * h], v.val[2 * h + 1]));
      z01[h] = vshlq_n_s8(a, 4);
      z01[h + 2] = vandq_s8(a, hi);
      z23[h] = vshlq_n_s8(c, 4);
      z23[h + 2] = vandq_s8(c, hi);
    }
    *d = LoadHalf4(blk);
  }
};

// acc x W::kOutScale (nothing to do for 1).
template <typename W>
inline float32x4_t OutScaled(float32x4_t acc) {
  if constexpr (W::kOutScale == 1.0f) {
    return acc;
  } else {
    return vmulq_n_f32(acc, W::kOutScale);
  }
}

// IQ4_NL on the R4 layout (indices as stored): each nibble indexes GGML's 16 levels.
struct Iq4NlR4Block : R4BlockTraits<72, false, 0, 127> {
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t*) {
    const uint8x16x4_t v = vld1q_u8_x4(blk + 8);
    const int8x16_t levels = vld1q_s8(blocks::kIq4NlValues);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    for (int c = 0; c < 4; ++c) {
      w[c] = vqtbl1q_s8(levels, vandq_u8(v.val[c], m4));
      w[c + 4] = vqtbl1q_s8(levels, vshrq_n_u8(v.val[c], 4));
    }
    *d = LoadHalf4(blk);
  }
  // As Q4_0R4Block::LoadZipped, each nibble then looked up.
  static inline void LoadZipped(const uint8_t* blk, int8x16_t z01[4], int8x16_t z23[4],
                                float32x4_t* d, float32x4_t*) {
    const uint32x4x4_t v = vld1q_u32_x4(reinterpret_cast<const uint32_t*>(blk + 8));
    const int8x16_t levels = vld1q_s8(blocks::kIq4NlValues);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    for (int h = 0; h < 2; ++h) {
      const uint8x16_t a = vreinterpretq_u8_u32(vzip1q_u32(v.val[2 * h], v.val[2 * h + 1]));
      const uint8x16_t c = vreinterpretq_u8_u32(vzip2q_u32(v.val[2 * h], v.val[2 * h + 1]));
      z01[h] = vqtbl1q_s8(levels, vandq_u8(a, m4));
      z01[h + 2] = vqtbl1q_s8(levels, vshrq_n_u8(a, 4));
      z23[h] = vqtbl1q_s8(levels, vandq_u8(c, m4));
      z23[h + 2] = vqtbl1q_s8(levels, vshrq_n_u8(c, 4));
    }
    *d = LoadHalf4(blk);
  }
};

struct Q8_0R4Block : R4BlockTraits<136, false, 0, 128> {
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t*) {
    const int8x16x4_t a = vld1q_s8_x4(reinterpret_cast<const int8_t*>(blk + 8));
    const int8x16x4_t b = vld1q_s8_x4(reinterpret_cast<const int8_t*>(blk + 72));
    for (int c = 0; c < 4; ++c) {
      w[c] = a.val[c];
      w[c + 4] = b.val[c];
    }
    *d = LoadHalf4(blk);
  }
  // Load's result for the block at *p, *p advanced past it: the scales and both 64-byte halves by
  // post-incremented loads (GCC computes the halves' addresses and advances the pointer by
  // separate instructions otherwise). For R4DotprodGroups.
  static inline void LoadNext(const uint8_t** p, int8x16_t w[8], float32x4_t* d) {
    uint16x4_t h;
    int8x16x4_t a, b;
    asm("ldr %d[h], [%[p]], #8\n\t"
        "ld1 {%S[a].16b - %V[a].16b}, [%[p]], #64\n\t"
        "ld1 {%S[b].16b - %V[b].16b}, [%[p]], #64\n\t"
        : [h] "=w"(h), [a] "=w"(a), [b] "=w"(b), [p] "+r"(*p)
        : "m"(*reinterpret_cast<const uint8_t(*)[kBlockBytes]>(*p)));
    for (int c = 0; c < 4; ++c) {
      w[c] = a.val[c];
      w[c + 4] = b.val[c];
    }
    *d = vcvt_f32_f16(vreinterpret_f16_u16(h));
  }
};

// Five-bit levels of the Q5_0R4/Q5_1R4 blocks: the signed level - 16 of every value from its
// nibble and its inverted high bit h (bit c of H for chunk c): sli(nibble, tst(H, bit), 4) is
// nibble - 16 when the 5th bit is 0, nibble when it is 1.
inline void FiveBitLevels(uint8x16_t h, const uint8x16x4_t& v, int8x16_t w[8]) {
  for (int c = 0; c < 4; ++c) {
    const uint8x16_t lo = vtstq_u8(h, vdupq_n_u8(static_cast<uint8_t>(1 << c)));
    const uint8x16_t hi = vtstq_u8(h, vdupq_n_u8(static_cast<uint8_t>(16 << c)));
    w[c] = vreinterpretq_s8_u8(vsliq_n_u8(v.val[c], lo, 4));
    w[c + 4] = vreinterpretq_s8_u8(vsliq_n_u8(vshrq_n_u8(v.val[c], 4), hi, 4));
  }
}

struct Q5_0R4Block : R4BlockTraits<88, false, 0, 16> {
  static constexpr bool kSdotGroups = false;  // grouped: 144 instructions per block loop, not 140
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t*) {
    FiveBitLevels(vld1q_u8(blk + 8), vld1q_u8_x4(blk + 24), w);
    *d = LoadHalf4(blk);
  }
};

struct Q4_1R4Block : R4BlockTraits<80, true, 0, 15> {
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t* m) {
    const uint8x16x4_t v = vld1q_u8_x4(blk + 16);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    for (int c = 0; c < 4; ++c) {
      w[c] = vreinterpretq_s8_u8(vandq_u8(v.val[c], m4));
      w[c + 4] = vreinterpretq_s8_u8(vshrq_n_u8(v.val[c], 4));
    }
    *d = LoadHalf4(blk);
    *m = LoadHalf4(blk + 8);
  }
};

// Q5_1's levels 0..31 decoded as level - 16 (as Q5_0's): the tile adds 16 x the activation
// block's sum of qs back.
struct Q5_1R4Block : R4BlockTraits<96, true, 16, 16> {
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t* m) {
    FiveBitLevels(vld1q_u8(blk + 16), vld1q_u8_x4(blk + 32), w);
    *d = LoadHalf4(blk);
    *m = LoadHalf4(blk + 8);
  }
};

// The same blocks decoded to the levels 0..31 themselves (one add per 16 values, once per block
// rather than a correction per activation row): for sdot, which takes |w| up to 128.
struct Q5_1R4UnsignedBlock : R4BlockTraits<96, true, 0, 31> {
  static inline void Load(const uint8_t* blk, int8x16_t w[8], float32x4_t* d, float32x4_t* m) {
    Q5_1R4Block::Load(blk, w, d, m);
    const int8x16_t sixteen = vdupq_n_s8(16);
    for (int c = 0; c < 8; ++c) w[c] = vaddq_s8(w[c], sixteen);
  }
};

// The four rows' dots of one block: s[r] = sum over c, t of w[c][4 r + t] x[4 c + t] (x0: values
// 0..15, x1: 16..31). Exact with sdot for |w| <= 128, |x| <= 127.
struct SdotLanes {
  static constexpr int kMaxAbsLevel = 128;
  template <int kUnused = 0>
  static inline int32x4_t Dot(const int8x16_t w[8], int8x16_t x0, int8x16_t x1) {
    return DotFrom(vdupq_n_s32(0), w, x0, x1);
  }
  // start + the dots.
  static inline int32x4_t DotFrom(int32x4_t start, const int8x16_t w[8], int8x16_t x0,
                                  int8x16_t x1) {
    int32x4_t s = vdotq_laneq_s32(start, w[0], x0, 0);
    s = vdotq_laneq_s32(s, w[1], x0, 1);
    s = vdotq_laneq_s32(s, w[2], x0, 2);
    s = vdotq_laneq_s32(s, w[3], x0, 3);
    s = vdotq_laneq_s32(s, w[4], x1, 0);
    s = vdotq_laneq_s32(s, w[5], x1, 1);
    s = vdotq_laneq_s32(s, w[6], x1, 2);
    return vdotq_laneq_s32(s, w[7], x1, 3);
  }
};

// The same with ARMv8-A widening multiplies: each chunk's four x values broadcast to the four
// rows, products accumulated in int16 (rows 0-1 and 2-3), then two pairwise adds. Each int16 lane
// sums 8 products and the first pairwise add 16: exact for |w| <= 16, |x| <= 127 (16 x 16 x 127 =
// 32512).
struct NeonLanes {
  static constexpr int kMaxAbsLevel = 16;
  template <int kUnused = 0>
  static inline int32x4_t Dot(const int8x16_t w[8], int8x16_t x0, int8x16_t x1) {
    int16x8_t a = vdupq_n_s16(0), b = vdupq_n_s16(0);
    for (int c = 0; c < 8; ++c) {
      const int32x4_t xs = vreinterpretq_s32_s8(c < 4 ? x0 : x1);
      int8x16_t xb;
      switch (c & 3) {
        case 0:
          xb = vreinterpretq_s8_s32(vdupq_laneq_s32(xs, 0));
          break;
        case 1:
          xb = vreinterpretq_s8_s32(vdupq_laneq_s32(xs, 1));
          break;
        case 2:
          xb = vreinterpretq_s8_s32(vdupq_laneq_s32(xs, 2));
          break;
        default:
          xb = vreinterpretq_s8_s32(vdupq_laneq_s32(xs, 3));
          break;
      }
      a = vmlal_s8(a, vget_low_s8(w[c]), vget_low_s8(xb));
      b = vmlal_high_s8(b, w[c], xb);
    }
    return vpaddlq_s16(vpaddq_s16(a, b));
  }
};

// The sums of a block's dots start from kSumBias (the bits of the f32 1.5 x 2^23) instead of 0:
// for |s| < 2^22 the int32 kSumBias + s, read as an f32, is exactly 1.5 x 2^23 + s (the same
// exponent, s added to the mantissa), so one f32 subtraction of 1.5 x 2^23 gives s exactly, the
// same f32 as scvtf. The bias is loaded (one ld1 of the four sums: a load pipe) where the sums were
// zeroed by four movi, and the subtraction takes one vector-pipe cycle where scvtf takes two on one
// pipe (Neoverse N1/N2, V2 models). The pair tiles' sums stay far inside: |s| <= 32 x 128 x 127 <
// 2^19.
constexpr int32_t kSumBias = 0x4B400000;
constexpr float kSumBiasF = 12582912.0f;  // 1.5 x 2^23
alignas(16) constexpr int32_t kSumBias16[16] = {
    kSumBias, kSumBias, kSumBias, kSumBias, kSumBias, kSumBias, kSumBias, kSumBias,
    kSumBias, kSumBias, kSumBias, kSumBias, kSumBias, kSumBias, kSumBias, kSumBias};
static_assert(32 * 128 * 127 < (1 << 22), "the block sums must stay in the bias's exact range");

// The f32 value of a sum started from kSumBias.
inline float32x4_t BiasedSumToF32(int32x4_t s) {
  return vsubq_f32(vreinterpretq_f32_s32(s), vdupq_n_f32(kSumBiasF));
}

// R4 tile: out[i] = the four rows' dots with activation row i (i < M). Per block and activation
// row: one 32-byte load, the four rows' integer dots (Lanes), one convert, two multiplies (plus
// one add for a level offset, one multiply-add for a min).
template <typename W, typename Lanes>
struct R4Tile {
  static_assert(W::kMaxAbsLevel <= Lanes::kMaxAbsLevel, "the integer dots could overflow");
  static constexpr int kTileRows = 8;
  template <int M>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t xrb, int64_t k, float32x4_t out[M]) {
    const int64_t nb = k / 32, nbp = Q8_0SPaddedBlocks(k);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    if constexpr (!W::kHasMin && W::kLevelOffset == 0) {
      // One pointer per activation row to its values and scales, advanced block by block (so
      // that the loads post-increment instead of computing addresses).
      const int8_t* xq[M];
      const float* xd[M];
      for (int i = 0; i < M; ++i) {
        xq[i] = Q8_0SQs(x + i * xrb);
        xd[i] = Q8_0SD(x + i * xrb, nbp);
      }
      for (int64_t b = 0; b < nb; ++b) {
        int8x16_t w[8];
        float32x4_t d;
        W::Load(wg + b * W::kBlockBytes, w, &d, nullptr);
        for (int i = 0; i < M; ++i) {
          const int8x16x2_t xv = vld1q_s8_x2(xq[i]);
          xq[i] += 32;
          if constexpr (M == 1 && std::is_same<Lanes, SdotLanes>::value) {
            // The dotprod GEMV's group (R4DotprodGemvByGroup): the sums start from kSumBias (a
            // copy of the bias where the zeroing was, a subtraction instead of scvtf: the same
            // f32, one vector uop fewer per block on the N1 / N2 models).
            const int32x4_t s = Lanes::DotFrom(vdupq_n_s32(kSumBias), w, xv.val[0], xv.val[1]);
            acc[i] = vfmaq_f32(acc[i], BiasedSumToF32(s), vmulq_n_f32(d, *xd[i]++));
          } else {
            const int32x4_t s = Lanes::Dot(w, xv.val[0], xv.val[1]);
            acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(s), vmulq_n_f32(d, *xd[i]++));
          }
        }
      }
    } else {
      // Values, scales, sums (and Q8_1's s) of every row sit at the same offsets from the row's
      // start: one base pointer per row and offsets shared by all rows (per-row pointers to four
      // arrays would not fit the general registers for 8 rows).
      const uint8_t* row[M];
      for (int i = 0; i < M; ++i) row[i] = x + i * xrb;
      const int64_t q8 = W::kHasMin ? 4 * nbp : 0;  // the Q8_0S part of a Q8_1S row
      for (int64_t b = 0; b < nb; ++b) {
        int8x16_t w[8];
        float32x4_t d, m = vdupq_n_f32(0.0f);
        W::Load(wg + b * W::kBlockBytes, w, &d, &m);
        const int64_t qs_at = q8 + 32 * b, d_at = q8 + 32 * nbp + 4 * b;
        const int64_t sum_at = q8 + 36 * nbp + 4 * b, s_at = 4 * b;
        for (int i = 0; i < M; ++i) {
          const int8x16x2_t xv = vld1q_s8_x2(reinterpret_cast<const int8_t*>(row[i] + qs_at));
          int32x4_t s = Lanes::Dot(w, xv.val[0], xv.val[1]);
          if (W::kLevelOffset != 0) {
            const int32_t sum = *reinterpret_cast<const int32_t*>(row[i] + sum_at);
            s = vaddq_s32(s, vdupq_n_s32(W::kLevelOffset * sum));
          }
          const float dx = *reinterpret_cast<const float*>(row[i] + d_at);
          acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(s), vmulq_n_f32(d, dx));
          if (W::kHasMin) {
            acc[i] = vfmaq_n_f32(acc[i], m, *reinterpret_cast<const float*>(row[i] + s_at));
          }
        }
      }
    }
    for (int i = 0; i < M; ++i) out[i] = OutScaled<W>(acc[i]);
  }
};

template <typename W>
using R4Dotprod = R4Tile<W, SdotLanes>;

// The dotprod pair GEMM's inner step in assembly (R4SdotPairs, for groups of two activation
// pairs): with intrinsics the compiler emits each sdot chain in one run whatever the source
// order, and an in-order core (Cortex-A55: dual issue, sdot latency 4) then waits on every sdot.
// Here the four chains of a group are interleaved: a chain's next sdot is four sdot later. The
// activations are loaded outside (one 64-byte ld1 per pair, as before: the instruction count does
// not grow), so the compiler can hoist the loads ahead of the group.
//
// Four sdot of weight chunk register `wr` with activation registers xa (pair 0) and xb (pair 1):
// lanes la of both rows' words go to s0 / s2, lanes lb to s1 / s3.
#define EDGEQ_SDOT4(wr, xa, xb, la, lb)            \
  "sdot %S[s].4s, %[" wr "].16b, %[" xa "].4b[" la \
  "]\n\t"                                          \
  "sdot %T[s].4s, %[" wr "].16b, %[" xa "].4b[" lb \
  "]\n\t"                                          \
  "sdot %U[s].4s, %[" wr "].16b, %[" xb "].4b[" la \
  "]\n\t"                                          \
  "sdot %V[s].4s, %[" wr "].16b, %[" xb "].4b[" lb "]\n\t"

// s = kSumBias + the four rows' dots of block w with the rows of pairs a and b (lanes: as
// R4SdotPairs' s0, s1 of each pair).
inline void SdotGroup(const int8x16_t w[8], const int8x16x4_t& a, const int8x16x4_t& b,
                      int32x4x4_t* s) {
  asm("ld1 {%S[s].4s - %V[s].4s}, [%[bias]]\n\t" EDGEQ_SDOT4("w0", "a0", "b0", "0", "2")
          EDGEQ_SDOT4("w1", "a0", "b0", "1", "3") EDGEQ_SDOT4("w2", "a1", "b1", "0", "2")
              EDGEQ_SDOT4("w3", "a1", "b1", "1", "3") EDGEQ_SDOT4("w4", "a2", "b2", "0", "2")
                  EDGEQ_SDOT4("w5", "a2", "b2", "1", "3") EDGEQ_SDOT4("w6", "a3", "b3", "0", "2")
                      EDGEQ_SDOT4("w7", "a3", "b3", "1", "3")
      : [s] "=&w"(*s)
      : [w0] "w"(w[0]), [w1] "w"(w[1]), [w2] "w"(w[2]), [w3] "w"(w[3]), [w4] "w"(w[4]),
        [w5] "w"(w[5]), [w6] "w"(w[6]), [w7] "w"(w[7]), [a0] "w"(a.val[0]), [a1] "w"(a.val[1]),
        [a2] "w"(a.val[2]), [a3] "w"(a.val[3]), [b0] "w"(b.val[0]), [b1] "w"(b.val[1]),
        [b2] "w"(b.val[2]), [b3] "w"(b.val[3]), [bias] "r"(kSumBias16), "m"(kSumBias16));
}
#undef EDGEQ_SDOT4

// The 64 bytes of values of a Q8_0P record (kernel_api.h: a pair's values, then its 16 bytes of
// scales) into *v, *p advanced past the whole record by the load's post-increment (GCC emits an
// ld1 of four registers and a separate add otherwise); the scales are then at *p - 16.
inline void PairValuesLoad(const uint8_t** p, int8x16x4_t* v) {
  asm("ld1 {%S[v].16b - %V[v].16b}, [%[p]], %[record]\n\t"
      : [v] "=w"(*v), [p] "+r"(*p)
      : [record] "r"(kQ8_0PRecordBytes), "m"(*reinterpret_cast<const uint8_t(*)[64]>(*p)));
}

// The sdot GEMM tile over activation pairs (Q8_0P / Q8_1P, kernel_api.h): per pair of rows and
// block one 64-byte record (lane 2 r + t of its h-th 16 bytes: row r's chunk 2 h + t) and its
// 16-byte scales, 16 lane-indexed sdot; no address arithmetic per row. Dotprod only. Pairs go in
// groups of two (SdotGroup: four interleaved sdot chains), each group scaled before the next
// one's dots (the registers of a 4-pair tile's two groups at once would spill).
template <typename W>
struct R4SdotPairs {
  static_assert(W::kLevelOffset == 0 && W::kMaxAbsLevel <= SdotLanes::kMaxAbsLevel,
                "the levels must fit sdot without an offset");
  static constexpr int64_t kRecordBytes = W::kHasMin ? kQ8_1PRecordBytes : kQ8_0PRecordBytes;

  // out[2 p + t] = the four rows' dots with activation row t of pair p (p < P).
  template <int P>
  static void Tile(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                   float32x4_t out[2 * P]) {
    if constexpr (P == 1 || W::kHasMin || !W::kSdotGroups) {
      // One pair at a time (with a min, Q8_1P's sums and the blocks' mins, two pairs'
      // registers would spill).
      TileByPair<P>(wg, x, unit_bytes, k, out);
    } else {
      TileByGroup<P>(wg, x, unit_bytes, k, out);
    }
  }

  template <int P>
  static void TileByGroup(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                          float32x4_t out[2 * P]) {
    static_assert(kRecordBytes == 80, "a Q8_0P record: 64 bytes of values, 16 of scales");
    float32x4_t acc[2 * P];
    const uint8_t* xp[P];
    for (int p = 0; p < P; ++p) {
      acc[2 * p] = acc[2 * p + 1] = vdupq_n_f32(0.0f);
      xp[p] = x + p * unit_bytes;
    }
    // The weight pointer is the loop's counter, and the activation loads post-increment their
    // pointers (PairValuesLoad): no address arithmetic in the loop but the weight pointer's.
    const uint8_t* const w_end = wg + (k / 32) * W::kBlockBytes;
    for (const uint8_t* wb = wg; wb != w_end; wb += W::kBlockBytes) {
      int8x16_t w[8];
      float32x4_t d;
      W::Load(wb, w, &d, nullptr);
      for (int g = 0; g < P; g += 2) {
        int8x16x4_t a, b;
        PairValuesLoad(&xp[g], &a);
        PairValuesLoad(&xp[g + 1], &b);
        int32x4x4_t s;
        SdotGroup(w, a, b, &s);
        // Scaled before the next group's dots (holding both groups' sums would spill).
        for (int q = 0; q < 2; ++q) {
          const int p = g + q;
          const float32x4_t dx = vld1q_f32(reinterpret_cast<const float*>(xp[p] - 16));
          acc[2 * p] =
              vfmaq_f32(acc[2 * p], BiasedSumToF32(s.val[2 * q]), vmulq_laneq_f32(d, dx, 0));
          acc[2 * p + 1] = vfmaq_f32(acc[2 * p + 1], BiasedSumToF32(s.val[2 * q + 1]),
                                     vmulq_laneq_f32(d, dx, 2));
        }
      }
    }
    for (int t = 0; t < 2 * P; ++t) out[t] = OutScaled<W>(acc[t]);
  }

  template <int P>
  static void TileByPair(const uint8_t* wg, const uint8_t* x, size_t unit_bytes, int64_t k,
                         float32x4_t out[2 * P]) {
    float32x4_t acc[2 * P];
    const uint8_t* xp[P];
    for (int p = 0; p < P; ++p) {
      acc[2 * p] = acc[2 * p + 1] = vdupq_n_f32(0.0f);
      xp[p] = x + p * unit_bytes;
    }
    for (int64_t b = 0; b < k / 32; ++b) {
      int8x16_t w[8];
      float32x4_t d, m = vdupq_n_f32(0.0f);
      W::Load(wg + b * W::kBlockBytes, w, &d, &m);
      for (int p = 0; p < P; ++p) {
        const int8x16x4_t xv = vld1q_s8_x4(reinterpret_cast<const int8_t*>(xp[p]));
        const float32x4_t dx = vld1q_f32(reinterpret_cast<const float*>(xp[p] + 64));
        int32x4_t s0 = vdupq_n_s32(0), s1 = vdupq_n_s32(0);
        for (int h = 0; h < 4; ++h) {
          s0 = vdotq_laneq_s32(s0, w[2 * h], xv.val[h], 0);
          s0 = vdotq_laneq_s32(s0, w[2 * h + 1], xv.val[h], 1);
          s1 = vdotq_laneq_s32(s1, w[2 * h], xv.val[h], 2);
          s1 = vdotq_laneq_s32(s1, w[2 * h + 1], xv.val[h], 3);
        }
        acc[2 * p] = vfmaq_f32(acc[2 * p], vcvtq_f32_s32(s0), vmulq_laneq_f32(d, dx, 0));
        acc[2 * p + 1] = vfmaq_f32(acc[2 * p + 1], vcvtq_f32_s32(s1), vmulq_laneq_f32(d, dx, 2));
        if (W::kHasMin) {
          const float32x4_t sx = vld1q_f32(reinterpret_cast<const float*>(xp[p] + 80));
          acc[2 * p] = vfmaq_laneq_f32(acc[2 * p], m, sx, 0);
          acc[2 * p + 1] = vfmaq_laneq_f32(acc[2 * p + 1], m, sx, 2);
        }
        xp[p] += kRecordBytes;
      }
    }
    for (int t = 0; t < 2 * P; ++t) out[t] = OutScaled<W>(acc[t]);
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

// T: R4Tile<W, Lanes>. j0 is a multiple of 4 (tile_n is).
template <typename T>
void R4Gemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; j += 4) {
    float32x4_t out[1];
    T::template Tile<1>(p.w + j * p.w_row_bytes, p.xq, 0, p.k, out);
    StoreR4(out[0], p.y + j, j, j1);
  }
}

// The dotprod GEMV's step for two groups of four weight rows (a, b: W::Load's chunks) and one
// block of the activation row (x0, x1: values 0-15, 16-31): four sdot chains (each group's values
// 0-15 and 16-31) interleaved, so that a chain's next sdot is four sdot later (one chain of eight
// per group made an in-order core wait on each sdot), the halves added at the end.
// Lane `l` of x0 with chunk l, of x1 with chunk h = l + 4, for both groups.
#define EDGEQ_SDOT_GEMV4(l, h)                 \
  "sdot %[a0].4s, %[wa" l "].16b, %[x0].4b[" l \
  "]\n\t"                                      \
  "sdot %[a1].4s, %[wa" h "].16b, %[x1].4b[" l \
  "]\n\t"                                      \
  "sdot %[b0].4s, %[wb" l "].16b, %[x0].4b[" l \
  "]\n\t"                                      \
  "sdot %[b1].4s, %[wb" h "].16b, %[x1].4b[" l "]\n\t"

inline void SdotGemvStep(const int8x16_t a[8], const int8x16_t b[8], int8x16_t x0, int8x16_t x1,
                         int32x4_t* sa, int32x4_t* sb) {
  int32x4_t a0, a1, b0, b1;
  asm("movi %[a0].4s, #0\n\t"
      "movi %[a1].4s, #0\n\t"
      "movi %[b0].4s, #0\n\t"
      "movi %[b1].4s, #0\n\t"
      EDGEQ_SDOT_GEMV4("0", "4")
      EDGEQ_SDOT_GEMV4("1", "5")
      EDGEQ_SDOT_GEMV4("2", "6")
      EDGEQ_SDOT_GEMV4("3", "7")
      "add %[a0].4s, %[a0].4s, %[a1].4s\n\t"
      "add %[b0].4s, %[b0].4s, %[b1].4s\n\t"
      : [a0] "=&w"(a0), [a1] "=&w"(a1), [b0] "=&w"(b0), [b1] "=&w"(b1)
      : [wa0] "w"(a[0]), [wa1] "w"(a[1]), [wa2] "w"(a[2]), [wa3] "w"(a[3]), [wa4] "w"(a[4]),
        [wa5] "w"(a[5]), [wa6] "w"(a[6]), [wa7] "w"(a[7]), [wb0] "w"(b[0]), [wb1] "w"(b[1]),
        [wb2] "w"(b[2]), [wb3] "w"(b[3]), [wb4] "w"(b[4]), [wb5] "w"(b[5]), [wb6] "w"(b[6]),
        [wb7] "w"(b[7]), [x0] "w"(x0), [x1] "w"(x1));
  *sa = a0;
  *sb = b0;
}
#undef EDGEQ_SDOT_GEMV4

// G groups of four weight rows from column j (G = 1: the group may be partial, StoreR4; else all
// G groups are whole: j + 4 G <= j1) against the one activation row: the activation block loaded
// once for all G, one chain of eight sdot per group and block, the G groups' float stages after
// all their sums (modelled 5% faster on the A76 model than each group's right after its sums,
// 2-3% slower on the N1 / X2 models). Each group's sums, scales and float operations are
// R4Tile<W, SdotLanes>::Tile<1>'s; the sums start from kSumBias (a register copy where the
// zeroing was, and BiasedSumToF32's subtraction instead of scvtf: the same f32, and half scvtf's
// cycles on the one pipe of the Neoverse N1 / N2 models). W: Q8_0R4Block (W::LoadNext). Grouped
// like this, q4_0's GEMV loop (29 -> 26 instructions per group and block) was modelled 1-2%
// slower on the N1 / X2 models: the 4-bit types keep R4Gemv.
template <typename W, int G>
inline void R4DotprodGroups(const MatmulParams& p, int64_t j, int64_t j1) {
  const int64_t nbp = Q8_0SPaddedBlocks(p.k);
  const uint8_t* wp[G];
  float32x4_t acc[G];
  for (int g = 0; g < G; ++g) {
    wp[g] = p.w + (j + 4 * g) * p.w_row_bytes;
    acc[g] = vdupq_n_f32(0.0f);
  }
  const int8_t* xq = Q8_0SQs(p.xq);
  const int8_t* const xq_end = xq + 32 * (p.k / 32);
  const float* xd = Q8_0SD(p.xq, nbp);
  const int32x4_t bias = vdupq_n_s32(kSumBias);
  while (xq != xq_end) {
    const int8x16x2_t xv = vld1q_s8_x2(xq);
    xq += 32;
    const float dx = *xd++;
    int32x4_t s[G];
    float32x4_t d[G];
    for (int g = 0; g < G; ++g) {
      int8x16_t w[8];
      W::LoadNext(&wp[g], w, &d[g]);
      s[g] = SdotLanes::DotFrom(bias, w, xv.val[0], xv.val[1]);
    }
    for (int g = 0; g < G; ++g) {
      acc[g] = vfmaq_f32(acc[g], BiasedSumToF32(s[g]), vmulq_n_f32(d[g], dx));
    }
  }
  for (int g = 0; g < G; ++g) {
    if constexpr (G == 1) {
      StoreR4(OutScaled<W>(acc[g]), p.y + j, j, j1);
    } else {
      vst1q_f32(p.y + j + 4 * g, OutScaled<W>(acc[g]));  // (full groups only: the caller's rule)
    }
  }
}

// Groups of four rows j.. j1 of the dotprod GEMV one at a time (Q8_0: by R4DotprodGroups).
template <typename W>
__attribute__((noinline)) void R4DotprodGemvByGroup(const MatmulParams& p, int64_t j, int64_t j1) {
  if constexpr (std::is_same<W, Q8_0R4Block>::value) {
    for (; j < j1; j += 4) R4DotprodGroups<W, 1>(p, j, j1);
  } else {
    R4Gemv<R4Tile<W, SdotLanes>>(p, j, j1);
  }
}

// The dotprod GEMV of a W without min or level offset, one schedule per core type
// (ActiveCoreSchedule, isa.h): out-of-order cores run Q8_0 four groups of four rows at a time
// (R4DotprodGroups: the activation block and the loop's counting shared by the four; one chain of
// eight sdot per group and block, four independent chains), the other types (and Q8_0's last
// groups) one group at a time (one chain of eight sdot per block: fewer instructions than the
// in-order schedule, and modelled 7-8% faster on Cortex-X2 / Neoverse-V2); in-order cores run
// groups two at a time (SdotGemvStep; the activation block loaded once for both, the chains
// interleaved), the last odd group as out-of-order cores do. Each group's sums, scales and float
// operations are R4Tile<W, SdotLanes>::Tile<1>'s in all: the outputs are bit-identical.
template <typename W>
void R4DotprodGemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  static_assert(!W::kHasMin && W::kLevelOffset == 0, "R4DotprodGemv: a type without min or offset");
  if (ActiveCoreSchedule() == CoreSchedule::kOutOfOrder) {
    int64_t j = j0;
    if constexpr (std::is_same<W, Q8_0R4Block>::value) {
      for (; j + 16 <= j1; j += 16) R4DotprodGroups<W, 4>(p, j, j1);
    }
    R4DotprodGemvByGroup<W>(p, j, j1);
    return;
  }
  const int64_t nb = p.k / 32, nbp = Q8_0SPaddedBlocks(p.k);
  int64_t j = j0;
  for (; j + 8 <= j1; j += 8) {
    const uint8_t* wa = p.w + j * p.w_row_bytes;
    const uint8_t* wb = wa + 4 * p.w_row_bytes;
    const int8_t* xq = Q8_0SQs(p.xq);
    const float* xd = Q8_0SD(p.xq, nbp);
    float32x4_t acca = vdupq_n_f32(0.0f), accb = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < nb; ++b) {
      int8x16_t a[8], bw[8];
      float32x4_t da, db;
      W::Load(wa + b * W::kBlockBytes, a, &da, nullptr);
      W::Load(wb + b * W::kBlockBytes, bw, &db, nullptr);
      const int8x16x2_t xv = vld1q_s8_x2(xq);
      xq += 32;
      int32x4_t sa, sb;
      SdotGemvStep(a, bw, xv.val[0], xv.val[1], &sa, &sb);
      const float dx = *xd++;
      acca = vfmaq_f32(acca, vcvtq_f32_s32(sa), vmulq_n_f32(da, dx));
      accb = vfmaq_f32(accb, vcvtq_f32_s32(sb), vmulq_n_f32(db, dx));
    }
    StoreR4(OutScaled<W>(acca), p.y + j, j, j1);
    StoreR4(OutScaled<W>(accb), p.y + j + 4, j + 4, j1);
  }
  R4DotprodGemvByGroup<W>(p, j, j1);
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

template <typename T, int P>
inline void R4PairRows(const MatmulParams& p, const uint8_t* wg, int64_t u, int64_t j, int64_t j1) {
  float32x4_t out[2 * P];
  T::template Tile<P>(wg, p.xq + u * p.xq_row_bytes, p.xq_row_bytes, p.k, out);
  const int rows = static_cast<int>(std::min<int64_t>(2 * P, p.m - 2 * u));
  float* y = p.y + 2 * u * p.y_stride + j;
  if (rows == 2 * P && j + 4 <= j1) {  // (all but the last tiles)
    for (int t = 0; t < 2 * P; ++t) vst1q_f32(y + t * p.y_stride, out[t]);
    return;
  }
  for (int t = 0; t < rows; ++t) StoreR4(out[t], y + t * p.y_stride, j, j1);
}

// T: a pair tile (R4SdotPairs<W>, or R4I8mm<W> in r4_i8mm.h) over Q8_0P / Q8_1P activations (units
// of two rows): tiles of 4 pairs, then 2 and 1; j0 is a multiple of 4.
template <typename T>
void R4PairGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  const int64_t units = (p.m + 1) / 2;
  for (int64_t j = j0; j < j1; j += 4) {
    const uint8_t* wg = p.w + j * p.w_row_bytes;
    int64_t u = 0;
    for (; u + 4 <= units; u += 4) R4PairRows<T, 4>(p, wg, u, j, j1);
    if (u + 2 <= units) {
      R4PairRows<T, 2>(p, wg, u, j, j1);
      u += 2;
    }
    if (u < units) R4PairRows<T, 1>(p, wg, u, j, j1);
  }
}

// The GEMM entry `var` ("<name>_gemm") of an R4 pair GEMM function `gemm` (a MatmulFn over
// activations quantized in pairs of rows: quantize_pair, unit_bytes), 16 columns per task.
#define EDGEQ_DEFINE_R4_PAIR_GEMM_FN(var, encoding, isa, name, quantize_pair, unit_bytes, repack, \
                                     repacked_row_bytes, gemm)                                    \
  const KernelEntry var = {encoding, isa,        Shape::kGemm, name "_gemm",                      \
                           nullptr,  unit_bytes, repack,       repacked_row_bytes,                \
                           gemm,     16,         quantize_pair}
// The same for the R4PairGemm of an R4 pair tile T.
#define EDGEQ_DEFINE_R4_PAIR_GEMM(var, encoding, isa, name, quantize_pair, unit_bytes, repack, \
                                  repacked_row_bytes, T)                                       \
  EDGEQ_DEFINE_R4_PAIR_GEMM_FN(var, encoding, isa, name, quantize_pair, unit_bytes, repack,    \
                               repacked_row_bytes, arm::R4PairGemm<T>)

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_R4_COMMON_H_
