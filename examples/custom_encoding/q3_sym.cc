#include "examples/custom_encoding/q3_sym.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

#include "quantization/block_layout.h"

namespace edgeq {
namespace examples {

constexpr char Q3SymEncoding::kName[];

void Q3SymEncoding::QuantizeRow(const float* x, uint8_t* out, int64_t num_elements) const {
  for (int64_t b = 0; b < num_elements / kBlockValues; ++b, x += kBlockValues) {
    uint8_t* block = out + b * kBlockBytes;
    float amax = 0.0f;
    float max = 0.0f;
    for (int i = 0; i < kBlockValues; ++i) {
      if (std::fabs(x[i]) > amax) {
        amax = std::fabs(x[i]);
        max = x[i];
      }
    }
    const float d = max / -4;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t d16 = blocks::FloatToFp16(d);
    block[0] = static_cast<uint8_t>(d16 & 0xff);
    block[1] = static_cast<uint8_t>(d16 >> 8);
    uint8_t* codes = block + 2;
    std::memset(codes, 0, kBlockBytes - 2);
    for (int i = 0; i < kBlockValues; ++i) {
      // x * id lies in [-4, 4]; +4.5 and truncation round to the nearest code. A non-finite id
      // (subnormal d) gives code 4, i.e. zero.
      const float v = x[i] * id + 4.5f;
      int q = std::isfinite(v) ? static_cast<int>(std::fmin(std::fmax(v, 0.0f), 7.0f)) : 4;
      const int bit = 3 * i;
      codes[bit / 8] |= static_cast<uint8_t>(q << (bit % 8));
      if (bit % 8 > 5) codes[bit / 8 + 1] |= static_cast<uint8_t>(q >> (8 - bit % 8));
    }
  }
}

void Q3SymEncoding::DequantizeRow(const uint8_t* in, float* y, int64_t num_elements) const {
  for (int64_t b = 0; b < num_elements / kBlockValues; ++b, y += kBlockValues) {
    const uint8_t* block = in + b * kBlockBytes;
    const float d = blocks::Fp16ToFloat(static_cast<uint16_t>(block[0] | (block[1] << 8)));
    const uint8_t* codes = block + 2;
    for (int i = 0; i < kBlockValues; ++i) {
      const int bit = 3 * i;
      int q = codes[bit / 8] >> (bit % 8);
      if (bit % 8 > 5) q |= codes[bit / 8 + 1] << (8 - bit % 8);
      y[i] = static_cast<float>((q & 7) - 4) * d;
    }
  }
}

absl::Status RegisterQ3SymEncoding() {
  if (FindEncoding(Q3SymEncoding::kName).ok()) return absl::OkStatus();
  absl::Status s = EncodingRegistry::Global().Register(std::make_unique<Q3SymEncoding>());
  // Another thread may have registered it between the check and the call.
  return absl::IsAlreadyExists(s) ? absl::OkStatus() : s;
}

}  // namespace examples
}  // namespace edgeq
