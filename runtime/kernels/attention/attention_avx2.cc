// AVX2 + FMA attention (8 floats per vector).
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/vector/exp_avx2.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

float HSum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

float HMax(__m256 v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

struct Avx2Ops {
  // Four query rows x two key rows per step (hs a multiple of 8; else row by row): eight FMA
  // chains, each key row loaded once for the four queries.
  static void ScoresTile(const float* const* q, int64_t rows, const float* k, int64_t stride,
                         int64_t n, int64_t hs, float scale, float* const* s) {
    if (rows != 4 || hs % 8 != 0) {
      ScoresTileByRow<Avx2Ops>(q, rows, k, stride, n, hs, scale, s);
      return;
    }
    const __m128 vscale = _mm_set1_ps(scale);
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
      const float* k0 = k + j * stride;
      const float* k1 = k0 + stride;
      __m256 acc[4][2];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
      for (int64_t e = 0; e < hs; e += 8) {
        const __m256 kv0 = _mm256_loadu_ps(k0 + e), kv1 = _mm256_loadu_ps(k1 + e);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          const __m256 qv = _mm256_loadu_ps(q[i] + e);
          acc[i][0] = _mm256_fmadd_ps(qv, kv0, acc[i][0]);
          acc[i][1] = _mm256_fmadd_ps(qv, kv1, acc[i][1]);
        }
      }
#pragma GCC unroll 4
      for (int i = 0; i < 4; i += 2) {
        // [row i key j, row i key j+1, row i+1 key j, row i+1 key j+1]
        const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(acc[i][0], acc[i][1]),
                                        _mm256_hadd_ps(acc[i + 1][0], acc[i + 1][1]));
        const __m128 sum =
            _mm_mul_ps(_mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)), vscale);
        _mm_storel_pi(reinterpret_cast<__m64*>(s[i] + j), sum);
        _mm_storeh_pi(reinterpret_cast<__m64*>(s[i + 1] + j), sum);
      }
    }
    for (; j < n; ++j) {
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) s[i][j] = scale * Dot(q[i], k + j * stride, hs);
    }
  }
  // Four query rows at once, in chunks of 16 output values per row (8 accumulators), each value
  // row loaded once for the four (hs a multiple of 8; else row by row).
  static void WeightedSumTile(float* const* s, int64_t rows, const float* v, int64_t stride,
                              int64_t n, int64_t hs, bool accumulate, float* const* o) {
    if (rows != 4 || hs % 8 != 0) {
      WeightedSumTileByRow<Avx2Ops>(s, rows, v, stride, n, hs, accumulate, o);
      return;
    }
    int64_t c = 0;
    for (; c + 16 <= hs; c += 16) WeightedSumTileChunk<2>(s, v + c, stride, n, accumulate, o, c);
    if (c < hs) WeightedSumTileChunk<1>(s, v + c, stride, n, accumulate, o, c);
  }
  template <int kVectors>
  static void WeightedSumTileChunk(float* const* s, const float* v, int64_t stride, int64_t n,
                                   bool accumulate, float* const* o, int64_t c) {
    __m256 acc[4][kVectors];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 8
      for (int x = 0; x < kVectors; ++x) {
        acc[i][x] = accumulate ? _mm256_loadu_ps(o[i] + c + 8 * x) : _mm256_setzero_ps();
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      const float* vj = v + j * stride;
      __m256 vv[kVectors];
#pragma GCC unroll 8
      for (int x = 0; x < kVectors; ++x) vv[x] = _mm256_loadu_ps(vj + 8 * x);
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        const __m256 p = _mm256_set1_ps(s[i][j]);
#pragma GCC unroll 8
        for (int x = 0; x < kVectors; ++x) acc[i][x] = _mm256_fmadd_ps(p, vv[x], acc[i][x]);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 8
      for (int x = 0; x < kVectors; ++x) _mm256_storeu_ps(o[i] + c + 8 * x, acc[i][x]);
    }
  }
  // Four rows at a time (hs a multiple of 8; else one at a time): four FMA chains, one
  // transposing reduction (hadd) for the four sums.
  static void Scores(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
                     float scale, float* s) {
    int64_t j = 0;
    if (hs % 8 == 0) {
      for (; j + 4 <= n; j += 4) {
        const float* k0 = k + j * stride;
        __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t e = 0; e < hs; e += 8) {
          const __m256 qv = _mm256_loadu_ps(q + e);
          a0 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + e), a0);
          a1 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + stride + e), a1);
          a2 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + 2 * stride + e), a2);
          a3 = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k0 + 3 * stride + e), a3);
        }
        const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a0, a1), _mm256_hadd_ps(a2, a3));
        const __m128 sum = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
        _mm_storeu_ps(s + j, _mm_mul_ps(sum, _mm_set1_ps(scale)));
      }
    }
    for (; j < n; ++j) s[j] = scale * Dot(q, k + j * stride, hs);
  }
  // o's chunks of up to 64 values stay in registers over all n rows (hs a multiple of 8; else
  // row by row).
  static void WeightedSum(const float* s, const float* v, int64_t stride, int64_t n, int64_t hs,
                          bool accumulate, float* o) {
    if (hs % 8 != 0) {
      WeightedSumByAxpy<Avx2Ops>(s, v, stride, n, hs, accumulate, o);
      return;
    }
    for (int64_t c = 0; c < hs; c += 64) {
      switch ((hs - c < 64 ? hs - c : 64) / 8) {
        case 1:
          WeightedSumChunk<1>(s, v + c, stride, n, accumulate, o + c);
          break;
        case 2:
          WeightedSumChunk<2>(s, v + c, stride, n, accumulate, o + c);
          break;
        case 3:
          WeightedSumChunk<3>(s, v + c, stride, n, accumulate, o + c);
          break;
        case 4:
          WeightedSumChunk<4>(s, v + c, stride, n, accumulate, o + c);
          break;
        case 5:
          WeightedSumChunk<5>(s, v + c, stride, n, accumulate, o + c);
          break;
        case 6:
          WeightedSumChunk<6>(s, v + c, stride, n, accumulate, o + c);
          break;
        case 7:
          WeightedSumChunk<7>(s, v + c, stride, n, accumulate, o + c);
          break;
        default:
          WeightedSumChunk<8>(s, v + c, stride, n, accumulate, o + c);
          break;
      }
    }
  }
  template <int kVectors>
  static void WeightedSumChunk(const float* s, const float* v, int64_t stride, int64_t n,
                               bool accumulate, float* o) {
    __m256 acc[kVectors];
#pragma GCC unroll 8
    for (int i = 0; i < kVectors; ++i) {
      acc[i] = accumulate ? _mm256_loadu_ps(o + 8 * i) : _mm256_setzero_ps();
    }
    for (int64_t j = 0; j < n; ++j) {
      const __m256 p = _mm256_set1_ps(s[j]);
      const float* vj = v + j * stride;
#pragma GCC unroll 8
      for (int i = 0; i < kVectors; ++i) {
        acc[i] = _mm256_fmadd_ps(p, _mm256_loadu_ps(vj + 8 * i), acc[i]);
      }
    }
#pragma GCC unroll 8
    for (int i = 0; i < kVectors; ++i) _mm256_storeu_ps(o + 8 * i, acc[i]);
  }
  static float Dot(const float* a, const float* b, int64_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
      s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8), _mm256_loadu_ps(b + i + 8), s1);
    }
    for (; i + 8 <= n; i += 8) {
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), s0);
    }
    float s = HSum(_mm256_add_ps(s0, s1));
    for (; i < n; ++i) s += a[i] * b[i];
    return s;
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    const __m256 va = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(y + i, _mm256_fmadd_ps(va, _mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    }
    for (; i < n; ++i) y[i] += a * x[i];
  }
  static void Scale(float* y, float a, int64_t n) {
    const __m256 va = _mm256_set1_ps(a);
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, _mm256_mul_ps(va, _mm256_loadu_ps(y + i)));
    for (; i < n; ++i) y[i] *= a;
  }
  static float Max(const float* x, int64_t n) {
    int64_t i = 0;
    float m = x[0];
    if (n >= 8) {
      __m256 vm = _mm256_loadu_ps(x);
      for (i = 8; i + 8 <= n; i += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + i));
      m = HMax(vm);
    }
    for (; i < n; ++i) m = m > x[i] ? m : x[i];
    return m;
  }
  static float ExpSum(float* x, int64_t n, float max) {
    const __m256 vmax = _mm256_set1_ps(max);
    __m256 vs = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      const __m256 e = Avx2Exp(_mm256_sub_ps(_mm256_loadu_ps(x + i), vmax));
      _mm256_storeu_ps(x + i, e);
      vs = _mm256_add_ps(vs, e);
    }
    float s = HSum(vs);
    for (; i < n; ++i) {
      x[i] = std::exp(x[i] - max);
      s += x[i];
    }
    return s;
  }
  // 8 int8 at a time to f32 (vpmovsxbd + vcvtdq2ps, exact) times the block's scale (one rounded
  // product per value, as GGML's scalar d * q).
  static void DecodeQ8_0(const uint8_t* row, int64_t n, float* out) {
    for (int64_t b = 0; b < n / 32; ++b, row += 34, out += 32) {
      uint16_t h;
      std::memcpy(&h, row, sizeof(h));
      const __m256 d = _mm256_set1_ps(_cvtsh_ss(h));
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + 2 + 8 * c));
        _mm256_storeu_ps(out + 8 * c,
                         _mm256_mul_ps(d, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q))));
      }
    }
  }
  static void DecodeF16(const uint8_t* row, int64_t n, float* out) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
      _mm256_storeu_ps(
          out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * i))));
    }
    for (; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, row + 2 * i, sizeof(h));
      out[i] = _cvtsh_ss(h);
    }
  }
};

// F16C's conversion back (vcvtph2ps), 8 values at a time.
void DecodeF16Avx2(const uint16_t* h, int64_t n, float* out) {
  Avx2Ops::DecodeF16(reinterpret_cast<const uint8_t*>(h), n, out);
}

const AttentionKernel kKernel = {"attention_avx2", Isa::kAvx2, &AttendRows<Avx2Ops>, &EncodeF16Avx2,
                                 &DecodeF16Avx2};

}  // namespace
}  // namespace x86

const AttentionKernel* const kAttentionAvx2 = &x86::kKernel;

// F16C's conversion (vcvtps2ph with round to nearest even), 8 values at a time: the AVX2 and
// AVX-512 kernels' encode_f16.
void EncodeF16Avx2(const float* x, int64_t n, uint16_t* out) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  }
  for (; i < n; ++i) out[i] = _cvtss_sh(x[i], _MM_FROUND_TO_NEAREST_INT);
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
