// The 16-row AVX-512 VNNI driver of the X16 weight layouts (internal/repack_x16.h), shared by the
// AVX-512 kernel files and inlined with their flags (include it only from AVX-512 VNNI files).
//
// One output vector holds 16 weight rows for one activation row, so nothing is summed
// horizontally. Per (sub-)block and activation row: vpdpbusd of the 16 rows' quads (unsigned
// levels) against 4 broadcast activation bytes (signed) accumulate exact int32 lanes, converted
// once per sub-block and scaled by the row's sub-block scale times the activation's block scale;
// per block the encoding's correction (mins) is subtracted. GEMM tiles take P::kM activation rows
// at a time, so every weight vector decoded is used kM times.
#ifndef EDGEQ_RUNTIME_KERNELS_X86_AVX512_X16_H_
#define EDGEQ_RUNTIME_KERNELS_X86_AVX512_X16_H_

#include <immintrin.h>

#include <algorithm>
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

// 4 activation bytes broadcast to every 32-bit lane (folds into vpdpbusd's {1to16} operand).
inline __m512i Broadcast4(const int8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return _mm512_set1_epi32(v);
}

// Horizontal sum (not _mm512_reduce_add_ps, which trips GCC 12's -Wmaybe-uninitialized).
inline float Sum(__m512 a) {
  __m512 h = _mm512_add_ps(a, _mm512_shuffle_f32x4(a, a, 0x4E));
  h = _mm512_add_ps(h, _mm512_shuffle_f32x4(h, h, 0xB1));
  const __m128 q = _mm512_castps512_ps128(h);
  const __m128 q2 = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q2, _mm_movehdup_ps(q2)));
}

inline float HMax(__m512 a) {
  __m512 h = _mm512_max_ps(a, _mm512_shuffle_f32x4(a, a, 0x4E));
  h = _mm512_max_ps(h, _mm512_shuffle_f32x4(h, h, 0xB1));
  const __m128 q = _mm512_castps512_ps128(h);
  const __m128 q2 = _mm_max_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_max_ss(q2, _mm_movehdup_ps(q2)));
}

inline int32_t HSumI32(__m512i a) {
  __m512i h = _mm512_add_epi32(a, _mm512_shuffle_i32x4(a, a, 0x4E));
  h = _mm512_add_epi32(h, _mm512_shuffle_i32x4(h, h, 0xB1));
  const __m128i q = _mm512_castsi512_si128(h);
  const __m128i q2 = _mm_add_epi32(q, _mm_unpackhi_epi64(q, q));
  return _mm_cvtsi128_si32(_mm_add_epi32(q2, _mm_shuffle_epi32(q2, 0x55)));
}

// roundf (ties away from zero) of floats of magnitude < 2^23, as int32: exact, by truncation and
// the sign of the (exact) remainder.
inline __m512i RoundAway(__m512 v) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 t = _mm512_roundscale_ps(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512 frac = _mm512_sub_ps(v, t);
  t = _mm512_mask_add_ps(t, _mm512_cmp_ps_mask(frac, _mm512_set1_ps(0.5f), _CMP_GE_OQ), t, one);
  t = _mm512_mask_sub_ps(t, _mm512_cmp_ps_mask(frac, _mm512_set1_ps(-0.5f), _CMP_LE_OQ), t, one);
  return _mm512_cvttps_epi32(t);
}

// QuantizeRowQ8_0S with AVX-512, bit-identical to it (the same amax, d = amax / 127, roundf of
// x / d, fp16-rounded d and sums).
inline void QuantizeRowQ8_0SAvx512(const float* x, int64_t k, uint8_t* out) {
  const int64_t nb = k / 32, nbp = Q8_0SPaddedBlocks(k);
  int8_t* qs = reinterpret_cast<int8_t*>(out);
  float* d = reinterpret_cast<float*>(out + nbp * 32);
  int32_t* sum = reinterpret_cast<int32_t*>(out + nbp * 36);
  for (int64_t b = 0; b < nb; ++b) {
    const __m512 v0 = _mm512_loadu_ps(x + 32 * b), v1 = _mm512_loadu_ps(x + 32 * b + 16);
    const float amax = HMax(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
    const float db = amax / 127.0f;
    const __m512 id = _mm512_set1_ps(db != 0.0f ? 1.0f / db : 0.0f);
    const __m512i q0 = RoundAway(_mm512_mul_ps(v0, id)), q1 = RoundAway(_mm512_mul_ps(v1, id));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + 32 * b), _mm512_cvtepi32_epi8(q0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + 32 * b + 16), _mm512_cvtepi32_epi8(q1));
    d[b] = blocks::Fp16ToFloat(blocks::FloatToFp16(db));
    sum[b] = HSumI32(_mm512_add_epi32(q0, q1));
  }
  ZeroPadBlocksQ8_0S(k, out);
}

// QuantizeRowQ8_KX with AVX-512, bit-identical to it (GGML's quantize_row_q8_K: the first value of
// largest magnitude sets the scale, nearest_int rounds half to even like vcvtps2dq).
inline void QuantizeRowQ8_KXAvx512(const float* x, int64_t k, uint8_t* out) {
  BlockQ8_KX* y = reinterpret_cast<BlockQ8_KX*>(out);
  for (int64_t i = 0; i < k / 256; ++i, x += 256) {
    __m512 amax16 = _mm512_setzero_ps();
    for (int t = 0; t < 16; ++t)
      amax16 = _mm512_max_ps(amax16, _mm512_abs_ps(_mm512_loadu_ps(x + 16 * t)));
    const float amax = HMax(amax16);
    if (amax == 0.0f) {
      SetZeroBlockQ8_KX(&y[i]);
      continue;
    }
    float max = 0.0f;
    for (int t = 0; t < 16; ++t) {
      const __mmask16 eq = _mm512_cmp_ps_mask(_mm512_abs_ps(_mm512_loadu_ps(x + 16 * t)),
                                              _mm512_set1_ps(amax), _CMP_EQ_OQ);
      if (eq != 0) {
        max = x[16 * t + __builtin_ctz(eq)];
        break;
      }
    }
    const float iscale = -127.f / max;
    const __m512 is = _mm512_set1_ps(iscale);
    int32_t bsum16[16];
    for (int t = 0; t < 16; ++t) {
      const __m512i q =
          _mm512_min_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(x + 16 * t), is)),
                           _mm512_set1_epi32(127));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y[i].qs + 16 * t), _mm512_cvtepi32_epi8(q));
      bsum16[t] = HSumI32(q);
    }
    FinishBlockQ8_KX(bsum16, 1 / iscale, &y[i]);
  }
}

// P (the encoding) provides:
//   kBlockElems, kSubs (sub-blocks per block), kTileBytes, kM (activation rows per GEMM tile);
//   kParts, kPartQuads: a sub-block's quads are decoded in kParts parts of kPartQuads vectors,
//   static constexpr int Quad(int part, int i): which quad of the sub-block vector i of a part is;
//   struct Block, constructed from one tile, with
//     void Weights(int s, int part, __m512i w[kPartQuads]) const;  // unsigned levels
//     __m512 SubScale(int s) const;  // per-row float scale of sub-block s
//     __m512 Correct(__m512 acc, const uint8_t* x, int64_t k, int64_t b, __m512 dx) const;
//   static const int8_t* Qs(const uint8_t* x, int64_t k, int64_t b);  // block b's int8 values
//   static __m512i SubInit(const uint8_t* x, int64_t k, int64_t b, int s);  // isum start
//   static float ActScale(const uint8_t* x, int64_t k, int64_t b, int s);  // of sub-block s
//   static int64_t Blocks(int64_t k);
template <typename P, int M>
inline void X16Tile(const uint8_t* wg, const uint8_t* x, size_t xrb, int64_t k, float* y,
                    int64_t ys, __mmask16 mask) {
  const int64_t nb = P::Blocks(k);
  constexpr int kSubElems = P::kBlockElems / P::kSubs;
  __m512 acc[M];
  EDGEQ_UNROLL
  for (int a = 0; a < M; ++a) acc[a] = _mm512_setzero_ps();
  // GEMV streams the weights once: each sub-block step prefetches its share of the tile at least
  // 4 KiB (and two tiles) ahead (past the row group's end it reaches into the next group, which
  // follows it).
  constexpr int kLinesPerSub =
      static_cast<int>((P::kTileBytes + 63) / 64 + P::kSubs - 1) / P::kSubs;
  constexpr int64_t kAheadTiles =
      std::max<int64_t>(2, (4096 + static_cast<int64_t>(P::kTileBytes) - 1) / P::kTileBytes);
  for (int64_t b = 0; b < nb; ++b) {
    const typename P::Block blk(wg + b * P::kTileBytes);
    const uint8_t* ahead = wg + (b + kAheadTiles) * P::kTileBytes;
    for (int s = 0; s < P::kSubs; ++s) {
      if constexpr (M == 1) {
        EDGEQ_UNROLL
        for (int l = 0; l < kLinesPerSub; ++l) {
          _mm_prefetch(reinterpret_cast<const char*>(ahead + 64 * (s * kLinesPerSub + l)),
                       _MM_HINT_T0);
        }
      }
      __m512i isum[M];
      EDGEQ_UNROLL
      for (int a = 0; a < M; ++a) isum[a] = P::SubInit(x + a * xrb, k, b, s);
      for (int part = 0; part < P::kParts; ++part) {
        __m512i w[P::kPartQuads];
        blk.Weights(s, part, w);
        EDGEQ_UNROLL
        for (int a = 0; a < M; ++a) {
          const int8_t* xq = P::Qs(x + a * xrb, k, b) + s * kSubElems;
          EDGEQ_UNROLL
          for (int i = 0; i < P::kPartQuads; ++i) {
            isum[a] = _mm512_dpbusd_epi32(isum[a], w[i], Broadcast4(xq + 4 * P::Quad(part, i)));
          }
        }
      }
      const __m512 scale = blk.SubScale(s);
      EDGEQ_UNROLL
      for (int a = 0; a < M; ++a) {
        const __m512 dx = _mm512_set1_ps(P::ActScale(x + a * xrb, k, b, s));
        acc[a] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum[a]), _mm512_mul_ps(scale, dx), acc[a]);
      }
    }
    EDGEQ_UNROLL
    for (int a = 0; a < M; ++a) {
      const uint8_t* xa = x + a * xrb;
      acc[a] = blk.Correct(acc[a], xa, k, b, _mm512_set1_ps(P::ActScale(xa, k, b, 0)));
    }
  }
  EDGEQ_UNROLL
  for (int a = 0; a < M; ++a) _mm512_mask_storeu_ps(y + a * ys, mask, acc[a]);
}

// The last m % kM activation rows of a row group, as tiles of kM / 2, kM / 4, ..., 1 rows (the
// binary digits of the rest: log2(kM) tail tiles compiled instead of kM - 1; kM a power of 2).
template <typename P, int R>
inline void X16Rest(int rest, const uint8_t* wg, const uint8_t* x, size_t xrb, int64_t k, float* y,
                    int64_t ys, __mmask16 mask) {
  if constexpr (R > 0) {
    if (rest & R) {
      X16Tile<P, R>(wg, x, xrb, k, y, ys, mask);
      x += R * xrb;
      y += R * ys;
    }
    X16Rest<P, R / 2>(rest, wg, x, xrb, k, y, ys, mask);
  }
}

// MatmulFn for GEMV and GEMM: rows j0..j1 (j0 a multiple of 16, as every task's start is when
// the entry's tile_n is), all m activation rows.
template <typename P>
void X16Matmul(const MatmulParams& p, int64_t j0, int64_t j1) {
  static_assert(P::kM > 0 && (P::kM & (P::kM - 1)) == 0, "kM must be a power of 2");
  const size_t group_bytes = kX16Rows * p.w_row_bytes;
  for (int64_t j = j0; j < j1; j += kX16Rows) {
    const uint8_t* wg = p.w + (j / kX16Rows) * group_bytes;
    const int rows = static_cast<int>(j1 - j < kX16Rows ? j1 - j : kX16Rows);
    const __mmask16 mask = static_cast<__mmask16>((1u << rows) - 1);
    int64_t i = 0;
    for (; i + P::kM <= p.m; i += P::kM) {
      X16Tile<P, P::kM>(wg, p.xq + i * p.xq_row_bytes, p.xq_row_bytes, p.k,
                        p.y + i * p.y_stride + j, p.y_stride, mask);
    }
    X16Rest<P, P::kM / 2>(static_cast<int>(p.m - i), wg, p.xq + i * p.xq_row_bytes, p.xq_row_bytes,
                          p.k, p.y + i * p.y_stride + j, p.y_stride, mask);
  }
}

// Two 64-byte nibble chunks of a 32-value sub-block part (chunk c: quad c low, quad c + 4 high)
// as 4 level vectors, in the quad order NibbleQuad gives.
inline void Nibbles2(const uint8_t* p, __m512i* w) {
  const __m512i m4 = _mm512_set1_epi8(0x0F);
  const __m512i v0 = _mm512_loadu_si512(p), v1 = _mm512_loadu_si512(p + 64);
  w[0] = _mm512_and_si512(v0, m4);
  w[1] = _mm512_and_si512(_mm512_srli_epi16(v0, 4), m4);
  w[2] = _mm512_and_si512(v1, m4);
  w[3] = _mm512_and_si512(_mm512_srli_epi16(v1, 4), m4);
}

// Q4_K/Q5_K scales and mins (the tail of their tiles, at `at`): 8 sub-block scales and 8 mins per
// row as bytes, fp16 d and dmin per row.
struct KScalesX16 {
  const uint8_t* at;
  __m512 d;
  explicit KScalesX16(const uint8_t* p)
      : at(p),
        d(_mm512_cvtph_ps(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + internal::x16::KScales::kD)))) {
  }
  __m512 SubScale(int s) const {
    const __m128i sc = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(at + internal::x16::KScales::kScales + 16 * s));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(sc)), d);
  }
  // acc - dmin * dx * sum over sub-blocks of min * (sum of the sub-block's 32 activations): the
  // mins of sub-blocks 2j and 2j + 1 interleaved per row into int16 pairs for vpdpwssd.
  __m512 Correct(__m512 acc, const uint8_t* x, int64_t b, __m512 dx) const {
    const int16_t* bs = reinterpret_cast<const BlockQ8_KX*>(x)[b].bsum32;
    const uint8_t* mins = at + internal::x16::KScales::kMins;
    __m512i m = _mm512_setzero_si512();
    for (int j = 0; j < 4; ++j) {
      const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mins + 32 * j));
      const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mins + 32 * j + 16));
      const __m256i pairs8 = _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
      int32_t pair;
      std::memcpy(&pair, bs + 2 * j, sizeof(pair));
      m = _mm512_dpwssd_epi32(m, _mm512_cvtepu8_epi16(pairs8), _mm512_set1_epi32(pair));
    }
    const __m512 dmin = _mm512_cvtph_ps(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at + internal::x16::KScales::kDmin)));
    return _mm512_fnmadd_ps(_mm512_cvtepi32_ps(m), _mm512_mul_ps(dmin, dx), acc);
  }
};

// Q4_K/Q5_K (their tiles: nibbles, [high bits,] then KScalesX16 at kScalesAt). The encoding's
// Block derives from KBlock and adds Weights.
template <size_t kTile, size_t kScalesAt>
struct K45X16 : ActQ8_KX {
  static constexpr int kBlockElems = 256, kSubs = 8, kParts = 2, kPartQuads = 4, kM = 8;
  static constexpr size_t kTileBytes = kTile;

  struct KBlock {
    const uint8_t* t;
    KScalesX16 scales;
    explicit KBlock(const uint8_t* tile) : t(tile), scales(tile + kScalesAt) {}
    __m512 SubScale(int s) const { return scales.SubScale(s); }
    __m512 Correct(__m512 acc, const uint8_t* x, int64_t /*k*/, int64_t b, __m512 dx) const {
      return scales.Correct(acc, x, b, dx);
    }
  };
  static constexpr int Quad(int part, int i) { return NibbleQuad(part, i); }
  static __m512i SubInit(const uint8_t*, int64_t, int64_t, int) { return _mm512_setzero_si512(); }
};

}  // namespace
}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_AVX512_X16_H_
