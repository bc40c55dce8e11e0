// Q6_K: 256 values in 210 bytes: 128 bytes of low nibbles (ql), 64 bytes of high 2-bit pairs
// (qh), 16 int8 sub-block scales and the fp16 super-block scale d (last);
// x = d * sc * (q - 32). Bit-exact with GGML's quantize_row_q6_K_ref / dequantize_row_q6_K.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK_K;
constexpr int kBlockBytes = sizeof(blocks::BlockQ6_K);
constexpr int kQhOffset = kQK / 2;
constexpr int kScalesOffset = kQhOffset + kQK / 4;
constexpr int kDOffset = kScalesOffset + kQK / 16;

inline int Clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// GGML's make_qx_quants(n = 16, nmax = 32, x, L, rmse_type = 1, qw = NULL): weights x^2.
float MakeQxQuants16(const float* x, int8_t* L) {
  constexpr int n = 16;
  constexpr int nmax = 32;
  float max = 0;
  float amax = 0;
  for (int i = 0; i < n; ++i) {
    const float ax = std::fabs(x[i]);
    if (ax > amax) {
      amax = ax;
      max = x[i];
    }
  }
  if (amax < kGroupMaxEps) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    return 0.f;
  }
  float iscale = -nmax / max;
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = Clamp(NearestInt(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<int8_t>(l + nmax);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(nmax + 0.1f * is) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = Clamp(NearestInt(iscale * x[i]), -nmax, nmax - 1);
      const float w = x[i] * x[i];
      sumlx += w * x[i] * l;
      suml2 += w * l * l;
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) {
        const int l = NearestInt(iscale * x[i]);
        L[i] = static_cast<int8_t>(nmax + Clamp(l, -nmax, nmax - 1));
      }
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

}  // namespace

void QuantizeRowQ6_K(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  int8_t L[kQK];
  float scales[kQK / 16];
  for (int64_t i = 0; i < nb; ++i, x += kQK) {
    uint8_t* b = out + i * kBlockBytes;
    float max_scale = 0;
    float max_abs_scale = 0;
    for (int ib = 0; ib < kQK / 16; ++ib) {
      const float scale = MakeQxQuants16(x + 16 * ib, L + 16 * ib);
      scales[ib] = scale;
      const float abs_scale = std::fabs(scale);
      if (abs_scale > max_abs_scale) {
        max_abs_scale = abs_scale;
        max_scale = scale;
      }
    }
    if (max_abs_scale < kGroupMaxEps) {
      std::memset(b, 0, kBlockBytes);
      StoreU16(b + kDOffset, blocks::FloatToFp16(0.f));
      continue;
    }
    int8_t* sc = reinterpret_cast<int8_t*>(b + kScalesOffset);
    const float iscale = -128.f / max_scale;
    StoreU16(b + kDOffset, blocks::FloatToFp16(1 / iscale));
    for (int ib = 0; ib < kQK / 16; ++ib) {
      const int v = NearestInt(iscale * scales[ib]);
      sc[ib] = static_cast<int8_t>(v < 127 ? v : 127);
    }
    const float d_all = blocks::Fp16ToFloat(LoadU16(b + kDOffset));
    for (int j = 0; j < kQK / 16; ++j) {
      const float d = d_all * sc[j];
      if (d == 0.0f) continue;
      for (int ii = 0; ii < 16; ++ii) {
        const int l = Clamp(NearestInt(x[16 * j + ii] / d), -32, 31);
        L[16 * j + ii] = static_cast<int8_t>(l + 32);
      }
    }
    uint8_t* ql = b;
    uint8_t* qh = b + kQhOffset;
    const uint8_t* Lu = reinterpret_cast<const uint8_t*>(L);
    for (int j = 0; j < kQK; j += 128) {
      for (int l = 0; l < 32; ++l) {
        const uint8_t q1 = Lu[j + l + 0] & 0xF;
        const uint8_t q2 = Lu[j + l + 32] & 0xF;
        const uint8_t q3 = Lu[j + l + 64] & 0xF;
        const uint8_t q4 = Lu[j + l + 96] & 0xF;
        ql[l + 0] = static_cast<uint8_t>(q1 | (q3 << 4));
        ql[l + 32] = static_cast<uint8_t>(q2 | (q4 << 4));
        qh[l] = static_cast<uint8_t>((Lu[j + l] >> 4) | ((Lu[j + l + 32] >> 4) << 2) |
                                     ((Lu[j + l + 64] >> 4) << 4) | ((Lu[j + l + 96] >> 4) << 6));
      }
      ql += 64;
      qh += 32;
    }
  }
}

void DequantizeRowQ6_K(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b + kDOffset));
    const uint8_t* ql = b;
    const uint8_t* qh = b + kQhOffset;
    const int8_t* sc = reinterpret_cast<const int8_t*>(b + kScalesOffset);
    for (int n0 = 0; n0 < kQK; n0 += 128) {
      for (int l = 0; l < 32; ++l) {
        const int is = l / 16;
        const int8_t q1 = static_cast<int8_t>((ql[l + 0] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
        const int8_t q2 = static_cast<int8_t>((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
        const int8_t q3 = static_cast<int8_t>((ql[l + 0] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        const int8_t q4 = static_cast<int8_t>((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l + 0] = d * sc[is + 0] * q1;
        y[l + 32] = d * sc[is + 2] * q2;
        y[l + 64] = d * sc[is + 4] * q3;
        y[l + 96] = d * sc[is + 6] * q4;
      }
      y += 128;
      ql += 64;
      qh += 32;
      sc += 8;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
