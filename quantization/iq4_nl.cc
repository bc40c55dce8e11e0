// IQ4_NL: 32 values in 18 bytes (fp16 scale d, 16 bytes of 4-bit indices into the non-linear
// levels blocks::kIq4NlValues); x = d * kIq4NlValues[q].
//
// Matches GGML's quantize_row_iq4_nl_ref (no importance matrix: weights x^2, no scale search)
// and dequantize_row_iq4_nl bit for bit. One deviation: for a block whose largest |x| is below
// 1e-15 GGML stores scale 0 and leaves the indices unwritten, so its bytes are the previous
// block's indices (or uninitialized stack for the first block of a call); edgeq stores index 8
// (level +1) everywhere. The scale is 0, so the block decodes to zeros either way.
#include <cmath>
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK4_0;
constexpr int kBlockBytes = sizeof(blocks::BlockIq4Nl);
constexpr float kGroupMaxEpsIq4 = 1e-15f;  // GGML's GROUP_MAX_EPS

// GGML's best_index_int8 over the 16 levels: the nearest level, the upper one on a tie.
int BestIndex(float x) {
  const int8_t* val = blocks::kIq4NlValues;
  if (x <= val[0]) return 0;
  if (x >= val[15]) return 15;
  int ml = 0, mu = 15;
  while (mu - ml > 1) {
    const int mav = (ml + mu) / 2;
    if (x < val[mav]) {
      mu = mav;
    } else {
      ml = mav;
    }
  }
  return x - val[mu - 1] < val[mu] - x ? mu - 1 : mu;
}

void QuantizeBlock(const float* x, uint8_t* out) {
  float weight[kQK];
  uint8_t L[kQK];
  for (int j = 0; j < kQK; ++j) weight[j] = x[j] * x[j];
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < kQK; ++j) {
    const float ax = std::fabs(x[j]);
    if (ax > amax) {
      amax = ax;
      max = x[j];
    }
  }
  uint8_t* qs = out + 2;
  if (amax < kGroupMaxEpsIq4) {
    StoreU16(out, blocks::FloatToFp16(0.0f));
    for (int j = 0; j < kQK / 2; ++j) qs[j] = 0x88;
    return;
  }
  const float d0 = max / blocks::kIq4NlValues[0];
  const float id = 1 / d0;
  float sumqx = 0, sumq2 = 0;
  for (int j = 0; j < kQK; ++j) {
    const float al = id * x[j];
    const int l = BestIndex(al);
    L[j] = static_cast<uint8_t>(l);
    const float q = blocks::kIq4NlValues[l];
    const float w = weight[j];
    sumqx += w * q * x[j];
    sumq2 += w * q * q;
  }
  const float d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
  StoreU16(out, blocks::FloatToFp16(d));
  for (int j = 0; j < kQK / 2; ++j) qs[j] = static_cast<uint8_t>(L[j] | (L[16 + j] << 4));
}

}  // namespace

void QuantizeRowIq4Nl(const float* x, uint8_t* out, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) QuantizeBlock(x + i * kQK, out + i * kBlockBytes);
}

void DequantizeRowIq4Nl(const uint8_t* in, float* y, int64_t n) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    const uint8_t* b = in + i * kBlockBytes;
    const float d = blocks::Fp16ToFloat(LoadU16(b));
    const uint8_t* qs = b + 2;
    float* yb = y + i * kQK;
    for (int j = 0; j < kQK / 2; ++j) {
      yb[j] = d * blocks::kIq4NlValues[qs[j] & 0xf];
      yb[j + kQK / 2] = d * blocks::kIq4NlValues[qs[j] >> 4];
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
