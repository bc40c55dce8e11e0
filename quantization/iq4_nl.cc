// IQ4_NL: 32 values in 18 bytes (fp16 scale d, 16 bytes of 4-bit indices into the non-linear
// levels blocks::kIq4NlValues); x = d * kIq4NlValues[q].
//
// QuantizeRowIq4Nl (the encoding's quantizer) matches GGML's quantize_iq4_nl without an
// importance matrix, which is what llama-quantize writes (a search over 15 candidate scales,
// ntry = 7). QuantizeRowIq4NlRef matches GGML's quantize_row_iq4_nl_ref (no search, ntry = -1).
// Both are bit for bit; see internal/iq4.h for the one place where GGML leaves bytes unwritten.
#include <cstdint>

#include "quantization/block_layout.h"
#include "quantization/internal/codecs.h"
#include "quantization/internal/iq4.h"

namespace edgeq {
namespace quantization_internal {
namespace {

constexpr int kQK = blocks::kQK4_0;
constexpr int kBlockBytes = sizeof(blocks::BlockIq4Nl);

void QuantizeRow(const float* x, uint8_t* out, int64_t n, int ntry) {
  const int64_t nb = n / kQK;
  for (int64_t i = 0; i < nb; ++i) {
    uint8_t* b = out + i * kBlockBytes;
    uint16_t d = 0, unused_h = 0;
    QuantizeIq4SuperBlock(kQK, x + i * kQK, ntry, &d, b + 2, &unused_h, nullptr);
    StoreU16(b, d);
  }
}

}  // namespace

void QuantizeRowIq4Nl(const float* x, uint8_t* out, int64_t n) { QuantizeRow(x, out, n, 7); }

void QuantizeRowIq4NlRef(const float* x, uint8_t* out, int64_t n) { QuantizeRow(x, out, n, -1); }

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
