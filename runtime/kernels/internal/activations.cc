// On-the-fly activation quantization (GGML's quantize_row_q8_0 / quantize_row_q8_K math).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/kernel_api.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using blocks::BlockQ8_0;
using blocks::BlockQ8_K;
using blocks::kQK8_0;
using blocks::kQK_K;

using blocks::NearestInt;
using blocks::QuantizeBlockQ8_0;

// GGML's Q8_1 s of a block (fp16 bits): its f32 scale amax / 127 (not fp16-rounded) times the
// sum of its quantized values q.
uint16_t Q8_1BlockS(const float* xb, const int8_t* q) {
  float amax = 0.0f;
  for (int j = 0; j < kQK8_0; ++j) {
    const float a = std::fabs(xb[j]);
    amax = amax > a ? amax : a;
  }
  int32_t sum = 0;
  for (int j = 0; j < kQK8_0; ++j) sum += q[j];
  return blocks::FloatToFp16(static_cast<float>(sum) * (amax / ((1 << 7) - 1)));
}

}  // namespace

size_t Q8_0RowBytes(int64_t k) { return static_cast<size_t>(k / kQK8_0) * sizeof(BlockQ8_0); }

void QuantizeRowQ8_0(const float* x, int64_t k, uint8_t* out) {
  BlockQ8_0* y = reinterpret_cast<BlockQ8_0*>(out);
  for (int64_t b = 0; b < k / kQK8_0; ++b) {
    y[b].d = QuantizeBlockQ8_0(x + b * kQK8_0, y[b].qs);
  }
}

size_t Q8_0SRowBytes(int64_t k) {
  return static_cast<size_t>(Q8_0SPaddedBlocks(k)) * (kQK8_0 + sizeof(float) + sizeof(int32_t));
}

void QuantizeRowQ8_0S(const float* x, int64_t k, uint8_t* out) {
  const int64_t nb = k / kQK8_0;
  const int64_t nbp = Q8_0SPaddedBlocks(k);
  int8_t* qs = reinterpret_cast<int8_t*>(out);
  float* d = reinterpret_cast<float*>(out + nbp * kQK8_0);
  int32_t* sum = reinterpret_cast<int32_t*>(out + nbp * (kQK8_0 + 4));
  for (int64_t b = 0; b < nb; ++b) {
    int8_t* q = qs + b * kQK8_0;
    d[b] = blocks::Fp16ToFloat(QuantizeBlockQ8_0(x + b * kQK8_0, q));
    int32_t s = 0;
    for (int j = 0; j < kQK8_0; ++j) s += q[j];
    sum[b] = s;
  }
  ZeroPadBlocksQ8_0S(k, out);
}

void ZeroPadBlocksQ8_0S(int64_t k, uint8_t* out) {
  const int64_t nbp = Q8_0SPaddedBlocks(k);
  float* d = reinterpret_cast<float*>(out + nbp * kQK8_0);
  int32_t* sum = reinterpret_cast<int32_t*>(out + nbp * (kQK8_0 + 4));
  for (int64_t b = k / kQK8_0; b < nbp; ++b) {
    std::memset(out + b * kQK8_0, 0, kQK8_0);
    d[b] = 0.0f;
    sum[b] = 0;
  }
}

size_t Q8_1RowBytes(int64_t k) {
  return static_cast<size_t>(k / kQK8_0) * sizeof(blocks::BlockQ8_1);
}

void QuantizeRowQ8_1(const float* x, int64_t k, uint8_t* out) {
  blocks::BlockQ8_1* y = reinterpret_cast<blocks::BlockQ8_1*>(out);
  for (int64_t b = 0; b < k / kQK8_0; ++b) {
    const float* xb = x + b * kQK8_0;
    y[b].d = QuantizeBlockQ8_0(xb, y[b].qs);
    y[b].s = Q8_1BlockS(xb, y[b].qs);
  }
}

size_t Q8_1SRowBytes(int64_t k) {
  return static_cast<size_t>(4 * Q8_0SPaddedBlocks(k)) + Q8_0SRowBytes(k);
}

void QuantizeRowQ8_1S(const float* x, int64_t k, uint8_t* out) {
  const int64_t nb = k / kQK8_0, nbp = Q8_0SPaddedBlocks(k);
  uint8_t* q8_0s = out + 4 * nbp;
  QuantizeRowQ8_0S(x, k, q8_0s);
  float* s = reinterpret_cast<float*>(out);
  for (int64_t b = 0; b < nb; ++b) {
    s[b] = blocks::Fp16ToFloat(Q8_1BlockS(x + b * kQK8_0, Q8_0SQs(q8_0s) + b * kQK8_0));
  }
  for (int64_t b = nb; b < nbp; ++b) s[b] = 0.0f;
}

namespace {

// Row r (0 or 1) of a pair unit, block by block: its values to bytes 16 h + 8 r of each record,
// its scale to d[2 r], d[2 r + 1] and (with_s) Q8_1's s to s[2 r], s[2 r + 1]. x null: zeros.
void QuantizePairRow(const float* x, int r, int64_t k, bool with_s, uint8_t* out) {
  const int64_t record = with_s ? kQ8_1PRecordBytes : kQ8_0PRecordBytes;
  for (int64_t b = 0; b < k / kQK8_0; ++b) {
    uint8_t* rec = out + b * record;
    int8_t q[kQK8_0] = {};
    float d = 0.0f, s = 0.0f;
    if (x != nullptr) {
      const float* xb = x + b * kQK8_0;
      d = blocks::Fp16ToFloat(QuantizeBlockQ8_0(xb, q));
      if (with_s) s = blocks::Fp16ToFloat(Q8_1BlockS(xb, q));
    }
    for (int h = 0; h < 4; ++h) std::memcpy(rec + 16 * h + 8 * r, q + 8 * h, 8);
    float ds[2] = {d, d};
    std::memcpy(rec + 64 + 8 * r, ds, sizeof(ds));
    if (with_s) {
      const float ss[2] = {s, s};
      std::memcpy(rec + 80 + 8 * r, ss, sizeof(ss));
    }
  }
}

}  // namespace

size_t Q8_0PUnitBytes(int64_t k) { return static_cast<size_t>(k / kQK8_0 * kQ8_0PRecordBytes); }

void QuantizePairQ8_0P(const float* x0, const float* x1, int64_t k, uint8_t* out) {
  QuantizePairRow(x0, 0, k, false, out);
  QuantizePairRow(x1, 1, k, false, out);
}

size_t Q8_1PUnitBytes(int64_t k) { return static_cast<size_t>(k / kQK8_0 * kQ8_1PRecordBytes); }

void QuantizePairQ8_1P(const float* x0, const float* x1, int64_t k, uint8_t* out) {
  QuantizePairRow(x0, 0, k, true, out);
  QuantizePairRow(x1, 1, k, true, out);
}

size_t Q8_KTRowBytes(int64_t k) { return Q8_KRowBytes(k); }

void QuantizeRowQ8_KT(const float* x, int64_t k, uint8_t* out) {
  QuantizeRowQ8_K(x, k, out);
  for (int64_t b = 0; b < k / kQK_K; ++b) {
    int8_t* qs = reinterpret_cast<BlockQ8_K*>(out)[b].qs;
    for (int c = 0; c < kQK_K / 64; ++c) {
      int8_t chunk[64];
      std::memcpy(chunk, qs + 64 * c, 64);
      for (int t = 0; t < 4; ++t) {
        for (int g = 0; g < 4; ++g)
          std::memcpy(qs + 64 * c + 16 * t + 4 * g, chunk + 16 * g + 4 * t, 4);
      }
    }
  }
}

size_t Q8_KRowBytes(int64_t k) { return static_cast<size_t>(k / kQK_K) * sizeof(BlockQ8_K); }

void QuantizeRowQ8_K(const float* x, int64_t k, uint8_t* out) {
  BlockQ8_K* y = reinterpret_cast<BlockQ8_K*>(out);
  for (int64_t i = 0; i < k / kQK_K; ++i, x += kQK_K) {
    float max = 0.0f, amax = 0.0f;
    for (int j = 0; j < kQK_K; ++j) {
      const float ax = std::fabs(x[j]);
      if (ax > amax) {
        amax = ax;
        max = x[j];
      }
    }
    if (amax == 0.0f) {
      y[i].d = 0.0f;
      std::memset(y[i].qs, 0, sizeof(y[i].qs));
      std::memset(y[i].bsums, 0, sizeof(y[i].bsums));
      continue;
    }
    const float iscale = -127.f / max;
    for (int j = 0; j < kQK_K; ++j) {
      y[i].qs[j] = static_cast<int8_t>(std::min(127, NearestInt(iscale * x[j])));
    }
    for (int j = 0; j < kQK_K / 16; ++j) {
      int sum = 0;
      for (int l = 0; l < 16; ++l) sum += y[i].qs[j * 16 + l];
      y[i].bsums[j] = static_cast<int16_t>(sum);
    }
    y[i].d = 1 / iscale;
  }
}

size_t Q8_KXRowBytes(int64_t k) { return static_cast<size_t>(k / kQK_K) * sizeof(BlockQ8_KX); }

void SetZeroBlockQ8_KX(BlockQ8_KX* y) { std::memset(y, 0, sizeof(*y)); }

void FinishBlockQ8_KX(const int32_t bsum16[16], float d, BlockQ8_KX* y) {
  for (int j = 0; j < 16; ++j) y->neg32_bsum16[j] = -32 * bsum16[j];
  for (int j = 0; j < 8; ++j)
    y->bsum32[j] = static_cast<int16_t>(bsum16[2 * j] + bsum16[2 * j + 1]);
  y->d = d;
  std::memset(y->pad, 0, sizeof(y->pad));
}

void QuantizeRowQ8_KX(const float* x, int64_t k, uint8_t* out) {
  BlockQ8_KX* y = reinterpret_cast<BlockQ8_KX*>(out);
  for (int64_t i = 0; i < k / kQK_K; ++i) {
    BlockQ8_K b;
    QuantizeRowQ8_K(x + i * kQK_K, kQK_K, reinterpret_cast<uint8_t*>(&b));
    std::memcpy(y[i].qs, b.qs, sizeof(b.qs));
    int32_t bsum16[16];
    for (int j = 0; j < 16; ++j) bsum16[j] = b.bsums[j];
    FinishBlockQ8_KX(bsum16, b.d, &y[i]);
  }
}

size_t F32RowBytes(int64_t /*k*/) { return 0; }

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
