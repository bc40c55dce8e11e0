// Q2_K: 256 values in 84 bytes: 16 sub-block bytes (low nibble: 4-bit scale, high nibble: 4-bit
// min), 64 bytes of 2-bit quants, fp16 d and fp16 dmin (last); x = d * sc * q - dmin * m.
// Bit-exact with GGML's quantize_row_q2_K_ref / dequantize_row_q2_K (same float operations in the
// same order; see internal/codecs.h).
#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK_K;
constexpr int kBlockBytes = sizeof(blocks::BlockQ2_K);
constexpr int kQsOffset = 16;
constexpr int kDOffset = kQsOffset + kQK / 4;

inline int Clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// GGML's make_qkx2_quants(n = 16, nmax = 3, x, weights = |x|, L, &min, Laux, rmin = -0.5,
// rdelta = 0.1, nstep = 15, use_mad = true). Returns the scale; *the_min is minus the offset.
float MakeQkx2Quants16(const float* x, uint8_t* L, float* the_min) {
  constexpr int n = 16;
  constexpr int nmax = 3;
  constexpr float rmin = -0.5f;
  constexpr float rdelta = 0.1f;
  constexpr int nstep = 15;
  float weights[n];
  uint8_t Laux[n];
  for (int i = 0; i < n; ++i) weights[i] = std::fabs(x[i]);
  float min = x[0];
  float max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    *the_min = -min;
    return 0.f;
  }
  float iscale = nmax / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = NearestInt(iscale * (x[i] - min));
    L[i] = static_cast<uint8_t>(Clamp(l, 0, nmax));
    const float diff = std::fabs(scale * L[i] + min - x[i]);
    best_error += weights[i] * diff;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * is + nmax) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
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
      for (int i = 0; i < n; ++i) {
        const float diff = std::fabs(this_scale * Laux[i] + this_min - x[i]);
        cur_error += weights[i] * diff;
      }
      if (cur_error < best_error) {
        for (int i = 0; i < n; ++i) L[i] = Laux[i];
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

void QuantizeBlock(const float* x, uint8_t* out) {
  constexpr float q4scale = 15.f;
  uint8_t L[kQK];
  float mins[kQK / 16];
  float scales[kQK / 16];
  uint8_t* sc = out;
  uint8_t* qs = out + kQsOffset;
  float max_scale = 0;
  float max_min = 0;
  for (int j = 0; j < kQK / 16; ++j) {
    scales[j] = MakeQkx2Quants16(x + 16 * j, L + 16 * j, &mins[j]);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  uint16_t d_bits, dmin_bits;
  if (max_scale > 0) {
    const float iscale = q4scale / max_scale;
    for (int j = 0; j < kQK / 16; ++j) {
      sc[j] = static_cast<uint8_t>(NearestInt(iscale * scales[j]));
    }
    d_bits = blocks::FloatToFp16(max_scale / q4scale);
  } else {
    for (int j = 0; j < kQK / 16; ++j) sc[j] = 0;
    d_bits = blocks::FloatToFp16(0.f);
  }
  if (max_min > 0) {
    const float iscale = q4scale / max_min;
    for (int j = 0; j < kQK / 16; ++j) {
      const int l = NearestInt(iscale * mins[j]);
      sc[j] = static_cast<uint8_t>(sc[j] | static_cast<uint8_t>(static_cast<unsigned>(l) << 4));
    }
    dmin_bits = blocks::FloatToFp16(max_min / q4scale);
  } else {
    dmin_bits = blocks::FloatToFp16(0.f);
  }
  const float dh = blocks::Fp16ToFloat(d_bits);
  const float dminh = blocks::Fp16ToFloat(dmin_bits);
  for (int j = 0; j < kQK / 16; ++j) {
    const float d = dh * (sc[j] & 0xF);
    if (d == 0.0f) continue;
    const float dm = dminh * (sc[j] >> 4);
    for (int ii = 0; ii < 16; ++ii) {
      const int l = NearestInt((x[16 * j + ii] + dm) / d);
      L[16 * j + ii] = static_cast<uint8_t>(Clamp(l, 0, 3));
    }
  }
  for (int j = 0; j < kQK; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) |
                                           (L[j + l + 96] << 6));
    }
  }
  StoreU16(out + kDOffset, d_bits);
  StoreU16(out + kDOffset + 2, dmin_bits);
}

}  // namespace

void QuantizeRowQ2_K(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ2_K(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b + kDOffset));
    const float min = blocks::Fp16ToFloat(LoadU16(b + kDOffset + 2));
    const uint8_t* q = b + kQsOffset;
    int is = 0;
    for (int c = 0; c < kQK; c += 128) {
      int shift = 0;
      for (int j = 0; j < 4; ++j) {
        uint8_t sc = b[is++];
        float dl = d * (sc & 0xF);
        float ml = min * (sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * ((q[l] >> shift) & 3) - ml;
        sc = b[is++];
        dl = d * (sc & 0xF);
        ml = min * (sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * ((q[l + 16] >> shift) & 3) - ml;
        shift += 2;
      }
      q += 32;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
