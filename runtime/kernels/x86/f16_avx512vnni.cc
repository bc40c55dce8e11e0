// f16 weights x f32 activations with AVX-512 (F, BW, VL; f16 -> f32 by vcvtph2ps on 16 values):
// tiles of 4 weight rows x up to 4 activation rows, 16 accumulators, so that every converted
// weight vector serves all the activation rows of the tile; the GEMV (one activation row)
// prefetches the same columns of the next 4 weight rows.
#include <immintrin.h>

#include <cstdint>

#include "runtime/kernels/internal/kernel_list.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
namespace {

__mmask16 Avx512F16TailMask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
}

float Avx512F16HSum(__m512 a) {
  const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(a),
                                 _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(a), 1)));
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  return _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
}

// y[a * ys + r] = dot(weight row r, activation row a) for r < R, a < M.
template <int R, int M>
void F16Avx512Tile(const uint8_t* w, size_t wrb, const uint8_t* xb, size_t xrb, int64_t k, float* y,
                   int64_t ys) {
  __m512 acc[M][R];
#pragma GCC unroll 4
  for (int a = 0; a < M; ++a) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) acc[a][r] = _mm512_setzero_ps();
  }
  for (int64_t l = 0; l < k; l += 16) {
    const __mmask16 m = Avx512F16TailMask(k - l);
    __m512 wv[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const uint8_t* row = w + r * wrb + 2 * l;
      if constexpr (M == 1) {
        // The same columns of the next group of 4 rows: read one group-step later.
        _mm_prefetch(reinterpret_cast<const char*>(row + 4 * wrb), _MM_HINT_T0);
      }
      wv[r] = _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, row));
    }
#pragma GCC unroll 4
    for (int a = 0; a < M; ++a) {
      const __m512 xv = _mm512_maskz_loadu_ps(m, reinterpret_cast<const float*>(xb + a * xrb) + l);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) acc[a][r] = _mm512_fmadd_ps(wv[r], xv, acc[a][r]);
    }
  }
#pragma GCC unroll 4
  for (int a = 0; a < M; ++a) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) y[a * ys + r] = Avx512F16HSum(acc[a][r]);
  }
}

template <int R>
void F16Avx512Rows(int mm, const uint8_t* w, size_t wrb, const uint8_t* xb, size_t xrb, int64_t k,
                   float* y, int64_t ys) {
  switch (mm) {
    case 1:
      F16Avx512Tile<R, 1>(w, wrb, xb, xrb, k, y, ys);
      break;
    case 2:
      F16Avx512Tile<R, 2>(w, wrb, xb, xrb, k, y, ys);
      break;
    case 3:
      F16Avx512Tile<R, 3>(w, wrb, xb, xrb, k, y, ys);
      break;
    default:
      F16Avx512Tile<R, 4>(w, wrb, xb, xrb, k, y, ys);
      break;
  }
}

// Rows j0..j1 of the output for all m activation rows: 4 weight rows at a time (they stay in L1
// while the activation rows pass over them, 4 at a time).
void F16Avx512Matmul(const MatmulParams& p, int64_t j0, int64_t j1) {
  for (int64_t j = j0; j < j1; j += 4) {
    const int r = static_cast<int>(j1 - j < 4 ? j1 - j : 4);
    const uint8_t* w = p.w + j * p.w_row_bytes;
    for (int64_t i = 0; i < p.m; i += 4) {
      const int mm = static_cast<int>(p.m - i < 4 ? p.m - i : 4);
      const uint8_t* xb = p.xq + i * p.xq_row_bytes;
      float* y = p.y + i * p.y_stride + j;
      switch (r) {
        case 1:
          F16Avx512Rows<1>(mm, w, p.w_row_bytes, xb, p.xq_row_bytes, p.k, y, p.y_stride);
          break;
        case 2:
          F16Avx512Rows<2>(mm, w, p.w_row_bytes, xb, p.xq_row_bytes, p.k, y, p.y_stride);
          break;
        case 3:
          F16Avx512Rows<3>(mm, w, p.w_row_bytes, xb, p.xq_row_bytes, p.k, y, p.y_stride);
          break;
        default:
          F16Avx512Rows<4>(mm, w, p.w_row_bytes, xb, p.xq_row_bytes, p.k, y, p.y_stride);
          break;
      }
    }
  }
}

}  // namespace
}  // namespace x86

EDGEQ_DEFINE_KERNEL_PAIR(kF16Avx512Vnni, Encoding::kF16, Isa::kAvx512Vnni, "f16_avx512vnni",
                         nullptr, F32RowBytes, nullptr, nullptr, 16, x86::F16Avx512Matmul);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
