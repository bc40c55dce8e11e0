// NEON attention (ARMv8-A baseline: 4 floats per vector, FMA).
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

#include "runtime/kernels/attention/attention.h"
#include "runtime/kernels/attention/attention_impl.h"
#include "runtime/kernels/vector/exp_neon.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
namespace {

float NeonExpScalar(float x) { return vgetq_lane_f32(NeonExp(vdupq_n_f32(x)), 0); }

struct NeonOps {
  // Four values of a key or value row as f32: an f32 row's as they are, an f16 cache row's halves
  // converted exactly (fcvtl), so a row read in place gives the bits of its decoded copy.
  static inline float32x4_t Load4(const float* p) { return vld1q_f32(p); }
  static inline float32x4_t Load4(const uint16_t* p) {
    return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p)));
  }
  static inline float Load1(const float* p) { return *p; }
  static inline float Load1(const uint16_t* p) { return HalfToFloat<NeonOps>(*p); }
  // Four query rows x four key rows per step (hs a multiple of 4; else row by row): 16 FMA
  // chains, each key chunk and query chunk loaded once per step, then one pairwise-add tree per
  // query row for its four sums.
  static void ScoresTile(const float* const* q, int64_t rows, const float* k, int64_t stride,
                         int64_t n, int64_t hs, float scale, float* const* s) {
    if (rows != 4 || hs % 4 != 0) {
      ScoresTileByRow<NeonOps>(q, rows, k, stride, n, hs, scale, s);
      return;
    }
    const float* const qr[4] = {q[0], q[1], q[2], q[3]};
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float* k0 = k + j * stride;
      const float* k1 = k0 + stride;
      const float* k2 = k1 + stride;
      const float* k3 = k2 + stride;
      float32x4_t acc[4][4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = vdupq_n_f32(0.0f);
      for (int64_t e = 0; e < hs; e += 4) {
        const float32x4_t kv0 = vld1q_f32(k0 + e), kv1 = vld1q_f32(k1 + e);
        const float32x4_t kv2 = vld1q_f32(k2 + e), kv3 = vld1q_f32(k3 + e);
#pragma GCC unroll 4
        for (int i = 0; i < 4; ++i) {
          const float32x4_t qv = vld1q_f32(qr[i] + e);
          acc[i][0] = vfmaq_f32(acc[i][0], qv, kv0);
          acc[i][1] = vfmaq_f32(acc[i][1], qv, kv1);
          acc[i][2] = vfmaq_f32(acc[i][2], qv, kv2);
          acc[i][3] = vfmaq_f32(acc[i][3], qv, kv3);
        }
      }
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) {
        // {key j, j + 1, j + 2, j + 3} of row i
        const float32x4_t sum =
            vpaddq_f32(vpaddq_f32(acc[i][0], acc[i][1]), vpaddq_f32(acc[i][2], acc[i][3]));
        vst1q_f32(s[i] + j, vmulq_n_f32(sum, scale));
      }
    }
    for (; j < n; ++j) {
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) s[i][j] = scale * Dot(qr[i], k + j * stride, hs);
    }
  }
  // Four query rows at once in chunks of up to 16 output values per row (16 accumulators), four
  // value rows per step: each value row loaded once for the four query rows, each row's four
  // scores in one register (fmla by lane). hs a multiple of 4; else row by row.
  static void WeightedSumTile(float* const* s, int64_t rows, const float* v, int64_t stride,
                              int64_t n, int64_t hs, bool accumulate, float* const* o) {
    if (rows != 4 || hs % 4 != 0) {
      WeightedSumTileByRow<NeonOps>(s, rows, v, stride, n, hs, accumulate, o);
      return;
    }
    int64_t c = 0;
    for (; c + 16 <= hs; c += 16) WeightedSumTileChunk<4>(s, v + c, stride, n, accumulate, o, c);
    switch ((hs - c) / 4) {
      case 3:
        WeightedSumTileChunk<3>(s, v + c, stride, n, accumulate, o, c);
        break;
      case 2:
        WeightedSumTileChunk<2>(s, v + c, stride, n, accumulate, o, c);
        break;
      case 1:
        WeightedSumTileChunk<1>(s, v + c, stride, n, accumulate, o, c);
        break;
      default:
        break;
    }
  }
  // acc[i][x] += p[i][kLane] x v (value row j + kLane of a step).
  template <int kVectors, int kLane>
  static inline void WeightedSumStep(const float* vj, const float32x4_t p[4],
                                     float32x4_t acc[4][kVectors]) {
    float32x4_t vv[kVectors];
#pragma GCC unroll 4
    for (int x = 0; x < kVectors; ++x) vv[x] = vld1q_f32(vj + 4 * x);
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 4
      for (int x = 0; x < kVectors; ++x) acc[i][x] = vfmaq_laneq_f32(acc[i][x], vv[x], p[i], kLane);
    }
  }
  template <int kVectors>
  static void WeightedSumTileChunk(float* const* s, const float* v, int64_t stride, int64_t n,
                                   bool accumulate, float* const* o, int64_t c) {
    const float* const sr[4] = {s[0], s[1], s[2], s[3]};
    float32x4_t acc[4][kVectors];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 4
      for (int x = 0; x < kVectors; ++x) {
        acc[i][x] = accumulate ? vld1q_f32(o[i] + c + 4 * x) : vdupq_n_f32(0.0f);
      }
    }
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      float32x4_t p[4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) p[i] = vld1q_f32(sr[i] + j);
      const float* vj = v + j * stride;
      WeightedSumStep<kVectors, 0>(vj, p, acc);
      WeightedSumStep<kVectors, 1>(vj + stride, p, acc);
      WeightedSumStep<kVectors, 2>(vj + 2 * stride, p, acc);
      WeightedSumStep<kVectors, 3>(vj + 3 * stride, p, acc);
    }
    for (; j < n; ++j) {
      float32x4_t p[4];
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i) p[i] = vdupq_n_f32(sr[i][j]);
      WeightedSumStep<kVectors, 0>(v + j * stride, p, acc);
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
#pragma GCC unroll 4
      for (int x = 0; x < kVectors; ++x) vst1q_f32(o[i] + c + 4 * x, acc[i][x]);
    }
  }
  // Four key rows at a time (hs a multiple of 4; else one at a time): four FMA chains, one
  // pairwise-add tree for the four sums.
  static void Scores(const float* q, const float* k, int64_t stride, int64_t n, int64_t hs,
                     float scale, float* s) {
    ScoresOf(q, k, stride, n, hs, scale, s);
  }
  // The same over an f16 cache's rows in place (back to back; attention_impl.h, HasF16Rows).
  __attribute__((noinline)) static void ScoresF16(const float* q, const uint16_t* k, int64_t n,
                                                  int64_t hs, float scale, float* s) {
    ScoresOf(q, k, hs, n, hs, scale, s);
  }
  template <class T>
  static void ScoresOf(const float* q, const T* k, int64_t stride, int64_t n, int64_t hs,
                       float scale, float* s) {
    int64_t j = 0;
    if (hs % 4 == 0) {
      for (; j + 4 <= n; j += 4) {
        const T* k0 = k + j * stride;
        const T* k1 = k0 + stride;
        const T* k2 = k1 + stride;
        const T* k3 = k2 + stride;
        float32x4_t a0 = vdupq_n_f32(0.0f), a1 = a0, a2 = a0, a3 = a0;
        for (int64_t e = 0; e < hs; e += 4) {
          const float32x4_t qv = vld1q_f32(q + e);
          a0 = vfmaq_f32(a0, qv, Load4(k0 + e));
          a1 = vfmaq_f32(a1, qv, Load4(k1 + e));
          a2 = vfmaq_f32(a2, qv, Load4(k2 + e));
          a3 = vfmaq_f32(a3, qv, Load4(k3 + e));
        }
        const float32x4_t sum = vpaddq_f32(vpaddq_f32(a0, a1), vpaddq_f32(a2, a3));
        vst1q_f32(s + j, vmulq_n_f32(sum, scale));
      }
    }
    for (; j < n; ++j) s[j] = scale * DotOf(q, k + j * stride, hs);
  }
  // o's chunks of up to 32 values stay in registers over all n rows, four rows per step (fmla by
  // lane of the four scores); hs a multiple of 4, else row by row.
  static void WeightedSum(const float* s, const float* v, int64_t stride, int64_t n, int64_t hs,
                          bool accumulate, float* o) {
    if (hs % 4 != 0) {
      WeightedSumByAxpy<NeonOps>(s, v, stride, n, hs, accumulate, o);
      return;
    }
    for (int64_t c = 0; c < hs; c += 32) {
      switch ((hs - c < 32 ? hs - c : 32) / 4) {
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
  // The same over an f16 cache's rows in place (back to back; hs a multiple of 32: whole
  // 32-value chunks, WeightedSum's order for such an hs, and one chunk routine in the binary).
  __attribute__((noinline)) static void WeightedSumF16(const float* s, const uint16_t* v, int64_t n,
                                                       int64_t hs, bool accumulate, float* o) {
    for (int64_t c = 0; c < hs; c += 32) WeightedSumChunk<8>(s, v + c, hs, n, accumulate, o + c);
  }
  template <int kVectors, int kLane, class T>
  static inline void WeightedSumRow(const T* vj, float32x4_t p, float32x4_t acc[kVectors]) {
#pragma GCC unroll 8
    for (int x = 0; x < kVectors; ++x) {
      acc[x] = vfmaq_laneq_f32(acc[x], Load4(vj + 4 * x), p, kLane);
    }
  }
  template <int kVectors, class T>
  static void WeightedSumChunk(const float* s, const T* v, int64_t stride, int64_t n,
                               bool accumulate, float* o) {
    float32x4_t acc[kVectors];
#pragma GCC unroll 8
    for (int x = 0; x < kVectors; ++x)
      acc[x] = accumulate ? vld1q_f32(o + 4 * x) : vdupq_n_f32(0.0f);
    int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      const float32x4_t p = vld1q_f32(s + j);
      const T* vj = v + j * stride;
      WeightedSumRow<kVectors, 0>(vj, p, acc);
      WeightedSumRow<kVectors, 1>(vj + stride, p, acc);
      WeightedSumRow<kVectors, 2>(vj + 2 * stride, p, acc);
      WeightedSumRow<kVectors, 3>(vj + 3 * stride, p, acc);
    }
    for (; j < n; ++j) WeightedSumRow<kVectors, 0>(v + j * stride, vdupq_n_f32(s[j]), acc);
#pragma GCC unroll 8
    for (int x = 0; x < kVectors; ++x) vst1q_f32(o + 4 * x, acc[x]);
  }
  // a.b in the order of Scores' blocks of four keys: lane-wise fused sums over chunks of 4 values,
  // then (l0 + l1) + (l2 + l3), then the n % 4 last values. So a key's score has the same bits
  // whichever path computes it (a tile of query rows, one row, a block of keys or a tail).
  static float Dot(const float* a, const float* b, int64_t n) { return DotOf(a, b, n); }
  template <class T>
  static float DotOf(const float* a, const T* b, int64_t n) {
    float32x4_t acc = vdupq_n_f32(0.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) acc = vfmaq_f32(acc, vld1q_f32(a + i), Load4(b + i));
    const float32x4_t p = vpaddq_f32(acc, acc);  // {l0 + l1, l2 + l3, ..}
    float s = vgetq_lane_f32(p, 0) + vgetq_lane_f32(p, 1);
    for (; i < n; ++i) s += a[i] * Load1(b + i);
    return s;
  }
  static void Axpy(float* y, float a, const float* x, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), vld1q_f32(x + i), a));
    for (; i < n; ++i) y[i] += a * x[i];
  }
  static void Scale(float* y, float a, int64_t n) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vmulq_n_f32(vld1q_f32(y + i), a));
    for (; i < n; ++i) y[i] *= a;
  }
  static float Max(const float* x, int64_t n) {
    float32x4_t vm = vdupq_n_f32(x[0]);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vm = vmaxq_f32(vm, vld1q_f32(x + i));
    float m = vmaxvq_f32(vm);
    for (; i < n; ++i) m = m > x[i] ? m : x[i];
    return m;
  }
  static float ExpSum(float* x, int64_t n, float max) {
    const float32x4_t vmax = vdupq_n_f32(max);
    float32x4_t vs = vdupq_n_f32(0.0f);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
      const float32x4_t e = NeonExp(vsubq_f32(vld1q_f32(x + i), vmax));
      vst1q_f32(x + i, e);
      vs = vaddq_f32(vs, e);
    }
    float s = vaddvq_f32(vs);
    for (; i < n; ++i) {
      x[i] = NeonExpScalar(x[i] - max);
      s += x[i];
    }
    return s;
  }
  // 16 int8 at a time widened to f32 (sxtl, scvtf: exact) times the block's scale (one rounded
  // product per value, as GGML's scalar d * q).
  static void DecodeQ8_0(const uint8_t* row, int64_t n, float* out) {
    for (int64_t b = 0; b < n / 32; ++b, row += 34, out += 32) {
      uint16_t h;
      std::memcpy(&h, row, sizeof(h));
      const float d = vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0);
#pragma GCC unroll 2
      for (int c = 0; c < 2; ++c) {
        const int8x16_t q = vld1q_s8(reinterpret_cast<const int8_t*>(row + 2 + 16 * c));
        const int16x8_t lo = vmovl_s8(vget_low_s8(q)), hi = vmovl_s8(vget_high_s8(q));
        float* o = out + 16 * c;
        vst1q_f32(o, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(lo))), d));
        vst1q_f32(o + 4, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(lo))), d));
        vst1q_f32(o + 8, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_low_s16(hi))), d));
        vst1q_f32(o + 12, vmulq_n_f32(vcvtq_f32_s32(vmovl_s16(vget_high_s16(hi))), d));
      }
    }
  }
  static void DecodeF16(const uint8_t* row, int64_t n, float* out) {
    const uint16_t* h = reinterpret_cast<const uint16_t*>(row);  // 2-byte aligned rows
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      vst1q_f32(out + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h + i))));
    for (; i < n; ++i) out[i] = HalfToFloat<NeonOps>(h[i]);
  }
};

// fcvtn (round to nearest even, the default FPCR mode) and fcvtl, 4 values at a time.
void EncodeF16Neon(const float* x, int64_t n, uint16_t* out) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1_u16(out + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x + i))));
  }
  for (; i < n; ++i) {
    out[i] = vget_lane_u16(vreinterpret_u16_f16(vcvt_f16_f32(vdupq_n_f32(x[i]))), 0);
  }
}
void DecodeF16Neon(const uint16_t* h, int64_t n, float* out) {
  NeonOps::DecodeF16(reinterpret_cast<const uint8_t*>(h), n, out);
}

const AttentionKernel kKernel = {"attention_neon", Isa::kNeon, &AttendRows<NeonOps>, &EncodeF16Neon,
                                 &DecodeF16Neon};

}  // namespace
}  // namespace arm

const AttentionKernel* const kAttentionNeon = &arm::kKernel;

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
