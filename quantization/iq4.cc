// IQ4_NL / IQ4_XS quantization (see internal/iq4.h), in GGML's order of float operations.
#include "quantization/internal/iq4.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kBlock = 32;  // values per sub-block scale
constexpr const int8_t* kValues = blocks::kIq4NlValues;

// GGML's search for one sub-block: the scale that maximizes (sum w q x)^2 / (sum w q^2) over the
// candidate grids 1/d = (itry + values[0]) / max, itry in [-ntry, ntry], starting from
// d = +-max / values[0]. Writes the indices of the first candidate to L; returns the scale
// (0 for a block whose largest |x| is below kGroupMaxEps).
float SearchScale(const float* x, int ntry, uint8_t* L) {
  float weight[kBlock];
  for (int j = 0; j < kBlock; ++j) weight[j] = x[j] * x[j];
  float amax = 0.0f, max = 0.0f;
  for (int j = 0; j < kBlock; ++j) {
    const float ax = std::fabs(x[j]);
    if (ax > amax) {
      amax = ax;
      max = x[j];
    }
  }
  if (amax < kGroupMaxEps) return 0.0f;
  float d = ntry > 0 ? -max / kValues[0] : max / kValues[0];
  float id = 1 / d;
  float sumqx = 0, sumq2 = 0;
  for (int j = 0; j < kBlock; ++j) {
    const int l = Iq4BestIndex(id * x[j]);
    L[j] = static_cast<uint8_t>(l);
    const float q = kValues[l];
    const float w = weight[j];
    sumqx += w * q * x[j];
    sumq2 += w * q * q;
  }
  d = sumq2 > 0 ? sumqx / sumq2 : 0.f;
  float best = d * sumqx;
  for (int itry = -ntry; itry <= ntry; ++itry) {
    id = (itry + kValues[0]) / max;
    sumqx = sumq2 = 0;
    for (int j = 0; j < kBlock; ++j) {
      const float q = kValues[Iq4BestIndex(id * x[j])];
      const float w = weight[j];
      sumqx += w * q * x[j];
      sumq2 += w * q * q;
    }
    if (sumq2 > 0 && sumqx * sumqx > best * sumq2) {
      d = sumqx / sumq2;
      best = d * sumqx;
    }
  }
  return d;
}

}  // namespace

int Iq4BestIndex(float x) {
  if (x <= kValues[0]) return 0;
  if (x >= kValues[15]) return 15;
  int ml = 0, mu = 15;
  while (mu - ml > 1) {
    const int mav = (ml + mu) / 2;
    if (x < kValues[mav]) {
      mu = mav;
    } else {
      ml = mav;
    }
  }
  return x - kValues[mu - 1] < kValues[mu] - x ? mu - 1 : mu;
}

void QuantizeIq4SuperBlock(int super_block_size, const float* x, int ntry, uint16_t* dh,
                           uint8_t* q4, uint16_t* scales_h, uint8_t* scales_l) {
  const int nb = super_block_size / kBlock;
  uint8_t L[blocks::kQK_K];
  float scales[blocks::kQK_K / kBlock];
  // Indices of sub-blocks the search skips (all near zero): the level nearest to 0.
  const uint8_t zero_index = static_cast<uint8_t>(Iq4BestIndex(0.0f));
  std::memset(L, zero_index, sizeof(L));
  float max_scale = 0, amax_scale = 0;
  for (int ib = 0; ib < nb; ++ib) {
    scales[ib] = SearchScale(x + ib * kBlock, ntry, L + ib * kBlock);
    const float abs_d = std::fabs(scales[ib]);
    if (abs_d > amax_scale) {
      amax_scale = abs_d;
      max_scale = scales[ib];
    }
  }
  if (nb > 1) {
    *scales_h = 0;
    const float d = -max_scale / 32;
    *dh = blocks::FloatToFp16(d);
    const float id = d != 0.0f ? 1 / d : 0.f;
    for (int ib = 0; ib < nb; ++ib) {
      int l = blocks::NearestInt(id * scales[ib]);
      l = l < -32 ? -32 : (l > 31 ? 31 : l);
      const float dl = d * l;
      const float idl = dl != 0.0f ? 1 / dl : 0.f;
      const float* xb = x + ib * kBlock;
      for (int j = 0; j < kBlock; ++j) {
        L[ib * kBlock + j] = static_cast<uint8_t>(Iq4BestIndex(idl * xb[j]));
      }
      l += 32;
      const uint8_t l_l = static_cast<uint8_t>(l & 0xf);
      const uint8_t l_h = static_cast<uint8_t>(l >> 4);
      if (ib % 2 == 0) {
        scales_l[ib / 2] = l_l;
      } else {
        scales_l[ib / 2] |= static_cast<uint8_t>(l_l << 4);
      }
      *scales_h = static_cast<uint16_t>(*scales_h | (l_h << 2 * (ib % 8)));
    }
  } else {
    *dh = blocks::FloatToFp16(scales[0]);
    if (ntry > 0) {
      const float id = scales[0] != 0.0f ? 1 / scales[0] : 0;
      for (int j = 0; j < super_block_size; ++j)
        L[j] = static_cast<uint8_t>(Iq4BestIndex(id * x[j]));
    }
  }
  for (int i = 0; i < super_block_size / 32; ++i) {
    for (int j = 0; j < 16; ++j) {
      q4[16 * i + j] = static_cast<uint8_t>(L[32 * i + j] | (L[32 * i + 16 + j] << 4));
    }
  }
}

}  // namespace quantization_internal
}  // namespace edgeq
