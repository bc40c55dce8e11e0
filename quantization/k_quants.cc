// The sub-block search shared by Q4_K and Q5_K (GGML's make_qkx2_quants) and the packing of
// their 6-bit scales and mins. Same float operations in the same order as GGML's reference.
#include "quantization/internal/k_quants.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kSub = 32;  // values per sub-block

inline int Clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// make_qkx2_quants(n = 32, nmax, x, weights, L, &the_min, Laux, rmin, rdelta, nstep,
// use_mad = false). Returns the scale; *the_min receives -min.
float MakeQkx2Quants(const float* x, const float* weights, const Qkx2Params& p, uint8_t* L,
                     float* the_min) {
  const int nmax = p.nmax;
  float min = x[0];
  float max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < kSub; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    for (int i = 0; i < kSub; ++i) L[i] = 0;
    *the_min = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < kSub; ++i) {
    const int l = NearestInt(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(Clamp(l, 0, nmax));
    float diff = scale * L[i] + min - x[i];
    diff = diff * diff;
    const float w = weights[i];
    best_error += w * diff;
  }
  uint8_t Laux[kSub];
  for (int is = 0; is <= p.nstep; ++is) {
    iscale = (p.rmin + p.rdelta * is + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < kSub; ++i) {
      const int l = Clamp(NearestInt(iscale * (x[i] - min)), 0, nmax);
      Laux[i] = static_cast<uint8_t>(l);
      const float w = weights[i];
      sum_l += w * l;
      sum_l2 += w * l * l;
      sum_xl += w * l * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < kSub; ++i) {
        float diff = this_scale * Laux[i] + this_min - x[i];
        diff = diff * diff;
        const float w = weights[i];
        cur_error += w * diff;
      }
      if (cur_error < best_error) {
        std::memcpy(L, Laux, kSub);
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

}  // namespace

void QuantizeKSuperBlock(const float* x, const Qkx2Params& params, uint16_t* d_bits,
                         uint16_t* dmin_bits, uint8_t scales_out[12], uint8_t L[256]) {
  float mins[8];
  float scales[8];
  float weights[kSub];
  float max_scale = 0;  // as the min is deducted, scales are always positive
  float max_min = 0;
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + kSub * j;
    float sum_x2 = 0;
    for (int l = 0; l < kSub; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < kSub; ++l) weights[l] = av_x + std::fabs(xs[l]);
    scales[j] = MakeQkx2Quants(xs, weights, params, L + kSub * j, &mins[j]);
    const float scale = scales[j];
    if (scale > max_scale) max_scale = scale;
    const float min = mins[j];
    if (min > max_min) max_min = min;
  }

  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  std::memset(scales_out, 0, 12);
  for (int j = 0; j < 8; ++j) {
    // GGML stores nearest_int's int into a uint8_t (modulo 256) before clamping to 63.
    uint8_t ls = static_cast<uint8_t>(NearestInt(inv_scale * scales[j]));
    uint8_t lm = static_cast<uint8_t>(NearestInt(inv_min * mins[j]));
    ls = ls < 63 ? ls : 63;
    lm = lm < 63 ? lm : 63;
    if (j < 4) {
      scales_out[j] = ls;
      scales_out[j + 4] = lm;
    } else {
      scales_out[j + 4] = static_cast<uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      scales_out[j - 4] |= static_cast<uint8_t>((ls >> 4) << 6);
      scales_out[j - 0] |= static_cast<uint8_t>((lm >> 4) << 6);
    }
  }
  *d_bits = blocks::FloatToFp16(max_scale / 63.f);
  *dmin_bits = blocks::FloatToFp16(max_min / 63.f);

  const float d_all = blocks::Fp16ToFloat(*d_bits);
  const float dmin_all = blocks::Fp16ToFloat(*dmin_bits);
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    GetScaleMinK4(j, scales_out, &sc, &m);
    const float d = d_all * sc;
    if (!(d != 0.0f)) continue;  // GGML: `if (!d) continue;` (NaN d is not skipped)
    const float dm = dmin_all * m;
    for (int ii = 0; ii < kSub; ++ii) {
      const int l = NearestInt((x[kSub * j + ii] + dm) / d);
      L[kSub * j + ii] = static_cast<uint8_t>(Clamp(l, 0, params.nmax));
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
