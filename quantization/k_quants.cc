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

// Portable vectors (GCC/Clang vector extensions: SSE2 on x86-64, NEON on aarch64). Lane-wise
// IEEE operations, no contraction (-ffp-contract=off).
constexpr int kLanes = 4;  // sub-blocks per call: one 128-bit vector (SSE2 / NEON)
typedef float VF __attribute__((vector_size(4 * kLanes)));
typedef int32_t VI __attribute__((vector_size(4 * kLanes)));

// NearestInt() on every lane.
inline VI NearestIntV(VF f) {
  const VF v = f + 12582912.f;
  VI i;
  std::memcpy(&i, &v, sizeof(i));
  return (i & 0x007fffff) - 0x00400000;
}

// GGML's make_qkx2_quants(n = 32, nmax, x, weights, L, &the_min, Laux, rmin, rdelta, nstep,
// use_mad = false) for kLanes sub-blocks at once: lane j of every vector works on sub-block j. The
// sub-blocks are independent problems, and each lane performs exactly GGML's scalar float
// operations in GGML's order (branches become per-lane selects), so every lane's result is
// bit-identical to GGML's scalar search.
//   x, weights: 32 * kLanes values (sub-block j at 32 * j); L: 32 * kLanes levels out;
//   scales, the_mins: kLanes out.
void MakeQkx2QuantsLanes(const float* x, const float* weights, const Qkx2Params& p, uint8_t* L,
                         float* scales_out, float* the_mins) {
  const int nmax = p.nmax;
  VF X[kSub], W[kSub];
  for (int i = 0; i < kSub; ++i) {
    for (int j = 0; j < kLanes; ++j) {
      X[i][j] = x[kSub * j + i];
      W[i][j] = weights[kSub * j + i];
    }
  }
  VF min = X[0];
  VF max = X[0];
  VF sum_w = W[0];
  VF sum_x = sum_w * X[0];
  for (int i = 1; i < kSub; ++i) {
    min = X[i] < min ? X[i] : min;
    max = X[i] > max ? X[i] : max;
    sum_w += W[i];
    sum_x += W[i] * X[i];
  }
  min = min > 0 ? VF{} : min;
  const VI flat = max == min;  // GGML returns early: L = 0, scale 0, the_min = -min

  VF iscale = static_cast<float>(nmax) / (max - min);
  VF scale = 1 / iscale;
  VF best_error = {};
  VI Lv[kSub];
  for (int i = 0; i < kSub; ++i) {
    VI l = NearestIntV(iscale * (X[i] - min));
    l = l < 0 ? VI{} : l;
    l = l > nmax ? VI{} + nmax : l;
    Lv[i] = l;
    VF diff = scale * __builtin_convertvector(l, VF) + min - X[i];
    diff = diff * diff;
    best_error += W[i] * diff;
  }
  for (int is = 0; is <= p.nstep; ++is) {
    iscale = (p.rmin + p.rdelta * is + nmax) / (max - min);
    VF sum_l = {}, sum_l2 = {}, sum_xl = {};
    VI laux[kSub];
    for (int i = 0; i < kSub; ++i) {
      VI l = NearestIntV(iscale * (X[i] - min));
      l = l < 0 ? VI{} : l;
      l = l > nmax ? VI{} + nmax : l;
      laux[i] = l;
      const VF lf = __builtin_convertvector(l, VF);
      const VF wl = W[i] * lf;
      sum_l += wl;
      sum_l2 += wl * lf;
      sum_xl += wl * X[i];
    }
    const VF D = sum_w * sum_l2 - sum_l * sum_l;
    VF this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
    VF this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
    const VI positive_min = this_min > 0;
    this_scale = positive_min ? sum_xl / sum_l2 : this_scale;
    this_min = positive_min ? VF{} : this_min;
    VF cur_error = {};
    for (int i = 0; i < kSub; ++i) {
      VF diff = this_scale * __builtin_convertvector(laux[i], VF) + this_min - X[i];
      diff = diff * diff;
      cur_error += W[i] * diff;
    }
    const VI accept = (D > 0) & (cur_error < best_error) & ~flat;
    for (int i = 0; i < kSub; ++i) Lv[i] = accept ? laux[i] : Lv[i];
    best_error = accept ? cur_error : best_error;
    scale = accept ? this_scale : scale;
    min = accept ? this_min : min;
  }
  for (int j = 0; j < kLanes; ++j) {
    const bool is_flat = flat[j] != 0;
    for (int i = 0; i < kSub; ++i) {
      L[kSub * j + i] = is_flat ? 0 : static_cast<uint8_t>(Lv[i][j]);
    }
    scales_out[j] = is_flat ? 0.f : scale[j];
    the_mins[j] = -min[j];
  }
}

}  // namespace

void QuantizeKSuperBlock(const float* x, const Qkx2Params& params, uint16_t* d_bits,
                         uint16_t* dmin_bits, uint8_t scales_out[12], uint8_t L[256]) {
  float mins[8];
  float scales[8];
  float max_scale = 0;  // as the min is deducted, scales are always positive
  float max_min = 0;
  float all_weights[8 * kSub];
  for (int j = 0; j < 8; ++j) {
    const float* xs = x + kSub * j;
    float sum_x2 = 0;
    for (int l = 0; l < kSub; ++l) sum_x2 += xs[l] * xs[l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (int l = 0; l < kSub; ++l) all_weights[kSub * j + l] = av_x + std::fabs(xs[l]);
  }
  for (int j = 0; j < 8; j += kLanes) {
    MakeQkx2QuantsLanes(x + kSub * j, all_weights + kSub * j, params, L + kSub * j, scales + j,
                        mins + j);
  }
  for (int j = 0; j < 8; ++j) {
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
