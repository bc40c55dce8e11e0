// Shared NEON pieces of the ARM kernels: block loaders for the repacked q4_0/q8_0 layouts and
// their R-row driver, the K-quant level decoders and row kernels. Included by each ISA file so that
// it compiles with that file's -march.
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_

#include <arm_neon.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/activations_neon.h"
#include "runtime/kernels/arm/neon_k_gemv_steps.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/repack.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// Q4_0X4 group g of a row: q[2b], q[2b + 1] = the 32 signed values (level - 8) of block b, times
// 16 (kFracBits): a nibble n xor 8 is n - 8 in 4-bit two's complement, so (byte ^ 0x88) << 4
// and (byte ^ 0x88) & 0xF0 are 16 * (n - 8) as int8 (-128..112), three instructions per 16
// bytes instead of four. ArmRows converts the int32 sums with kFracBits fraction bits: the same
// floats as the unscaled sums.
struct Q4_0X4Loader {
  static constexpr int kQsBytesPerBlock = 16;
  static constexpr int kFracBits = 4;
  static inline void Load(const uint8_t* wr, int64_t g, int8x16_t q[8]) {
    const uint8_t* p = wr + 64 * g;
    const uint8x16_t m88 = vdupq_n_u8(0x88), mf0 = vdupq_n_u8(0xF0);
    const uint8x16_t v0 = veorq_u8(vld1q_u8(p), m88), v1 = veorq_u8(vld1q_u8(p + 16), m88),
                     v2 = veorq_u8(vld1q_u8(p + 32), m88), v3 = veorq_u8(vld1q_u8(p + 48), m88);
    q[0] = vreinterpretq_s8_u8(vshlq_n_u8(v0, 4));
    q[1] = vreinterpretq_s8_u8(vshlq_n_u8(v1, 4));
    q[2] = vreinterpretq_s8_u8(vshlq_n_u8(v2, 4));
    q[3] = vreinterpretq_s8_u8(vshlq_n_u8(v3, 4));
    q[4] = vreinterpretq_s8_u8(vandq_u8(v0, mf0));
    q[5] = vreinterpretq_s8_u8(vandq_u8(v1, mf0));
    q[6] = vreinterpretq_s8_u8(vandq_u8(v2, mf0));
    q[7] = vreinterpretq_s8_u8(vandq_u8(v3, mf0));
  }
};

// IQ4_NL on the Q4_0X4 layout (BlockIQ4_NL is BlockQ4_0's bytes: fp16 d, 16 index bytes): the
// nibbles index GGML's 16 IQ4_NL levels (one table lookup per 16 values), |level| <= 127.
struct Iq4NlX4Loader {
  static constexpr int kQsBytesPerBlock = 16;
  static constexpr int kFracBits = 0;
  static inline void Load(const uint8_t* wr, int64_t g, int8x16_t q[8]) {
    const uint8_t* p = wr + 64 * g;
    const int8x16_t levels = vld1q_s8(blocks::kIq4NlValues);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    for (int t = 0; t < 4; ++t) {
      const uint8x16_t v = vld1q_u8(p + 16 * t);
      q[t] = vqtbl1q_s8(levels, vandq_u8(v, m4));
      q[t + 4] = vqtbl1q_s8(levels, vshrq_n_u8(v, 4));
    }
  }
};

// Q8_0X4 (signed) group g: 4 blocks of 32 int8 in natural order.
struct Q8_0X4Loader {
  static constexpr int kQsBytesPerBlock = 32;
  static constexpr int kFracBits = 0;
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
  // The sums of the loader's values (times 2^kFracBits) as floats: exact integers, divided by a
  // power of two within the conversion.
  static inline float32x4_t ToF32(int32x4_t v) {
    if constexpr (Loader::kFracBits == 0) {
      return vcvtq_f32_s32(v);
    } else {
      return vcvtq_n_f32_s32(v, Loader::kFracBits);
    }
  }

  // One out-of-line copy per R, shared by the GEMV and the GEMM (inlined, each had its own copies
  // of Rows<1..4>), so the r loop can be unrolled for R = 4: GCC 12 had kept it as a loop, with
  // acc[] on the stack and a 64-bit move per activation half (the 4-row q4_0 block loop: 294
  // instructions, 398 cycles on llvm-mca's A55 model per 4 blocks of 4 rows; unrolled 258 / 311).
  template <int R>
  __attribute__((noinline)) static void Rows(const uint8_t* w, size_t wrb, const uint8_t* x,
                                             int64_t k, float* out) {
    const int64_t nbp = PaddedBlocks32(k);
    const int8_t* xq = Q8_0SQs(x);
    const float* xd = Q8_0SD(x, nbp);
    float32x4_t acc[R];
    for (int r = 0; r < R; ++r) acc[r] = vdupq_n_f32(0.0f);
    for (int64_t g = 0; g < nbp / 4; ++g) {
      int8x16_t xv[8];
      for (int t = 0; t < 8; ++t) xv[t] = vld1q_s8(xq + 128 * g + 16 * t);
      const float32x4_t dx = vld1q_f32(xd + 4 * g);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        const uint8_t* wr = w + r * wrb;
        int8x16_t q[8];
        Loader::Load(wr, g, q);
        const float32x4_t s = vmulq_f32(LoadScales(wr, nbp, Loader::kQsBytesPerBlock, g), dx);
        acc[r] = vfmaq_laneq_f32(acc[r], ToF32(Dot::Block(q[0], q[1], xv[0], xv[1])), s, 0);
        acc[r] = vfmaq_laneq_f32(acc[r], ToF32(Dot::Block(q[2], q[3], xv[2], xv[3])), s, 1);
        acc[r] = vfmaq_laneq_f32(acc[r], ToF32(Dot::Block(q[4], q[5], xv[4], xv[5])), s, 2);
        acc[r] = vfmaq_laneq_f32(acc[r], ToF32(Dot::Block(q[6], q[7], xv[6], xv[7])), s, 3);
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
  static constexpr bool kRows8 = false;  // no 8-row step (DotprodDot16::Rows8)
  static inline int32x4_t Acc(int32x4_t acc, int8x16_t a, int8x16_t b) {
    acc = vpadalq_s16(acc, vmull_s8(vget_low_s8(a), vget_low_s8(b)));
    return vpadalq_s16(acc, vmull_high_s8(a, b));
  }
  // Acc(Acc(0, a0, b0), a1, b1) for small levels a (|a| <= 31: Q4_K/Q5_K, with |b| <= 128): the
  // four products of an int16 lane (<= 15872) summed in int16 by two smull/smlal2 chains and one
  // add, then one pairwise widening add: the same int32 lanes (each the sum of the same eight
  // products), 6 instructions instead of 8, one widening add on the way instead of four in a chain
  // (the NEON-only K-quant tiles ran at 0.5-0.6 instructions per A55 cycle).
  static inline int32x4_t Dot2Small(int8x16_t a0, int8x16_t b0, int8x16_t a1, int8x16_t b1) {
    int16x8_t s = vmull_s8(vget_low_s8(a0), vget_low_s8(b0));
    int16x8_t t = vmull_s8(vget_low_s8(a1), vget_low_s8(b1));
    s = vmlal_high_s8(s, a0, b0);
    t = vmlal_high_s8(t, a1, b1);
    return vpaddlq_s16(vaddq_s16(s, t));
  }
  // GroupDots64<NeonDot16, false> for small values (|q| <= 32: Q6_K's level - 32, with |y| <=
  // 128): lane g = q[g] . y[g], each group's two products per int16 lane (<= 8192) pairwise added
  // in int16 across two groups (<= 16384), then widened once: 13 instructions instead of 19, no
  // chain of widening adds.
  static inline int32x4_t GroupDots64Small(const int8x16_t q[4], const int8x16x4_t& y) {
    int16x8_t s[4];
    for (int u = 0; u < 4; ++u) s[u] = vmull_s8(vget_low_s8(q[u]), vget_low_s8(y.val[u]));
    for (int u = 0; u < 4; ++u) s[u] = vmlal_high_s8(s[u], q[u], y.val[u]);
    return vpaddq_s32(vpaddlq_s16(vpaddq_s16(s[0], s[1])), vpaddlq_s16(vpaddq_s16(s[2], s[3])));
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

// The 8 six-bit scales (*sc) and mins (*mn) of a Q4_K/Q5_K super-block from its 12 packed bytes
// q (GGML's get_scale_min_k4 for j = 0..7 at once): j < 4: q[j] & 63, q[j + 4] & 63; j >= 4: the
// low / high nibble of q[j + 4] with the top two bits of q[j - 4] / q[j] above it.
inline void KScales(const uint8_t* q, uint8x8_t* sc, uint8x8_t* mn) {
  const uint8x8_t v0 = vld1_u8(q);                    // q[0..7]
  const uint8x8_t v1 = vld1_u8(q + 4);                // q[4..11]
  const uint8x8_t lows = vand_u8(v0, vdup_n_u8(63));  // sc[0..3], mn[0..3]
  const uint8x8_t hh =
      vreinterpret_u8_u32(vdup_lane_u32(vreinterpret_u32_u8(v1), 1));  // q[8..11] x2
  // Lanes 0..3: low nibbles (sc[4..7]), lanes 4..7: high nibbles (mn[4..7]).
  const uint8x8_t nib =
      vbsl_u8(vcreate_u8(0x00000000FFFFFFFFull), vand_u8(hh, vdup_n_u8(15)), vshr_n_u8(hh, 4));
  const uint8x8_t highs = vorr_u8(nib, vshl_n_u8(vshr_n_u8(v0, 6), 4));
  *sc = vreinterpret_u8_u32(vtrn1_u32(vreinterpret_u32_u8(lows), vreinterpret_u32_u8(highs)));
  *mn = vreinterpret_u8_u32(vtrn2_u32(vreinterpret_u32_u8(lows), vreinterpret_u32_u8(highs)));
}

// out[j] = {sc[2 j], sc[2 j], sc[2 j + 1], sc[2 j + 1]} as int32: the scale of each lane of
// vpaddq_s32(p(2 j), p(2 j + 1)) for the int32x4 partial dots p(s) of sub-blocks s.
inline void PairScaleLanes(uint8x8_t sc, int32x4_t out[4]) {
  const uint16x8_t lo = vmovl_u8(vzip1_u8(sc, sc));
  const uint16x8_t hi = vmovl_u8(vzip2_u8(sc, sc));
  out[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo)));
  out[1] = vreinterpretq_s32_u32(vmovl_high_u16(lo));
  out[2] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi)));
  out[3] = vreinterpretq_s32_u32(vmovl_high_u16(hi));
}

// The first four fp16 values at p as f32 (FCVTL: every ARMv8-A CPU converts fp16 in hardware,
// exactly, subnormals included).
inline float32x4_t Fp16x4(const uint16_t* p) {
  return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
}

// ---- Tile kernels: one weight row against M activation rows ----
//
// T provides template <int M> static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb,
// int64_t k, float* y, int64_t ys), writing y[i * ys] = dot(weight row w, activation row
// x + i * xrb) for i < M. Each tile decodes the weight row once for its M activation rows. A tile
// with a GEMV step of its own declares kGemvStep and template <int M, bool kGemv = false>: the GEMV
// runs Tile<1, true>, the GEMM's one-row tail Tile<1> (the GEMV step's asm, with its fixed
// registers, kept out of the GEMM's function: there the q6_k GEMM's inner loop grew by 8
// instructions).

template <typename T, typename = void>
struct HasGemvStep : std::false_type {};
template <typename T>
struct HasGemvStep<T, std::void_t<decltype(T::kGemvStep)>> : std::true_type {};

template <typename T>
void TileGemv(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) {
    if constexpr (HasGemvStep<T>::value) {
      T::template Tile<1, true>(p.w + j * p.w_row_bytes, p.xq, 0, p.k, p.y + j, 0);
    } else {
      T::template Tile<1>(p.w + j * p.w_row_bytes, p.xq, 0, p.k, p.y + j, 0);
    }
  }
}

// Tile<N> for the last 1 <= rows < N activation rows.
template <typename T, int N>
struct TileTail {
  static void Run(int rows, const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float* y,
                  int64_t ys) {
    if (rows == N - 1) {
      T::template Tile<N - 1>(w, x, xrb, k, y, ys);
    } else {
      TileTail<T, N - 1>::Run(rows, w, x, xrb, k, y, ys);
    }
  }
};
template <typename T>
struct TileTail<T, 1> {
  static void Run(int, const uint8_t*, const uint8_t*, size_t, int64_t, float*, int64_t) {}
};

template <typename T>
void TileGemm(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; ++j) {
    const uint8_t* w = p.w + j * p.w_row_bytes;
    int64_t i = 0;
    for (; i + T::kTileRows <= p.m; i += T::kTileRows)
      T::template Tile<T::kTileRows>(w, p.xq + i * p.xq_row_bytes, p.xq_row_bytes, p.k,
                                     p.y + i * p.y_stride + j, p.y_stride);
    if (i < p.m)
      TileTail<T, T::kTileRows>::Run(static_cast<int>(p.m - i), w, p.xq + i * p.xq_row_bytes,
                                     p.xq_row_bytes, p.k, p.y + i * p.y_stride + j, p.y_stride);
  }
}

// Defines prefix##Gemv (TileGemv<T>) and prefix##Gemm (TileGemm<T>) for a tile kernel T (the
// last argument), with EDGEQ_KERNEL_ENTRY's other fields.
#define EDGEQ_DEFINE_ARM_TILE_KERNEL_PAIR(prefix, encoding, isa, name, quantize, act_row_bytes, \
                                          repack, repacked_row_bytes, tile_n, ...)              \
  EDGEQ_KERNEL_ENTRY(prefix##Gemv, Shape::kGemv, name "_gemv", encoding, isa, quantize,         \
                     act_row_bytes, repack, repacked_row_bytes, tile_n,                         \
                     arm::TileGemv<__VA_ARGS__>);                                               \
  EDGEQ_KERNEL_ENTRY(prefix##Gemm, Shape::kGemm, name "_gemm", encoding, isa, quantize,         \
                     act_row_bytes, repack, repacked_row_bytes, tile_n,                         \
                     arm::TileGemm<__VA_ARGS__>)

// acc + p0 x sc[2 j] + p1 x sc[2 j + 1] (sc: the 8 sub-block scales in scl[0], scl[1]), by
// lane (j is a constant once the loop over j is unrolled).
inline int32x4_t MlaSubBlockScales(int32x4_t acc, int32x4_t p0, int32x4_t p1,
                                   const int32x4_t scl[2], int j) {
  switch (j) {
    case 0:
      return vmlaq_laneq_s32(vmlaq_laneq_s32(acc, p0, scl[0], 0), p1, scl[0], 1);
    case 1:
      return vmlaq_laneq_s32(vmlaq_laneq_s32(acc, p0, scl[0], 2), p1, scl[0], 3);
    case 2:
      return vmlaq_laneq_s32(vmlaq_laneq_s32(acc, p0, scl[1], 0), p1, scl[1], 1);
    default:
      return vmlaq_laneq_s32(vmlaq_laneq_s32(acc, p0, scl[1], 2), p1, scl[1], 3);
  }
}

// The four 16-value group dots of 64 values, lane g = group g: kTransposed (Q8_KT activations,
// levels put through TransposeWords4x4): four chained dots; else (Q8_K): four dots and the
// pairwise adds that gather each group's lanes.
template <typename Dot, bool kTransposed>
inline int32x4_t GroupDots64(int8x16_t q[4], const int8x16x4_t& y) {
  if constexpr (kTransposed) {
    int32x4_t p = Dot::Acc(vdupq_n_s32(0), q[0], y.val[0]);
    for (int t = 1; t < 4; ++t) p = Dot::Acc(p, q[t], y.val[t]);
    return p;
  } else {
    int32x4_t p[4];
    for (int u = 0; u < 4; ++u) p[u] = Dot::Acc(vdupq_n_s32(0), q[u], y.val[u]);
    return vpaddq_s32(vpaddq_s32(p[0], p[1]), vpaddq_s32(p[2], p[3]));
  }
}

// Q4_K/Q5_K x Q8_K, GGML's math: per super-block, sum_s sc[s] * (levels_s . x_s) times
// d = fp16(w.d) * x.d, minus sum_s mn[s] * (sum of x_s) times dmin = fp16(w.dmin) * x.d, s over the
// eight 32-value sub-blocks (the sums of x_s from the activation's bsums, as in GGML). The levels,
// the scales (vectorized unpacking) and d, dmin (hardware fp16) are decoded once per tile; per
// activation row and 64 values: one 64-byte load, four 16-byte dots, a pairwise add and one
// multiply-add by the scales (kTransposed, over Q8_KT activations: no pairwise add, one zeroed
// accumulator instead of two; the levels transposed once per tile). Exact int32: |levels . x| <= 32
// * 31 * 128 per sub-block, times a scale <= 63, over 8 sub-blocks is < 2^26.
template <typename L, typename Dot, bool kTransposed = false>
struct K45Tile {
  // NEON's widening dots need more registers: fewer rows per tile (counted under qemu).
  static constexpr int kTileRows = std::is_same<Dot, NeonDot16>::value ? 4 : 8;
  static constexpr bool kByLane = !kTransposed && !std::is_same<Dot, NeonDot16>::value;
  // The q4_k GEMV of CPUs without dotprod: one asm statement per super-block (Q4KNeonDots256).
  static constexpr bool kNeonQ4KGemv =
      std::is_same<L, Q4_KLevels>::value && std::is_same<Dot, NeonDot16>::value && !kTransposed;
  static constexpr bool kGemvStep = kNeonQ4KGemv;
  template <int M, bool kGemv = false>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float* y,
                   int64_t ys) {
    static_assert(!kGemv || M == 1, "the GEMV step is one row");
    using Block = typename L::Block;
    const auto* bw = reinterpret_cast<const Block*>(w);
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const Block& wb = bw[b];
      uint8x8_t sc, mn;
      KScales(wb.scales, &sc, &mn);
      // scl[j] = {sc[2 j], sc[2 j], sc[2 j + 1], sc[2 j + 1]} for the pairwise-added (or
      // transposed) lanes; by lane (sdot rows): scl[0], scl[1] = the 8 scales as int32, each
      // sub-block's dot multiplied by its lane (no pairwise add, no lane expansion: the dotprod
      // GEMV executes 4-9% fewer instructions; NEON's 4-row tile more, so it keeps the lanes).
      int32x4_t scl[4];
      if constexpr (!kByLane) {
        PairScaleLanes(sc, scl);
      } else {
        const uint16x8_t s16 = vmovl_u8(sc);
        scl[0] = vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(s16)));
        scl[1] = vreinterpretq_s32_u32(vmovl_high_u16(s16));
      }
      const int16x8_t mn16 = vreinterpretq_s16_u16(vmovl_u8(mn));
      const float32x4_t dd = Fp16x4(&wb.d);  // lanes d, dmin (then 4 scale bytes, unused)
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      if constexpr (kNeonQ4KGemv && kGemv) {
        Q4KNeonDots256(wb.qs, bx[0][b].qs, vdupq_n_u8(0x0F), scl, &isum[0]);
      } else {
        L levels(wb);
        for (int j = 0; j < 4; ++j) {
          int8x16_t q[4];
          K45Levels64(wb, j, &levels, q);
          if constexpr (kTransposed) TransposeWords4x4(q);
          if constexpr (kTransposed && M == 8 && Dot::kRows8) {  // scheduled for in-order cores
            Dot::Rows8(q, bx[0][b].qs + 64 * j, xrb, scl[j], isum);
            continue;
          }
          for (int i = 0; i < M; ++i) {
            const int8x16x4_t yv = vld1q_s8_x4(bx[i][b].qs + 64 * j);
            if constexpr (kTransposed) {  // lanes: groups 4 j .. 4 j + 3 (sub-blocks 2 j, 2 j + 1)
              isum[i] = vmlaq_s32(isum[i], GroupDots64<Dot, true>(q, yv), scl[j]);
            } else {  // two sub-blocks: two chained dots each
              const int32x4_t p0 = Dot::Dot2Small(q[0], yv.val[0], q[1], yv.val[1]);
              const int32x4_t p1 = Dot::Dot2Small(q[2], yv.val[2], q[3], yv.val[3]);
              if constexpr (kByLane) {
                isum[i] = MlaSubBlockScales(isum[i], p0, p1, scl, j);
              } else {
                isum[i] = vmlaq_s32(isum[i], vpaddq_s32(p0, p1), scl[j]);
              }
            }
          }
        }
      }
      // With Rows8: the rows' scaling in groups of 4, stage by stage within a group (in-order
      // cores then overlap the rows' dependent steps); each row's arithmetic is the same as below.
      constexpr int G = 4;
      if constexpr (!(kTransposed && M == 8 && Dot::kRows8)) {
        for (int i = 0; i < M; ++i) {
          const blocks::BlockQ8_K& xb = bx[i][b];
          const int16x8_t s32 = vpaddq_s16(vld1q_s16(xb.bsums), vld1q_s16(xb.bsums + 8));
          const int32x4_t mins =
              vmlal_high_s16(vmull_s16(vget_low_s16(mn16), vget_low_s16(s32)), mn16, s32);
          const float32x4_t dx = vmulq_n_f32(dd, xb.d);
          acc[i] = vfmaq_laneq_f32(acc[i], vcvtq_f32_s32(isum[i]), dx, 0);
          acc[i] = vfmsq_laneq_f32(acc[i], vcvtq_f32_s32(mins), dx, 1);
        }
      } else {
        for (int i0 = 0; i0 < M; i0 += G) {
          int16x8_t s32[G];
          int32x4_t mins[G];
          float32x4_t dx[G];
          for (int r = 0; r < G; ++r) {
            const blocks::BlockQ8_K& xb = bx[i0 + r][b];
            s32[r] = vpaddq_s16(vld1q_s16(xb.bsums), vld1q_s16(xb.bsums + 8));
          }
          for (int r = 0; r < G; ++r) dx[r] = vmulq_n_f32(dd, bx[i0 + r][b].d);
          for (int r = 0; r < G; ++r) mins[r] = vmull_s16(vget_low_s16(mn16), vget_low_s16(s32[r]));
          for (int r = 0; r < G; ++r) mins[r] = vmlal_high_s16(mins[r], mn16, s32[r]);
          for (int r = 0; r < G; ++r)
            acc[i0 + r] = vfmaq_laneq_f32(acc[i0 + r], vcvtq_f32_s32(isum[i0 + r]), dx[r], 0);
          for (int r = 0; r < G; ++r)
            acc[i0 + r] = vfmsq_laneq_f32(acc[i0 + r], vcvtq_f32_s32(mins[r]), dx[r], 1);
        }
      }
    }
    for (int i = 0; i < M; ++i) y[i * ys] = vaddvq_f32(acc[i]);
  }
};

// 4 x (level - 32) (in -128..124) of the Q6_K values 128 n + 64 hh + 16 u .. + 15 into q[u]
// (u = 0..3: group 8 n + 4 hh + u): the level's low 4 bits are the low (hh = 0) or high (hh = 1)
// nibbles of ql[64 n + 16 u ..], its high 2 bits bit pair 2 hh + u / 2 of qh[32 n + 16 (u % 2) ..].
// Per 16 values: the nibble moved to bits 4-7, the bit pair to bits 6-7, one sri (4 x level) and
// one eor (- 128). The callers scale d by 1/4 (exact).
inline void Q6KValues64Times4(const blocks::BlockQ6_K& b, int n, int hh, int8x16_t q[4]) {
  const uint8x16x4_t ql = vld1q_u8_x4(b.ql + 64 * n);
  const uint8x16x2_t qh = vld1q_u8_x2(b.qh + 32 * n);
  for (int u = 0; u < 4; ++u) {
    const uint8x16_t nib =
        hh == 0 ? vshlq_n_u8(ql.val[u], 4) : vandq_u8(ql.val[u], vdupq_n_u8(0xF0));
    const uint8x16_t h = qh.val[u % 2];
    uint8x16_t top;  // bit pair 2 hh + u / 2 of h at bits 6-7
    switch (2 * hh + u / 2) {
      case 0:
        top = vshlq_n_u8(h, 6);
        break;
      case 1:
        top = vshlq_n_u8(h, 4);
        break;
      case 2:
        top = vshlq_n_u8(h, 2);
        break;
      default:
        top = h;
        break;
    }
    q[u] = vreinterpretq_s8_u8(veorq_u8(vsriq_n_u8(top, nib, 2), vdupq_n_u8(0x80)));
  }
}

// Q6_K x Q8_K, GGML's math: per super-block sum_g sc[g] * (values_g . x_g) times
// d = fp16(w.d) * x.d, g over the sixteen 16-value groups, sc[g] the group's int8 scale, values
// 4 x (level - 32) and d / 4. Values, scales and d are decoded once per tile; per activation row
// and 64 values: one 64-byte load, four 16-byte dots, three pairwise adds and one multiply-add by
// the scales (kTransposed, over Q8_KT activations: four chained dots and the multiply-add; the
// values transposed once per tile). Exact int32: |values . x| <= 16 * 128 * 128 per group, times
// |sc| <= 128, over 16 groups is <= 2^29. (NEON's widening dots: products <= 128 * 128 fit int16.)
template <typename Dot, bool kTransposed = false>
struct Q6KTile {
  // NEON's widening dots need more registers: fewer rows per tile (counted under qemu).
  static constexpr int kTileRows = std::is_same<Dot, NeonDot16>::value ? 4 : 8;
  static constexpr bool kGemvStep = std::is_same<Dot, NeonDot16>::value && !kTransposed;
  template <int M, bool kGemv = false>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float* y,
                   int64_t ys) {
    static_assert(!kGemv || M == 1, "the GEMV step is one row");
    const auto* bw = reinterpret_cast<const blocks::BlockQ6_K*>(w);
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const blocks::BlockQ6_K& wb = bw[b];
      const int8x16_t s8 = vld1q_s8(wb.scales);
      const int16x8_t s16l = vmovl_s8(vget_low_s8(s8)), s16h = vmovl_high_s8(s8);
      const int32x4_t scl[4] = {vmovl_s16(vget_low_s16(s16l)), vmovl_high_s16(s16l),
                                vmovl_s16(vget_low_s16(s16h)), vmovl_high_s16(s16h)};
      // d is the block's last field: load only its two bytes. 1/4: the values are 4 x (level - 32)
      // (NEON's widening dots shift them back to level - 32 and keep d: the same floats, the int32
      // sums a quarter, converted and scaled exactly by powers of two).
      constexpr bool kSmall = std::is_same<Dot, NeonDot16>::value && !kTransposed;
      const float32x4_t d = vmulq_n_f32(vcvt_f32_f16(vreinterpret_f16_u16(vld1_dup_u16(&wb.d))),
                                        kSmall ? 1.0f : 0.25f);
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      for (int n = 0; n < 2; ++n) {
        if constexpr (kSmall && kGemv) {  // the GEMV (M = 1)
          Q6KNeonDots128(wb.ql + 64 * n, wb.qh + 32 * n, bx[0][b].qs + 128 * n, scl[2 * n],
                         scl[2 * n + 1], &isum[0]);
          continue;
        }
        for (int hh = 0; hh < 2; ++hh) {  // values 64 (2 n + hh) + 16 u: group 4 (2 n + hh) + u
          int8x16_t v[4];
          Q6KValues64Times4(wb, n, hh, v);
          if constexpr (kTransposed) TransposeWords4x4(v);
          if constexpr (kTransposed && M == 8 && Dot::kRows8) {  // scheduled for in-order cores
            Dot::Rows8(v, bx[0][b].qs + 128 * n + 64 * hh, xrb, scl[2 * n + hh], isum);
            continue;
          }
          if constexpr (kSmall) {
            for (int u = 0; u < 4; ++u) v[u] = vshrq_n_s8(v[u], 2);  // exact: multiples of 4
            for (int i = 0; i < M; ++i) {
              const int8x16x4_t yv = vld1q_s8_x4(bx[i][b].qs + 128 * n + 64 * hh);
              isum[i] = vmlaq_s32(isum[i], NeonDot16::GroupDots64Small(v, yv), scl[2 * n + hh]);
            }
            continue;
          }
          for (int i = 0; i < M; ++i) {
            const int8x16x4_t yv = vld1q_s8_x4(bx[i][b].qs + 128 * n + 64 * hh);
            isum[i] = vmlaq_s32(isum[i], GroupDots64<Dot, kTransposed>(v, yv), scl[2 * n + hh]);
          }
        }
      }
      for (int i = 0; i < M; ++i)
        acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(isum[i]), vmulq_n_f32(d, bx[i][b].d));
    }
    for (int i = 0; i < M; ++i) y[i * ys] = vaddvq_f32(acc[i]);
  }
};

// IQ4_XS x Q8_K, GGML's math: per super-block sum_s (ls_s - 32) * (levels_s . x_s) times
// d = fp16(w.d) * x.d, s over the eight 32-value sub-blocks, ls_s the 6-bit scale (low 4 bits in
// scales_l, high 2 in scales_h), levels the IQ4_NL values the nibbles index (one table lookup per
// 16). Levels and scales are decoded once per tile; per activation row and 64 values: one 64-byte
// load, four 16-byte dots, a pairwise add and one multiply-add by the scales. Exact int32:
// |levels . x| <= 32 * 127 * 128 per sub-block, times |ls - 32| <= 32, over 8 sub-blocks < 2^28.
template <typename Dot>
struct Iq4XsTile {
  static constexpr int kTileRows = std::is_same<Dot, NeonDot16>::value ? 4 : 8;
  template <int M>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float* y,
                   int64_t ys) {
    const auto* bw = reinterpret_cast<const blocks::BlockIq4Xs*>(w);
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    const int8x16_t levels = vld1q_s8(blocks::kIq4NlValues);
    const uint8x16_t m4 = vdupq_n_u8(0x0F);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const blocks::BlockIq4Xs& wb = bw[b];
      // The eight scales ls - 32 (low nibbles of scales_l: byte s / 2, nibble s % 2; high bits:
      // bit pair s of scales_h), then lanes {ls(2 j), ls(2 j), ls(2 j + 1), ls(2 j + 1)}: the
      // scales of vpaddq_s32(dot(2 j), dot(2 j + 1)).
      uint32_t l4;
      std::memcpy(&l4, wb.scales_l, 4);
      const uint8x8_t sl = vreinterpret_u8_u32(vdup_n_u32(l4));
      const uint8x8_t lo = vzip1_u8(vand_u8(sl, vdup_n_u8(0x0F)), vshr_n_u8(sl, 4));
      const int16x8_t shifts = {0, -2, -4, -6, -8, -10, -12, -14};
      const uint16x8_t hb = vandq_u16(vshlq_u16(vdupq_n_u16(wb.scales_h), shifts), vdupq_n_u16(3));
      const uint8x8_t ls = vorr_u8(lo, vshl_n_u8(vmovn_u16(hb), 4));
      const int16x8_t s16 = vsubq_s16(vreinterpretq_s16_u16(vmovl_u8(ls)), vdupq_n_s16(32));
      const int16x8_t z0 = vzip1q_s16(s16, s16), z1 = vzip2q_s16(s16, s16);
      const int32x4_t scl[4] = {vmovl_s16(vget_low_s16(z0)), vmovl_high_s16(z0),
                                vmovl_s16(vget_low_s16(z1)), vmovl_high_s16(z1)};
      const float32x4_t d = vcvt_f32_f16(vreinterpret_f16_u16(vld1_dup_u16(&wb.d)));
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      for (int j = 0; j < 4; ++j) {
        const uint8x16x2_t v = vld1q_u8_x2(wb.qs + 32 * j);
        const int8x16_t q[4] = {vqtbl1q_s8(levels, vandq_u8(v.val[0], m4)),
                                vqtbl1q_s8(levels, vshrq_n_u8(v.val[0], 4)),
                                vqtbl1q_s8(levels, vandq_u8(v.val[1], m4)),
                                vqtbl1q_s8(levels, vshrq_n_u8(v.val[1], 4))};
        for (int i = 0; i < M; ++i) {
          const int8x16x4_t yv = vld1q_s8_x4(bx[i][b].qs + 64 * j);
          const int32x4_t p0 = Dot::Acc(Dot::Acc(vdupq_n_s32(0), q[0], yv.val[0]), q[1], yv.val[1]);
          const int32x4_t p1 = Dot::Acc(Dot::Acc(vdupq_n_s32(0), q[2], yv.val[2]), q[3], yv.val[3]);
          isum[i] = vmlaq_s32(isum[i], vpaddq_s32(p0, p1), scl[j]);
        }
      }
      for (int i = 0; i < M; ++i)
        acc[i] = vfmaq_f32(acc[i], vcvtq_f32_s32(isum[i]), vmulq_n_f32(d, bx[i][b].d));
    }
    for (int i = 0; i < M; ++i) y[i * ys] = vaddvq_f32(acc[i]);
  }
};

// scl[p] = {sc[2 p], sc[2 p], sc[2 p + 1], sc[2 p + 1]} (p < 8) from the 16 scales of 16-value
// groups (lo: 0..7, hi: 8..15): the multipliers of vpaddq_s32(dot(group 2 p), dot(group 2 p + 1)).
inline void GroupPairScales(int16x8_t lo, int16x8_t hi, int32x4_t scl[8]) {
  const int16x8_t z[4] = {vzip1q_s16(lo, lo), vzip2q_s16(lo, lo), vzip1q_s16(hi, hi),
                          vzip2q_s16(hi, hi)};
  for (int t = 0; t < 4; ++t) {
    scl[2 * t] = vmovl_s16(vget_low_s16(z[t]));
    scl[2 * t + 1] = vmovl_high_s16(z[t]);
  }
}

// Q2_K x Q8_K, GGML's math: per super-block sum_g sc[g] * (levels_g . x_g) times
// d = fp16(w.d) * x.d, minus sum_g mn[g] * (sum of x_g) times dmin = fp16(w.dmin) * x.d, g over
// the sixteen 16-value groups (4-bit scale and min per group; the sums of x_g are the activation's
// bsums). Levels 0..3 are bit pairs of qs: value 128 n + 32 s + l is bits 2 s of qs[32 n + l].
// Scales and mins are decoded once per tile; per activation row and 32 values: one 32-byte load,
// two 16-byte dots, a pairwise add and one multiply-add by the scales. Exact int32: |levels . x|
// <= 16 * 3 * 128 per group, times a scale <= 15, over 16 groups < 2^20.
template <typename Dot>
struct Q2KTile {
  static constexpr int kTileRows = std::is_same<Dot, NeonDot16>::value ? 4 : 8;
  template <int M>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float* y,
                   int64_t ys) {
    const auto* bw = reinterpret_cast<const blocks::BlockQ2_K*>(w);
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    const uint8x16_t m3 = vdupq_n_u8(3);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const blocks::BlockQ2_K& wb = bw[b];
      const uint8x16_t s8 = vld1q_u8(wb.scales);
      const uint8x16_t sc = vandq_u8(s8, vdupq_n_u8(0x0F));
      const int16x8_t mn_lo = vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(vshrq_n_u8(s8, 4))));
      const int16x8_t mn_hi = vreinterpretq_s16_u16(vmovl_high_u8(vshrq_n_u8(s8, 4)));
      int32x4_t scl[8];
      GroupPairScales(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(sc))),
                      vreinterpretq_s16_u16(vmovl_high_u8(sc)), scl);
      // Lanes d, dmin, d, dmin (the block's last 4 bytes: no read past it).
      uint32_t d_dmin;
      std::memcpy(&d_dmin, &wb.d, 4);
      const float32x4_t dd = vcvt_f32_f16(vreinterpret_f16_u32(vdup_n_u32(d_dmin)));
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      for (int n = 0; n < 2; ++n) {
        const uint8x16x2_t q = vld1q_u8_x2(wb.qs + 32 * n);
        for (int s = 0; s < 4; ++s) {
          // Groups 8 n + 2 s (values 128 n + 32 s + 0..15) and 8 n + 2 s + 1 (+ 16..31).
          const int8x16_t l0 =
              vreinterpretq_s8_u8(vandq_u8(vshlq_u8(q.val[0], vdupq_n_s8(-2 * s)), m3));
          const int8x16_t l1 =
              vreinterpretq_s8_u8(vandq_u8(vshlq_u8(q.val[1], vdupq_n_s8(-2 * s)), m3));
          for (int i = 0; i < M; ++i) {
            const int8x16x2_t yv = vld1q_s8_x2(bx[i][b].qs + 128 * n + 32 * s);
            const int32x4_t p0 = Dot::Acc(vdupq_n_s32(0), l0, yv.val[0]);
            const int32x4_t p1 = Dot::Acc(vdupq_n_s32(0), l1, yv.val[1]);
            isum[i] = vmlaq_s32(isum[i], vpaddq_s32(p0, p1), scl[4 * n + s]);
          }
        }
      }
      for (int i = 0; i < M; ++i) {
        const blocks::BlockQ8_K& xb = bx[i][b];
        const int16x8_t bs0 = vld1q_s16(xb.bsums), bs1 = vld1q_s16(xb.bsums + 8);
        int32x4_t mins = vmull_s16(vget_low_s16(mn_lo), vget_low_s16(bs0));
        mins = vmlal_high_s16(mins, mn_lo, bs0);
        mins = vmlal_s16(mins, vget_low_s16(mn_hi), vget_low_s16(bs1));
        mins = vmlal_high_s16(mins, mn_hi, bs1);
        const float32x4_t dx = vmulq_n_f32(dd, xb.d);
        acc[i] = vfmaq_laneq_f32(acc[i], vcvtq_f32_s32(isum[i]), dx, 0);
        acc[i] = vfmsq_laneq_f32(acc[i], vcvtq_f32_s32(mins), dx, 1);
      }
    }
    for (int i = 0; i < M; ++i) y[i * ys] = vaddvq_f32(acc[i]);
  }
};

// Q3_K x Q8_K, GGML's math: per super-block sum_g (sc[g] - 32) * (levels_g . x_g) times
// fp16(w.d) * x.d over the 16 groups of 16 values, levels (bit pairs as Q2_K's, minus 4 where the
// hmask bit is clear) -4..3. The 6-bit scales (4 low bits from 8 bytes' nibbles, 2 high bits from
// 4 bytes' bit pairs) and the levels are decoded once per tile; per activation row and 32 values:
// one 32-byte load, two 16-byte dots, a pairwise add and one multiply-add by the scales. Exact
// int32: |levels . x| <= 16 * 4 * 128 per group, times |scale| <= 32, over 16 groups < 2^23.
template <typename Dot>
struct Q3KTile {
  static constexpr int kTileRows = std::is_same<Dot, NeonDot16>::value ? 4 : 8;
  template <int M>
  static void Tile(const uint8_t* w, const uint8_t* x, size_t xrb, int64_t k, float* y,
                   int64_t ys) {
    const auto* bw = reinterpret_cast<const blocks::BlockQ3_K*>(w);
    const blocks::BlockQ8_K* bx[M];
    for (int i = 0; i < M; ++i) bx[i] = reinterpret_cast<const blocks::BlockQ8_K*>(x + i * xrb);
    const uint8x16_t m3 = vdupq_n_u8(3), four = vdupq_n_u8(4);
    // Lane j: the shift of scale j's high bit pair within byte 8 + j % 4.
    static constexpr int8_t kHighShift[16] = {0,  0,  0,  0,  -2, -2, -2, -2,
                                              -4, -4, -4, -4, -6, -6, -6, -6};
    const int8x16_t high_shift = vld1q_s8(kHighShift);
    float32x4_t acc[M];
    for (int i = 0; i < M; ++i) acc[i] = vdupq_n_f32(0.0f);
    for (int64_t b = 0; b < k / blocks::kQK_K; ++b) {
      const blocks::BlockQ3_K& wb = bw[b];
      const uint8x8_t s8 = vld1_u8(wb.scales);
      uint32_t s4;
      std::memcpy(&s4, wb.scales + 8, 4);
      const uint8x16_t high =
          vandq_u8(vshlq_u8(vreinterpretq_u8_u32(vdupq_n_u32(s4)), high_shift), m3);
      const uint8x16_t sc6 = vorrq_u8(vcombine_u8(vand_u8(s8, vdup_n_u8(0x0F)), vshr_n_u8(s8, 4)),
                                      vshlq_n_u8(high, 4));
      const int8x16_t sc = vsubq_s8(vreinterpretq_s8_u8(sc6), vdupq_n_s8(32));
      int32x4_t scl[8];
      GroupPairScales(vmovl_s8(vget_low_s8(sc)), vmovl_high_s8(sc), scl);
      const uint8x16x2_t hm = vld1q_u8_x2(wb.hmask);
      const float dw = blocks::Fp16ToFloat(wb.d);
      int32x4_t isum[M];
      for (int i = 0; i < M; ++i) isum[i] = vdupq_n_s32(0);
      for (int n = 0; n < 2; ++n) {
        const uint8x16x2_t q = vld1q_u8_x2(wb.qs + 32 * n);
        for (int s = 0; s < 4; ++s) {
          // Groups 8 n + 2 s (values 128 n + 32 s + 0..15) and 8 n + 2 s + 1 (+ 16..31); their
          // 3rd bits are bit 4 n + s of hmask.
          const uint8x16_t bit = vdupq_n_u8(static_cast<uint8_t>(1 << (4 * n + s)));
          const int8x16_t l0 =
              vreinterpretq_s8_u8(vsubq_u8(vandq_u8(vshlq_u8(q.val[0], vdupq_n_s8(-2 * s)), m3),
                                           vbicq_u8(four, vtstq_u8(hm.val[0], bit))));
          const int8x16_t l1 =
              vreinterpretq_s8_u8(vsubq_u8(vandq_u8(vshlq_u8(q.val[1], vdupq_n_s8(-2 * s)), m3),
                                           vbicq_u8(four, vtstq_u8(hm.val[1], bit))));
          for (int i = 0; i < M; ++i) {
            const int8x16x2_t yv = vld1q_s8_x2(bx[i][b].qs + 128 * n + 32 * s);
            const int32x4_t p0 = Dot::Acc(vdupq_n_s32(0), l0, yv.val[0]);
            const int32x4_t p1 = Dot::Acc(vdupq_n_s32(0), l1, yv.val[1]);
            isum[i] = vmlaq_s32(isum[i], vpaddq_s32(p0, p1), scl[4 * n + s]);
          }
        }
      }
      for (int i = 0; i < M; ++i) {
        acc[i] = vfmaq_n_f32(acc[i], vcvtq_f32_s32(isum[i]), dw * bx[i][b].d);
      }
    }
    for (int i = 0; i < M; ++i) y[i * ys] = vaddvq_f32(acc[i]);
  }
};

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_ARM_COMMON_H_
