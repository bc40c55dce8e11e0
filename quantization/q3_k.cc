// Q3_K: 256 values in 110 bytes: 32 bytes hmask (the 3rd bit of each quant), 64 bytes of low
// 2-bit quants, 12 bytes of 16 packed 6-bit sub-block scales, fp16 d (last);
// x = d * (sc - 32) * (q - 4), q in 0..7. Bit-exact with GGML's quantize_row_q3_K_ref /
// dequantize_row_q3_K (same float operations in the same order; see internal/codecs.h).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK_K;
constexpr int kBlockBytes = sizeof(blocks::BlockQ3_K);
constexpr int kQsOffset = kQK / 8;
constexpr int kScalesOffset = kQsOffset + kQK / 4;
constexpr int kDOffset = kScalesOffset + 12;

inline int Clamp(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

// GGML's make_q3_quants(n = 16, nmax = 4, x, L, do_rmse = true): levels L in 0..7 (or all 0 for
// a near-zero group), weights x^2, up to 5 rounds of per-value improvements.
float MakeQ3Quants16(const float* x, int8_t* L) {
  constexpr int n = 16;
  constexpr int nmax = 4;
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
  const float iscale = -nmax / max;
  float sumlx = 0;
  float suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = Clamp(NearestInt(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<int8_t>(l);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * l;
    suml2 += w * l * l;
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      float slx = sumlx - w * x[i] * L[i];
      if (slx > 0) {
        float sl2 = suml2 - w * L[i] * L[i];
        const int new_l = Clamp(NearestInt(x[i] * sl2 / slx), -nmax, nmax - 1);
        if (new_l != L[i]) {
          slx += w * x[i] * new_l;
          sl2 += w * new_l * new_l;
          if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<int8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (n_changed == 0) break;
  }
  for (int i = 0; i < n; ++i) L[i] = static_cast<int8_t>(L[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

// The 6-bit scale (0..63) of sub-block j from the 12 packed bytes.
inline int ScaleQ3(const uint8_t* s, int j) {
  const int low = j < 8 ? (s[j] & 0xF) : (s[j - 8] >> 4);
  return low | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4);
}

void QuantizeBlock(const float* x, uint8_t* out) {
  int8_t L[kQK];
  float scales[kQK / 16];
  uint8_t* hmask = out;
  uint8_t* qs = out + kQsOffset;
  uint8_t* sc = out + kScalesOffset;
  float max_scale = 0;
  float amax = 0;
  for (int j = 0; j < kQK / 16; ++j) {
    scales[j] = MakeQ3Quants16(x + 16 * j, L + 16 * j);
    const float scale = std::fabs(scales[j]);
    if (scale > amax) {
      amax = scale;
      max_scale = scales[j];
    }
  }
  std::memset(sc, 0, 12);
  uint16_t d_bits;
  if (max_scale != 0.0f) {
    const float iscale = -32.f / max_scale;
    for (int j = 0; j < kQK / 16; ++j) {
      // GGML stores nearest_int(...) in an int8_t first (the low byte, as gcc converts).
      int l = static_cast<int8_t>(static_cast<uint8_t>(NearestInt(iscale * scales[j]) & 0xff));
      l = Clamp(l, -32, 31) + 32;
      if (j < 8) {
        sc[j] = static_cast<uint8_t>(l & 0xF);
      } else {
        sc[j - 8] = static_cast<uint8_t>(sc[j - 8] | ((l & 0xF) << 4));
      }
      l >>= 4;
      sc[j % 4 + 8] = static_cast<uint8_t>(sc[j % 4 + 8] | (l << (2 * (j / 4))));
    }
    d_bits = blocks::FloatToFp16(1 / iscale);
  } else {
    d_bits = blocks::FloatToFp16(0.f);
  }
  const float dh = blocks::Fp16ToFloat(d_bits);
  for (int j = 0; j < kQK / 16; ++j) {
    const float d = dh * (ScaleQ3(sc, j) - 32);
    if (d == 0.0f) continue;
    for (int ii = 0; ii < 16; ++ii) {
      const int l = Clamp(NearestInt(x[16 * j + ii] / d), -4, 3);
      L[16 * j + ii] = static_cast<int8_t>(l + 4);
    }
  }
  std::memset(hmask, 0, kQK / 8);
  int m = 0;
  uint8_t hm = 1;
  for (int j = 0; j < kQK; ++j) {
    if (L[j] > 3) {
      hmask[m] = static_cast<uint8_t>(hmask[m] | hm);
      L[j] = static_cast<int8_t>(L[j] - 4);
    }
    if (++m == kQK / 8) {
      m = 0;
      hm = static_cast<uint8_t>(hm << 1);
    }
  }
  for (int j = 0; j < kQK; j += 128) {
    for (int l = 0; l < 32; ++l) {
      qs[j / 4 + l] = static_cast<uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) |
                                           (L[j + l + 96] << 6));
    }
  }
  StoreU16(out + kDOffset, d_bits);
}

}  // namespace

void QuantizeRowQ3_K(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowQ3_K(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d_all = blocks::Fp16ToFloat(LoadU16(b + kDOffset));
    const uint8_t* q = b + kQsOffset;
    const uint8_t* hm = b;
    const uint8_t* sc = b + kScalesOffset;
    uint8_t m = 1;
    int is = 0;
    for (int c = 0; c < kQK; c += 128) {
      int shift = 0;
      for (int j = 0; j < 4; ++j) {
        float dl = d_all * (ScaleQ3(sc, is++) - 32);
        for (int l = 0; l < 16; ++l) {
          *y++ = dl * (((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
        }
        dl = d_all * (ScaleQ3(sc, is++) - 32);
        for (int l = 0; l < 16; ++l) {
          *y++ = dl * (((q[l + 16] >> shift) & 3) - ((hm[l + 16] & m) ? 0 : 4));
        }
        shift += 2;
        m = static_cast<uint8_t>(m << 1);
      }
      q += 32;
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
