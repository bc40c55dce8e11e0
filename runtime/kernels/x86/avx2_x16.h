// The 256-bit driver of the X16 weight layouts (internal/repack_x16.h), shared by the AVX2 and
// AVX-VNNI kernel files and inlined with their flags.
//
// A 64-byte quad vector of a 16-row group is two 32-byte halves: rows 0..7 and rows 8..15. One
// __m256i output vector holds the 8 rows of a half for one activation row, so nothing is summed
// horizontally. Per sub-block and activation row, the byte dot D of the half's quads (unsigned
// levels) against 4 broadcast activation bytes (signed) accumulates exact int32 lanes, converted
// once per sub-block and scaled by the row's sub-block scale times the activation's block scale;
// per block the encoding's correction (mins) is subtracted. The weights are decoded once per
// (sub-block, half) and used for every activation row of a tile: M = 1 (GEMV) runs both halves
// together, M = kM (GEMM) one half at a time, within the 16 vector registers.
//
// D (the byte dot) provides: static __m256i Acc(__m256i acc, const __m256i w[4], const __m256i
// x[4]): acc plus int32 lanes summing 4 levels x 4 bytes of each of the 4 pairs (AVX2: MaddQuads
// below; AVX-VNNI: VnniQuads, avxvnni_dot.h).
#ifndef EDGEQ_RUNTIME_KERNELS_X86_AVX2_X16_H_
#define EDGEQ_RUNTIME_KERNELS_X86_AVX2_X16_H_

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"
#include "runtime/kernels/internal/repack_x16.h"
#include "runtime/kernels/x86/x16_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// 4 activation bytes broadcast to every 32-bit lane.
inline __m256i Broadcast4Y(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm256_set1_epi32(v);
}

inline __m256i LoadY(const uint8_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// An empty asm that takes `v` in and out of a vector register: the integer adds before it and after
// it cannot be regrouped. Without it GCC turns a GEMM tile's chains of exact int32 adds into trees
// whose partial sums spill to the stack (the AVX2 Q8_0 tile ran 12% slower so).
inline void KeepOrder(__m256i& v) { __asm__("" : "+x"(v)); }

// AVX2's byte dot for levels 0..kMaxLevel: vpmaddubsw pairs (at most 2 * kMaxLevel * 127) added
// in int16 over as many quads as cannot overflow (all 4 for levels <= 32, else 2 at a time), then
// widened by vpmaddwd into int32.
template <int kMaxLevel>
struct MaddQuads {
  static_assert(kMaxLevel <= 64, "two vpmaddubsw pairs must fit int16");
  static inline __m256i Acc(__m256i acc, const __m256i* w, const __m256i* x) {
    const __m256i ones = _mm256_set1_epi16(1);
    const __m256i s01 =
        _mm256_add_epi16(_mm256_maddubs_epi16(w[0], x[0]), _mm256_maddubs_epi16(w[1], x[1]));
    const __m256i s23 =
        _mm256_add_epi16(_mm256_maddubs_epi16(w[2], x[2]), _mm256_maddubs_epi16(w[3], x[3]));
    if constexpr (4 * 2 * kMaxLevel * 127 <= 32767) {
      return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_add_epi16(s01, s23), ones));
    } else {
      return _mm256_add_epi32(
          acc, _mm256_add_epi32(_mm256_madd_epi16(s01, ones), _mm256_madd_epi16(s23, ones)));
    }
  }
};

// ---- Activation quantizers, bit-identical to the portable ones (tested) ----
//
// Templates on the ISA of the file that instantiates them: each ISA's copy is its own symbol, so
// the linker cannot hand the AVX2 kernels a copy compiled with -mavxvnni.

inline float HMaxY(__m256 a) {
  __m128 h = _mm_max_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  return _mm_cvtss_f32(_mm_max_ss(h, _mm_movehdup_ps(h)));
}

inline int32_t HSumY(__m256i a) {
  __m128i h = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  h = _mm_add_epi32(h, _mm_unpackhi_epi64(h, h));
  return _mm_cvtsi128_si32(_mm_add_epi32(h, _mm_shuffle_epi32(h, 0x55)));
}

inline __m256 AbsY(__m256 v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }

// roundf (ties away from zero) of floats of magnitude < 2^23, as int32: exact, by truncation and
// the sign of the (exact) remainder.
inline __m256i RoundAwayY(__m256 v) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 t = _mm256_round_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m256 frac = _mm256_sub_ps(v, t);
  t = _mm256_add_ps(t, _mm256_and_ps(_mm256_cmp_ps(frac, _mm256_set1_ps(0.5f), _CMP_GE_OQ), one));
  t = _mm256_sub_ps(t, _mm256_and_ps(_mm256_cmp_ps(frac, _mm256_set1_ps(-0.5f), _CMP_LE_OQ), one));
  return _mm256_cvttps_epi32(t);
}

// 32 int32 in [-128, 127] (4 vectors, in order) to 32 int8 at `out`.
inline void StoreInt8x32(const __m256i* q, int8_t* out) {
  const __m256i p =
      _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
  // The packs interleave 128-bit lanes: dwords 0, 4, 1, 5, 2, 6, 3, 7 hold the values in order.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7)));
}

// QuantizeRowQ8_0S: per block of 32, d = amax / 127, q = roundf(x / d) (as x * (1 / d)), d stored
// fp16-rounded, and the block's sum.
template <Isa kIsa>
void QuantizeRowQ8_0SY(const float* x, int64_t k, uint8_t* out) {
  const int64_t nb = k / 32, nbp = Q8_0SPaddedBlocks(k);
  int8_t* qs = reinterpret_cast<int8_t*>(out);
  float* d = reinterpret_cast<float*>(out + nbp * 32);
  int32_t* sum = reinterpret_cast<int32_t*>(out + nbp * 36);
  for (int64_t b = 0; b < nb; ++b) {
    __m256 v[4];
    __m256 amax8 = _mm256_setzero_ps();
    for (int i = 0; i < 4; ++i) {
      v[i] = _mm256_loadu_ps(x + 32 * b + 8 * i);
      amax8 = _mm256_max_ps(amax8, AbsY(v[i]));
    }
    const float db = HMaxY(amax8) / 127.0f;
    const __m256 id = _mm256_set1_ps(db != 0.0f ? 1.0f / db : 0.0f);
    __m256i q[4];
    for (int i = 0; i < 4; ++i) q[i] = RoundAwayY(_mm256_mul_ps(v[i], id));
    StoreInt8x32(q, qs + 32 * b);
    d[b] = blocks::Fp16ToFloat(blocks::FloatToFp16(db));
    sum[b] = HSumY(_mm256_add_epi32(_mm256_add_epi32(q[0], q[1]), _mm256_add_epi32(q[2], q[3])));
  }
  ZeroPadBlocksQ8_0S(k, out);
}

// QuantizeRowQ8_KX: GGML's quantize_row_q8_K (the first value of largest magnitude sets the scale;
// nearest_int rounds half to even like vcvtps2dq) with Q8_KX's sums.
template <Isa kIsa>
void QuantizeRowQ8_KXY(const float* x, int64_t k, uint8_t* out) {
  BlockQ8_KX* y = reinterpret_cast<BlockQ8_KX*>(out);
  for (int64_t i = 0; i < k / 256; ++i, x += 256) {
    __m256 amax8 = _mm256_setzero_ps();
    for (int t = 0; t < 32; ++t) amax8 = _mm256_max_ps(amax8, AbsY(_mm256_loadu_ps(x + 8 * t)));
    const float amax = HMaxY(amax8);
    if (amax == 0.0f) {
      SetZeroBlockQ8_KX(&y[i]);
      continue;
    }
    float max = 0.0f;
    for (int t = 0; t < 32; ++t) {
      const int eq = _mm256_movemask_ps(
          _mm256_cmp_ps(AbsY(_mm256_loadu_ps(x + 8 * t)), _mm256_set1_ps(amax), _CMP_EQ_OQ));
      if (eq != 0) {
        max = x[8 * t + __builtin_ctz(eq)];
        break;
      }
    }
    const float iscale = -127.f / max;
    const __m256 is = _mm256_set1_ps(iscale);
    int32_t bsum16[16];
    for (int t = 0; t < 8; ++t) {  // 32 values at a time
      __m256i q[4];
      for (int j = 0; j < 4; ++j) {
        q[j] = _mm256_min_epi32(
            _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + 32 * t + 8 * j), is)),
            _mm256_set1_epi32(127));
      }
      StoreInt8x32(q, y[i].qs + 32 * t);
      bsum16[2 * t] = HSumY(_mm256_add_epi32(q[0], q[1]));
      bsum16[2 * t + 1] = HSumY(_mm256_add_epi32(q[2], q[3]));
    }
    FinishBlockQ8_KX(bsum16, 1 / iscale, &y[i]);
  }
}

// Half h of two 64-byte nibble chunks of a 32-value sub-block part as 4 level vectors, in the quad
// order NibbleQuad gives.
inline void Nibbles2Y(const uint8_t* p, int h, __m256i* w) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i v0 = LoadY(p + 32 * h), v1 = LoadY(p + 64 + 32 * h);
  w[0] = _mm256_and_si256(v0, m4);
  w[1] = _mm256_and_si256(_mm256_srli_epi16(v0, 4), m4);
  w[2] = _mm256_and_si256(v1, m4);
  w[3] = _mm256_and_si256(_mm256_srli_epi16(v1, 4), m4);
}

// P (the encoding) provides:
//   kBlockElems (values per tile), kSubs (sub-blocks per tile), kParts (a sub-block's quads come in
//   kParts parts of 4 vectors), kTileBytes, kM (activation rows per GEMM tile); static constexpr
//   int Quad(int part, int i): which quad of the sub-block vector i of a part is; struct Block,
//   constructed from one tile, with
//     void Weights(int s, int part, int h, __m256i w[4]) const;  // unsigned levels of half h
//     __m256 SubScale(int s, int h) const;  // per-row float scale of sub-block s
//     __m256 Correct(__m256 acc, const uint8_t* x, int64_t b, __m256 dx, int h) const;
//   static int32_t SubInit(const uint8_t* x, int64_t k, int64_t b, int s);  // isum start
//   and the activation views (ActQ8_KX or ActQ8_0SPairs: Qs, ActScale, Blocks).
// Rows 8 * h0 .. 8 * (h0 + H) - 1 of a group (`rows` of its 16 are real) x M activation rows.
template <typename P, typename D, int M, int H>
inline void Y16Tile(const uint8_t* wg, int h0, int rows, const uint8_t* x, size_t xrb, int64_t k,
                    float* y, int64_t ys) {
  constexpr int kSubElems = P::kBlockElems / P::kSubs;
  const int64_t nb = P::Blocks(k);
  __m256 acc[M][H];
  EDGEQ_UNROLL
  for (int a = 0; a < M; ++a) {
    EDGEQ_UNROLL
    for (int hh = 0; hh < H; ++hh) acc[a][hh] = _mm256_setzero_ps();
  }
  // GEMV streams the weights once: each sub-block step prefetches its share of the tile two
  // blocks ahead (as X16Tile does).
  constexpr int kLinesPerSub =
      static_cast<int>((P::kTileBytes + 63) / 64 + P::kSubs - 1) / P::kSubs;
  for (int64_t b = 0; b < nb; ++b) {
    const typename P::Block blk(wg + b * P::kTileBytes);
    const uint8_t* ahead = wg + (b + 2) * P::kTileBytes;
    for (int s = 0; s < P::kSubs; ++s) {
      if constexpr (M == 1) {
        EDGEQ_UNROLL
        for (int l = 0; l < kLinesPerSub; ++l) {
          _mm_prefetch(reinterpret_cast<const char*>(ahead + 64 * (s * kLinesPerSub + l)),
                       _MM_HINT_T0);
        }
      }
      __m256i isum[M][H];
      EDGEQ_UNROLL
      for (int a = 0; a < M; ++a) {
        const __m256i init = _mm256_set1_epi32(P::SubInit(x + a * xrb, k, b, s));
        EDGEQ_UNROLL
        for (int hh = 0; hh < H; ++hh) isum[a][hh] = init;
      }
      EDGEQ_UNROLL
      for (int part = 0; part < P::kParts; ++part) {
        EDGEQ_UNROLL
        for (int hh = 0; hh < H; ++hh) {
          __m256i w[4];
          blk.Weights(s, part, h0 + hh, w);
          EDGEQ_UNROLL
          for (int a = 0; a < M; ++a) {
            const int8_t* xq = P::Qs(x + a * xrb, k, b) + s * kSubElems;
            __m256i xb[4];
            EDGEQ_UNROLL
            for (int i = 0; i < 4; ++i) xb[i] = Broadcast4Y(xq + 4 * P::Quad(part, i));
            isum[a][hh] = D::Acc(isum[a][hh], w, xb);
          }
        }
      }
      EDGEQ_UNROLL
      for (int hh = 0; hh < H; ++hh) {
        const __m256 scale = blk.SubScale(s, h0 + hh);
        EDGEQ_UNROLL
        for (int a = 0; a < M; ++a) {
          const __m256 dx = _mm256_set1_ps(P::ActScale(x + a * xrb, k, b, s));
          acc[a][hh] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[a][hh]), _mm256_mul_ps(scale, dx),
                                       acc[a][hh]);
        }
      }
    }
    EDGEQ_UNROLL
    for (int a = 0; a < M; ++a) {
      const uint8_t* xa = x + a * xrb;
      const __m256 dx = _mm256_set1_ps(P::ActScale(xa, k, b, 0));
      EDGEQ_UNROLL
      for (int hh = 0; hh < H; ++hh) acc[a][hh] = blk.Correct(acc[a][hh], xa, b, dx, h0 + hh);
    }
  }
  EDGEQ_UNROLL
  for (int hh = 0; hh < H; ++hh) {
    const int valid = rows - 8 * (h0 + hh);
    const __m256i mask =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(valid), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    EDGEQ_UNROLL
    for (int a = 0; a < M; ++a) {
      float* out = y + a * ys + 8 * (h0 + hh);
      if (valid >= 8) {
        _mm256_storeu_ps(out, acc[a][hh]);
      } else {
        _mm256_maskstore_ps(out, mask, acc[a][hh]);
      }
    }
  }
}

// The last m % kM activation rows of a half, as tiles of kM / 2, ..., 1 rows (as X16Rest).
template <typename P, typename D, int R>
inline void Y16Rest(int rest, const uint8_t* wg, int h, int rows, const uint8_t* x, size_t xrb,
                    int64_t k, float* y, int64_t ys) {
  if constexpr (R > 0) {
    if (rest & R) {
      Y16Tile<P, D, R, 1>(wg, h, rows, x, xrb, k, y, ys);
      x += R * xrb;
      y += R * ys;
    }
    Y16Rest<P, D, R / 2>(rest, wg, h, rows, x, xrb, k, y, ys);
  }
}

// MatmulFn for GEMV and GEMM: rows j0..j1 (j0 a multiple of 16, as every task's start is when
// the entry's tile_n is), all m activation rows.
template <typename P, typename D>
void Y16Matmul(const MatmulParams& p, int64_t j0, int64_t j1) {
  static_assert(P::kM > 0 && (P::kM & (P::kM - 1)) == 0, "kM must be a power of 2");
  const size_t group_bytes = kX16Rows * p.w_row_bytes;
  for (int64_t j = j0; j < j1; j += kX16Rows) {
    const uint8_t* wg = p.w + (j / kX16Rows) * group_bytes;
    const int rows = static_cast<int>(j1 - j < kX16Rows ? j1 - j : kX16Rows);
    float* yj = p.y + j;
    if (p.m == 1) {
      if (rows > 8) {
        Y16Tile<P, D, 1, 2>(wg, 0, rows, p.xq, p.xq_row_bytes, p.k, yj, p.y_stride);
      } else {
        Y16Tile<P, D, 1, 1>(wg, 0, rows, p.xq, p.xq_row_bytes, p.k, yj, p.y_stride);
      }
      continue;
    }
    for (int h = 0; 8 * h < rows; ++h) {
      int64_t i = 0;
      for (; i + P::kM <= p.m; i += P::kM) {
        Y16Tile<P, D, P::kM, 1>(wg, h, rows, p.xq + i * p.xq_row_bytes, p.xq_row_bytes, p.k,
                                yj + i * p.y_stride, p.y_stride);
      }
      Y16Rest<P, D, P::kM / 2>(static_cast<int>(p.m - i), wg, h, rows, p.xq + i * p.xq_row_bytes,
                               p.xq_row_bytes, p.k, yj + i * p.y_stride, p.y_stride);
    }
  }
}

// Q4_K/Q5_K scales and mins at `at` (the tail of their tiles; see repack_x16.h): the 8 sub-block
// scales and 8 mins per row as bytes ([s][row]), then fp16 d[row] and dmin[row].
struct KScalesY16 {
  const uint8_t* at;
  explicit KScalesY16(const uint8_t* p) : at(p) {}
  __m256 SubScale(int s, int h) const {
    const __m128i sc = _mm_loadl_epi64(
        reinterpret_cast<const __m128i*>(at + internal::x16::KScales::kScales + 16 * s + 8 * h));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(sc)),
                         _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
                             at + internal::x16::KScales::kD + 16 * h))));
  }
  // acc - dmin * dx * sum over sub-blocks of min * (sum of the sub-block's 32 activations): the
  // mins of sub-blocks 2j and 2j + 1 interleaved per row into int16 pairs for vpmaddwd.
  __m256 Correct(__m256 acc, const uint8_t* x, int64_t b, __m256 dx, int h) const {
    const int16_t* bs = ActQ8_KX::Blk(x, b).bsum32;
    const uint8_t* mins = at + internal::x16::KScales::kMins + 8 * h;
    __m256i m = _mm256_setzero_si256();
    for (int j = 0; j < 4; ++j) {
      const __m128i lo = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(mins + 32 * j));
      const __m128i hi = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(mins + 32 * j + 16));
      int32_t pair;
      std::memcpy(&pair, bs + 2 * j, sizeof(pair));
      m = _mm256_add_epi32(m, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(lo, hi)),
                                                _mm256_set1_epi32(pair)));
    }
    const __m256 dmin = _mm256_cvtph_ps(_mm_loadu_si128(
        reinterpret_cast<const __m128i*>(at + internal::x16::KScales::kDmin + 16 * h)));
    return _mm256_fnmadd_ps(_mm256_cvtepi32_ps(m), _mm256_mul_ps(dmin, dx), acc);
  }
};

// Q4_K (kHighBits = false) and Q5_K (true): nibbles [, 5th-bit planes], then KScalesY16.
template <bool kHighBits>
struct K45Y16 : ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 8, kParts = 2, kM = 4;
  static constexpr size_t kTileBytes = kHighBits ? kQ5_KX16TileBytes : kQ4_KX16TileBytes;
  static constexpr size_t kScalesAt =
      kHighBits ? internal::x16::Q5_K::kScalesAt : internal::x16::Q4_K::kScalesAt;

  struct Block {
    const uint8_t* t;
    KScalesY16 scales;
    explicit Block(const uint8_t* tile) : t(tile), scales(tile + kScalesAt) {}
    void Weights(int s, int part, int h, __m256i* w) const {
      Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
      if constexpr (kHighBits) {
        // Bit 4 part + i of byte p of the plane is the 5th bit of byte p of w[i]: moved to bit 4
        // (16-bit shifts by at most 4 keep bit 4 of every byte from its own byte) and or'ed in.
        const __m256i c16 = _mm256_set1_epi8(16);
        const __m256i hb = LoadY(t + internal::x16::Q5_K::kHighBits +
                                 internal::x16::Q5_K::kHighBitsPerSub * s + 32 * h);
        EDGEQ_UNROLL
        for (int i = 0; i < 4; ++i) {
          const __m256i bit = part == 0 ? _mm256_slli_epi16(hb, 4 - i) : _mm256_srli_epi16(hb, i);
          w[i] = _mm256_or_si256(w[i], _mm256_and_si256(bit, c16));
        }
      }
    }
    __m256 SubScale(int s, int h) const { return scales.SubScale(s, h); }
    __m256 Correct(__m256 acc, const uint8_t* x, int64_t b, __m256 dx, int h) const {
      return scales.Correct(acc, x, b, dx, h);
    }
  };
  static constexpr int Quad(int part, int i) { return NibbleQuad(part, i); }
  static int32_t SubInit(const uint8_t*, int64_t, int64_t, int) { return 0; }
};

// Q6_K: 6-bit levels 0..63 (nibble chunks + a 2-bit plane), 16 sub-blocks of 16 values (4 quads),
// int8 scales [s][row], fp16 d[row];
// each sub-block's sum starts at -32 * (sum of its 16 activations), which removes the level offset.
struct Q6_KY16 : ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 16, kParts = 1, kM = 4;
  static constexpr size_t kTileBytes = kQ6_KX16TileBytes;

  struct Block {
    const uint8_t* t;
    explicit Block(const uint8_t* tile) : t(tile) {}
    void Weights(int s, int /*part*/, int h, __m256i* w) const {
      using L = internal::x16::Q6_K;
      const __m256i m4 = _mm256_set1_epi8(0x0F), m30 = _mm256_set1_epi8(0x30);
      const uint8_t* nib = t + L::kNibbles16Bytes * s + 32 * h;
      const __m256i c0 = LoadY(nib), c1 = LoadY(nib + internal::x16::kQuadBytes);
      const __m256i hb = LoadY(t + L::kHighBits + internal::x16::kQuadBytes * s + 32 * h);
      // Bits 2q..2q+1 of each byte moved to bits 4-5 (16-bit shifts: the bits that cross into a
      // byte from its neighbour land outside 0x30).
      w[0] = _mm256_or_si256(_mm256_and_si256(c0, m4),
                             _mm256_and_si256(_mm256_slli_epi16(hb, 4), m30));
      w[1] = _mm256_or_si256(_mm256_and_si256(c1, m4),
                             _mm256_and_si256(_mm256_slli_epi16(hb, 2), m30));
      w[2] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(c0, 4), m4),
                             _mm256_and_si256(hb, m30));
      w[3] = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(c1, 4), m4),
                             _mm256_and_si256(_mm256_srli_epi16(hb, 2), m30));
    }
    __m256 SubScale(int s, int h) const {
      const __m128i sc = _mm_loadl_epi64(
          reinterpret_cast<const __m128i*>(t + internal::x16::Q6_K::kScales + 16 * s + 8 * h));
      return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(sc)),
                           _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
                               t + internal::x16::Q6_K::kD + 16 * h))));
    }
    __m256 Correct(__m256 acc, const uint8_t*, int64_t, __m256, int) const { return acc; }
  };
  static constexpr int Quad(int /*part*/, int i) { return i; }
  static int32_t SubInit(const uint8_t* x, int64_t /*k*/, int64_t b, int s) {
    return Blk(x, b).neg32_bsum16[s];
  }
};

// Q4_0 and Q8_0: two 32-value blocks per tile (the sub-blocks), their fp16 d[s][row] at kDAt; each
// block's sum starts at -kBias * (sum of its activations), which removes the level offset. The
// encoding's Block derives from PairBlock and adds Weights.
template <size_t kTile, size_t kDAt, int kBias>
struct PairY16 : ActQ8_0SPairs {
  static constexpr int kBlockElems = 64, kSubs = 2, kParts = 2, kM = 4;
  static constexpr size_t kTileBytes = kTile;

  struct PairBlock {
    const uint8_t* t;
    explicit PairBlock(const uint8_t* tile) : t(tile) {}
    __m256 SubScale(int s, int h) const {
      return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(
          t + kDAt + internal::x16::kHalfPerRowBytes * s + 16 * h)));
    }
    __m256 Correct(__m256 acc, const uint8_t*, int64_t, __m256, int) const { return acc; }
  };
  static int32_t SubInit(const uint8_t* x, int64_t k, int64_t b, int s) {
    return -kBias * Sum(x, k, b, s);
  }
};

// Q4_0: levels 0..15 (value = level - 8) as nibble chunks.
struct Q4_0Y16 : PairY16<kQ4_0X16TileBytes, internal::x16::Q4_0::kD, 8> {
  struct Block : PairBlock {
    using PairBlock::PairBlock;
    void Weights(int s, int part, int h, __m256i* w) const {
      Nibbles2Y(t + internal::x16::NibblesPart(s, part), h, w);
    }
  };
  static constexpr int Quad(int part, int i) { return NibbleQuad(part, i); }
};

// Q8_0, stored as w + 128 (uint8). kSigned = false (VNNI): those bytes, each block's sum starting
// at -128 * (sum of its activations). kSigned = true (AVX2, whose vpmaddubsw pairs would saturate
// on them): the signed w (the stored byte ^ 0x80), for SignedMaddQuads.
template <bool kSigned>
struct Q8_0Y16 : PairY16<kQ8_0X16TileBytes, internal::x16::Q8_0::kD, kSigned ? 0 : 128> {
  using Base = PairY16<kQ8_0X16TileBytes, internal::x16::Q8_0::kD, kSigned ? 0 : 128>;
  struct Block : Base::PairBlock {
    using Base::PairBlock::PairBlock;
    void Weights(int s, int part, int h, __m256i* w) const {
      const uint8_t* p = this->t + internal::x16::Levels32Part(s, part) + 32 * h;
      EDGEQ_UNROLL
      for (int i = 0; i < 4; ++i) {
        w[i] = LoadY(p + 64 * i);
        if constexpr (kSigned) w[i] = _mm256_xor_si256(w[i], _mm256_set1_epi8(-128));
      }
    }
  };
  static constexpr int Quad(int part, int i) { return 4 * part + i; }
};

// AVX2's byte dot of signed weights (Q8_0Y16<true>): vpmaddubsw(|w|, x with w's sign) pairs (at
// most 2 * 128 * 127 = 32512: no saturation), each widened by vpmaddwd into int32 and added in
// order (KeepOrder).
struct SignedMaddQuads {
  static inline __m256i Acc(__m256i acc, const __m256i* w, const __m256i* x) {
    const __m256i ones = _mm256_set1_epi16(1);
    EDGEQ_UNROLL
    for (int i = 0; i < 4; ++i) {
      const __m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(w[i]), _mm256_sign_epi8(x[i], w[i]));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
      KeepOrder(acc);
    }
    return acc;
  }
};

// The AVX2 Q8_0 GEMM over a whole 16-row group (`rows` > 8 of them real) x M activation rows. Each
// activation quad is broadcast once and used for both halves (a broadcast load takes a vector
// pipe on these cores, as the sign, the two multiplies and the add do: five such operations per
// 32 products with one broadcast per half, four and a half here), and each integer sum is added
// in order (KeepOrder). The same int32 sums and float steps as Y16Tile<Q8_0Y16<true>,
// SignedMaddQuads, M, 1> on each half: the same outputs, bit for bit.
template <int M>
inline void Q8_0SignedGroupTile(const uint8_t* wg, int rows, const uint8_t* x, size_t xrb,
                                int64_t k, float* y, int64_t ys) {
  using P = Q8_0Y16<true>;
  namespace x16 = internal::x16;
  const int64_t nb = P::Blocks(k);
  const __m256i ones = _mm256_set1_epi16(1), flip = _mm256_set1_epi8(-128);
  __m256 acc[M][2];
  EDGEQ_UNROLL
  for (int a = 0; a < M; ++a) acc[a][0] = acc[a][1] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    const uint8_t* tile = wg + b * P::kTileBytes;
    for (int s = 0; s < P::kSubs; ++s) {
      const int8_t* xq[M];
      __m256i isum[M][2];
      EDGEQ_UNROLL
      for (int a = 0; a < M; ++a) {
        xq[a] = P::Qs(x + a * xrb, k, b) + 32 * s;
        isum[a][0] = isum[a][1] = _mm256_setzero_si256();
      }
      const uint8_t* wq = tile + x16::kLevels32Bytes * s;
      EDGEQ_UNROLL
      for (int q = 0; q < 8; ++q) {
        const __m256i w0 = _mm256_xor_si256(LoadY(wq + x16::kQuadBytes * q), flip);
        const __m256i w1 = _mm256_xor_si256(LoadY(wq + x16::kQuadBytes * q + 32), flip);
        const __m256i u0 = _mm256_abs_epi8(w0), u1 = _mm256_abs_epi8(w1);
        EDGEQ_UNROLL
        for (int a = 0; a < M; ++a) {
          const __m256i xb = Broadcast4Y(xq[a] + 4 * q);
          isum[a][0] = _mm256_add_epi32(
              isum[a][0],
              _mm256_madd_epi16(_mm256_maddubs_epi16(u0, _mm256_sign_epi8(xb, w0)), ones));
          KeepOrder(isum[a][0]);
          isum[a][1] = _mm256_add_epi32(
              isum[a][1],
              _mm256_madd_epi16(_mm256_maddubs_epi16(u1, _mm256_sign_epi8(xb, w1)), ones));
          KeepOrder(isum[a][1]);
        }
      }
      const __m256 d0 = _mm256_cvtph_ps(_mm_loadu_si128(
          reinterpret_cast<const __m128i*>(tile + x16::Q8_0::kD + x16::kHalfPerRowBytes * s)));
      const __m256 d1 = _mm256_cvtph_ps(_mm_loadu_si128(
          reinterpret_cast<const __m128i*>(tile + x16::Q8_0::kD + x16::kHalfPerRowBytes * s + 16)));
      EDGEQ_UNROLL
      for (int a = 0; a < M; ++a) {
        const __m256 dx = _mm256_set1_ps(P::ActScale(x + a * xrb, k, b, s));
        acc[a][0] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[a][0]), _mm256_mul_ps(d0, dx), acc[a][0]);
        acc[a][1] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum[a][1]), _mm256_mul_ps(d1, dx), acc[a][1]);
      }
    }
  }
  const __m256i mask =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(rows - 8), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  EDGEQ_UNROLL
  for (int a = 0; a < M; ++a) {
    _mm256_storeu_ps(y + a * ys, acc[a][0]);
    if (rows >= 16) {
      _mm256_storeu_ps(y + a * ys + 8, acc[a][1]);
    } else {
      _mm256_maskstore_ps(y + a * ys + 8, mask, acc[a][1]);
    }
  }
}

// MatmulFn of the AVX2 Q8_0 kernel: GEMM groups of more than 8 real rows by
// Q8_0SignedGroupTile (4 activation rows at a time, then 2, then 1); GEMV and groups of up to 8
// rows by Y16Matmul.
inline void Q8_0SignedMatmul(const MatmulParams& p, int64_t j0, int64_t j1) {
  const size_t group_bytes = kX16Rows * p.w_row_bytes;
  for (int64_t j = j0; j < j1; j += kX16Rows) {
    const int rows = static_cast<int>(j1 - j < kX16Rows ? j1 - j : kX16Rows);
    if (p.m == 1 || rows <= 8) {
      Y16Matmul<Q8_0Y16<true>, SignedMaddQuads>(p, j, j + rows);
      continue;
    }
    const uint8_t* wg = p.w + (j / kX16Rows) * group_bytes;
    const uint8_t* x = p.xq;
    float* y = p.y + j;
    int64_t i = 0;
    for (; i + 4 <= p.m; i += 4, x += 4 * p.xq_row_bytes, y += 4 * p.y_stride) {
      Q8_0SignedGroupTile<4>(wg, rows, x, p.xq_row_bytes, p.k, y, p.y_stride);
    }
    if (p.m - i >= 2) {
      Q8_0SignedGroupTile<2>(wg, rows, x, p.xq_row_bytes, p.k, y, p.y_stride);
      i += 2, x += 2 * p.xq_row_bytes, y += 2 * p.y_stride;
    }
    if (p.m - i == 1) Q8_0SignedGroupTile<1>(wg, rows, x, p.xq_row_bytes, p.k, y, p.y_stride);
  }
}

}  // namespace
}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_AVX2_X16_H_
