// AVX-512F attention (16 floats per vector; row tails through masked loads).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/vector/exp_avx512.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

__mmask16 Avx512TailMask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
}

struct Avx512Ops {
  // Whole vectors (kFull: the row length a multiple of 16) load unmasked: masked loads cost more on
  // some cores (AMD's here: a decode step over an f32 cache 1.45x slower).
  template <bool kFull>
  static __m512 Load(__mmask16 m, const float* p) {
    return kFull ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(m, p);
  }
  // Four query rows x four key rows per step: 16 FMA chains, each key row loaded once for the
  // four queries. Other row counts go row by row.
  static void ScoresTile(const float* const* q, int64_t rows, const float* k, int64_t stride,
                         int64_t n, int64_t hs, float scale, float* const* s) {
    if (rows != 4) {
      ScoresTileByRow<Avx512Ops>(q, rows, k, stride, n, hs, scale, s);
    } else if (hs % 16 == 0) {
      ScoresTile4<true>(q, k, stride, n, hs, scale, s);
    } else {
      ScoresTile4<false>(q, k, stride, n, hs, scale, s);
    }
  }
  template <bool kFull>
  static void ScoresTile4(const float* const* q, const float* k, int64_t stride, int64_t n,
                          int64_t hs, float scale, float* const* s) {
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float* kj = k + j * stride;
      __m512 acc[4][4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) acc[i][c] = _mm512_setzero_ps();
      }
      for (int64_t e = 0; e < hs; e += 16) {
        const __mmask16 m = Avx512TailMask(hs - e);
        __m512 qv[4];
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) qv[i] = Load<kFull>(m, q[i] + e);
#pragma GCC unroll 4
        for (int c = 0; c < 4; ++c) {
          const __m512 kv = Load<kFull>(m, kj + c * stride + e);
#pragma GCC unroll 4
          for (int i = 0; i < 4; ++i) acc[i][c] = _mm512_fmadd_ps(qv[i], kv, acc[i][c]);
        }
      }
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        _mm_storeu_ps(s[i] + j, _mm_mul_ps(Sum4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]),
                                           _mm_set1_ps(scale)));
      }
    }
    for (; j < n; ++j) {
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) s[i][j] = scale * Dot(q[i], k + j * stride, hs);
    }
  }
  // Four query rows at once: chunks of up to 64 output values per row (16 accumulators), each
  // value row loaded once for the four.
  static void WeightedSumTile(float* const* s, int64_t rows, const float* v, int64_t stride,
                              int64_t n, int64_t hs, bool accumulate, float* const* o) {
    if (rows != 4) {
      WeightedSumTileByRow<Avx512Ops>(s, rows, v, stride, n, hs, accumulate, o);
      return;
    }
    for (int64_t c = 0; c < hs; c += 64) {
      const int64_t w = hs - c < 64 ? hs - c : 64;
      switch ((w + 15) / 16) {
        case 1:
          WeightedSumTileChunk<1>(s, v + c, stride, n, w, accumulate, o, c);
          break;
        case 2:
          WeightedSumTileChunk<2>(s, v + c, stride, n, w, accumulate, o, c);
          break;
        case 3:
          WeightedSumTileChunk<3>(s, v + c, stride, n, w, accumulate, o, c);
          break;
        default:
          if (w == 64) {  // whole vectors: unmasked loads
            WeightedSumTileChunk<4, true>(s, v + c, stride, n, w, accumulate, o, c);
            break;
          }
          WeightedSumTileChunk<4>(s, v + c, stride, n, w, accumulate, o, c);
          break;
      }
    }
  }
  template <int kVectors, bool kFull = false>
  static void WeightedSumTileChunk(float* const* s, const float* v, int64_t stride, int64_t n,
                                   int64_t width, bool accumulate, float* const* o, int64_t c) {
    __m512 acc[4][kVectors];
    __mmask16 m[kVectors];
#pragma GCC unroll 8
    for (int x = 0; x < kVectors; ++x) m[x] = Avx512TailMask(width - 16 * x);
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 8
      for (int x = 0; x < kVectors; ++x) {
        acc[i][x] =
            accumulate ? _mm512_maskz_loadu_ps(m[x], o[i] + c + 16 * x) : _mm512_setzero_ps();
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      const float* vj = v + j * stride;
      __m512 vv[kVectors];
#pragma GCC unroll 8
      for (int x = 0; x < kVectors; ++x) vv[x] = Load<kFull>(m[x], vj + 16 * x);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const __m512 p = _mm512_set1_ps(s[i][j]);
#pragma GCC unroll 8
        for (int x = 0; x < kVectors; ++x) acc[i][x] = _mm512_fmadd_ps(p, vv[x], acc[i][x]);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 8
      for (int x = 0; x < kVectors; ++x) {
        _mm512_mask_storeu_ps(o[i] + c + 16 * x, m[x], acc[i][x]);
      }
    }
  }
  // Four rows at a time: four independent FMA chains, then one transposing reduction of the four
  // sums (hadd) instead of four horizontal reductions.
  static void Scores(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
                     float scale, float* s) {
    if (hs % 16 == 0) {
      ScoresOf<true>(q, k, stride, n, hs, scale, s);
    } else {
      ScoresOf<false>(q, k, stride, n, hs, scale, s);
    }
  }
  template <bool kFull>
  static void ScoresOf(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
                       float scale, float* s) {
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float* k0 = k + j * stride;
      __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
      for (int64_t e = 0; e < hs; e += 16) {
        const __mmask16 m = Avx512TailMask(hs - e);
        const __m512 qv = Load<kFull>(m, q + e);
        a0 = _mm512_fmadd_ps(qv, Load<kFull>(m, k0 + e), a0);
        a1 = _mm512_fmadd_ps(qv, Load<kFull>(m, k0 + stride + e), a1);
        a2 = _mm512_fmadd_ps(qv, Load<kFull>(m, k0 + 2 * stride + e), a2);
        a3 = _mm512_fmadd_ps(qv, Load<kFull>(m, k0 + 3 * stride + e), a3);
      }
      _mm_storeu_ps(s + j, _mm_mul_ps(Sum4(a0, a1, a2, a3), _mm_set1_ps(scale)));
    }
    for (; j < n; ++j) s[j] = scale * Dot(q, k + j * stride, hs);
  }
  // o's chunks of up to 128 values stay in registers over all n rows.
  static void WeightedSum(const float* s, const float* v, int64_t stride, int64_t n, int64_t hs,
                          bool accumulate, float* o) {
    for (int64_t c = 0; c < hs; c += 128) {
      const int64_t w = hs - c < 128 ? hs - c : 128;
      switch ((w + 15) / 16) {
        case 1:
          WeightedSumChunk<1>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        case 2:
          WeightedSumChunk<2>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        case 3:
          WeightedSumChunk<3>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        case 4:
          if (w == 64) {  // a head dim of 64: whole vectors, unmasked loads
            WeightedSumChunk<4, true>(s, v + c, stride, n, w, accumulate, o + c);
            break;
          }
          WeightedSumChunk<4>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        case 5:
          WeightedSumChunk<5>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        case 6:
          WeightedSumChunk<6>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        case 7:
          WeightedSumChunk<7>(s, v + c, stride, n, w, accumulate, o + c);
          break;
        default:
          WeightedSumChunk<8>(s, v + c, stride, n, w, accumulate, o + c);
          break;
      }
    }
  }
  template <int kVectors, bool kFull = false>
  static void WeightedSumChunk(const float* s, const float* v, int64_t stride, int64_t n,
                               int64_t width, bool accumulate, float* o) {
    __m512 acc[kVectors];
    __mmask16 m[kVectors];
#pragma GCC unroll 8
    for (int i = 0; i < kVectors; ++i) {
      m[i] = Avx512TailMask(width - 16 * i);
      acc[i] = accumulate ? _mm512_maskz_loadu_ps(m[i], o + 16 * i) : _mm512_setzero_ps();
    }
    for (int64_t j = 0; j < n; ++j) {
      const __m512 p = _mm512_set1_ps(s[j]);
      const float* vj = v + j * stride;
#pragma GCC unroll 8
      for (int i = 0; i < kVectors; ++i) {
        acc[i] = _mm512_fmadd_ps(p, Load<kFull>(m[i], vj + 16 * i), acc[i]);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < kVectors; ++i) _mm512_mask_storeu_ps(o + 16 * i, m[i], acc[i]);
  }
  // The four sums of a0..a3 as one vector.
  static __m128 Sum4(__m512 a0, __m512 a1, __m512 a2, __m512 a3) {
    const __m256 y0 = Half(a0), y1 = Half(a1), y2 = Half(a2), y3 = Half(a3);
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(y0, y1), _mm256_hadd_ps(y2, y3));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  }
  // The low and high halves added: 8 lanes with a's sum.
  static __m256 Half(__m512 a) {
    return _mm256_add_ps(_mm512_castps512_ps256(a),
                         _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
  }
  static float Dot(const float* a, const float* b, int64_t n) {
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), s0);
      s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + i + 16), _mm512_loadu_ps(b + i + 16), s1);
    }
    for (; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), s0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    const __m512 va = _mm512_set1_ps(a);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      _mm512_mask_storeu_ps(
          y + i, m,
          _mm512_fmadd_ps(va, _mm512_maskz_loadu_ps(m, x + i), _mm512_maskz_loadu_ps(m, y + i)));
    }
  }
  static void Scale(float* y, float a, int64_t n) {
    const __m512 va = _mm512_set1_ps(a);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      _mm512_mask_storeu_ps(y + i, m, _mm512_mul_ps(va, _mm512_maskz_loadu_ps(m, y + i)));
    }
  }
  static float Max(const float* x, int64_t n) {
    __m512 vm = _mm512_set1_ps(x[0]);
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      vm = _mm512_mask_max_ps(vm, m, vm, _mm512_maskz_loadu_ps(m, x + i));
    }
    return _mm512_reduce_max_ps(vm);
  }
  static float ExpSum(float* x, int64_t n, float max) {
    const __m512 vmax = _mm512_set1_ps(max);
    __m512 vs = _mm512_setzero_ps();
    for (int64_t i = 0; i < n; i += 16) {
      const __mmask16 m = Avx512TailMask(n - i);
      const __m512 e = Avx512Exp(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), vmax));
      _mm512_mask_storeu_ps(x + i, m, e);
      vs = _mm512_mask_add_ps(vs, m, vs, e);
    }
    return _mm512_reduce_add_ps(vs);
  }
  // 32 int8 of a block to f32 (vpmovsxbd + vcvtdq2ps, exact) times the block's scale (one rounded
  // product per value, as GGML's scalar d * q).
  static void DecodeQ8_0(const uint8_t* row, int64_t n, float* out) {
    for (int64_t b = 0; b < n / 32; ++b, row += 34, out += 32) {
      uint16_t h;
      std::memcpy(&h, row, sizeof(h));
      const __m512 d = _mm512_set1_ps(_cvtsh_ss(h));
      const __m128i q0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2));
      const __m128i q1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 18));
      _mm512_storeu_ps(out, _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q0))));
      _mm512_storeu_ps(out + 16, _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q1))));
    }
  }
  // Whole vectors unmasked (masked 16-bit loads and masked stores are slow on some cores), the
  // tail masked.
  static void DecodeF16(const uint8_t* row, int64_t n, float* out) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_ps(
          out + i,
          _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + 2 * i))));
    }
    if (i < n) {
      const __mmask16 m = Avx512TailMask(n - i);
      _mm512_mask_storeu_ps(out + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, row + 2 * i)));
    }
  }
};

// Rows to f16: the AVX2 file's F16C conversion (an AVX-512 CPU has F16C); back: this ISA's.
void DecodeF16Avx512(const uint16_t* h, int64_t n, float* out) {
  Avx512Ops::DecodeF16(reinterpret_cast<const uint8_t*>(h), n, out);
}

const AttentionKernel kKernel = {"attention_avx512", Isa::kAvx512Vnni, &AttendRows<Avx512Ops>,
                                 &EncodeF16Avx2, &DecodeF16Avx512};

}  // namespace
}  // namespace x86

const AttentionKernel* const kAttentionAvx512 = &x86::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
