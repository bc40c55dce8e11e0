#include "examples/tinystories/internal/quant.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tinystories {
namespace internal {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

void QuantizeRowQ4_0(const float* x, uint8_t* out, int64_t k) {
  for (int64_t b = 0; b < k / 32; ++b, x += 32, out += 18) {
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 32; ++j) {
      if (std::fabs(x[j]) > amax) {
        amax = std::fabs(x[j]);
        max = x[j];
      }
    }
    const float d = max / -8.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t dh = FloatToHalf(d);
    std::memcpy(out, &dh, 2);
    for (int j = 0; j < 16; ++j) {
      float v0 = x[j] * id + 8.5f, v1 = x[j + 16] * id + 8.5f;
      // Defined for non-finite scales (GGML's cast would be undefined): clamp to [0, 15].
      v0 = std::isfinite(v0) ? std::min(15.0f, std::max(0.0f, v0)) : 8.0f;
      v1 = std::isfinite(v1) ? std::min(15.0f, std::max(0.0f, v1)) : 8.0f;
      out[2 + j] = static_cast<uint8_t>(static_cast<int>(v0) | (static_cast<int>(v1) << 4));
    }
  }
}

void QuantizeRowQ8_0(const float* x, uint8_t* out, int64_t k) {
  for (int64_t b = 0; b < k / 32; ++b, x += 32, out += 34) {
    float amax = 0.0f;
    for (int j = 0; j < 32; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    const uint16_t dh = FloatToHalf(d);
    std::memcpy(out, &dh, 2);
    for (int j = 0; j < 32; ++j) {
      const float v = x[j] * id;
      out[2 + j] = static_cast<uint8_t>(static_cast<int8_t>(
          std::isfinite(v) ? std::roundf(std::min(127.0f, std::max(-127.0f, v))) : 0.0f));
    }
  }
}

}  // namespace

uint16_t FloatToHalf(float f) {
  const uint32_t x = Bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u)
    return static_cast<uint16_t>(sign | (abs > 0x7F800000u ? 0x7E00u : 0x7C00u));
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs < 0x38800000u) {  // subnormal half (or zero): round to nearest even at 2^-24
    const float v = FromBits(abs) * 16777216.0f;  // exact scaling into integer units of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(v)));
  }
  const uint32_t mant_round = abs + 0xFFFu + ((abs >> 13) & 1u);  // round to nearest even
  return static_cast<uint16_t>(sign | ((mant_round - 0x38000000u) >> 13));
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0) {
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return FromBits(sign | 0x7F800000u | (mant << 13));
  return FromBits(sign | ((exp + 112) << 23) | (mant << 13));
}

int ElementsPerBlock(absl::string_view e) {
  if (e == "q4_0" || e == "q8_0") return 32;
  if (e == "bf16") return 1;
  return 0;
}
int BlockBytes(absl::string_view e) {
  if (e == "q4_0") return 18;
  if (e == "q8_0") return 34;
  if (e == "bf16") return 2;
  return 0;
}
bool IsKnownEncoding(absl::string_view e) { return ElementsPerBlock(e) > 0; }

absl::StatusOr<Tensor> Quantize(const Tensor& f32, absl::string_view encoding) {
  if (!IsKnownEncoding(encoding)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("unknown encoding '%s' (this build knows q4_0, q8_0, bf16)", encoding));
  }
  if (f32.dtype() != DType::kFloat32 || f32.is_quantized() || f32.rank() != 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Quantize(%s): expected a 2-D f32 tensor, got %s", encoding, f32.DebugString()));
  }
  const int64_t n = f32.shape().dim(0), k = f32.shape().dim(1);
  const int epb = ElementsPerBlock(encoding), bb = BlockBytes(encoding);
  if (k % epb != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("encoding %s needs K (the row length) to be a multiple of %d, got K = %d",
                        encoding, epb, k));
  }
  const int64_t row_bytes = k / epb * bb;
  EDGEQ_ASSIGN_OR_RETURN(Tensor q, Tensor::Create(DType::kUInt8, Shape({n, row_bytes})));
  const float* x = static_cast<const float*>(f32.raw_data());
  uint8_t* out = static_cast<uint8_t*>(q.raw_mutable_data());
  for (int64_t i = 0; i < n; ++i) {
    const float* row = x + i * k;
    uint8_t* o = out + i * row_bytes;
    if (encoding == "q4_0") {
      QuantizeRowQ4_0(row, o, k);
    } else if (encoding == "q8_0") {
      QuantizeRowQ8_0(row, o, k);
    } else {
      for (int64_t j = 0; j < k; ++j) {
        const uint32_t u = Bits(row[j]);
        uint16_t b;
        if ((u & 0x7FFFFFFFu) > 0x7F800000u) {
          b = static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
        } else {
          b = static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
        }
        std::memcpy(o + 2 * j, &b, 2);
      }
    }
  }
  q.SetQuantization(std::string(encoding), Shape({n, k}));
  return q;
}

void DequantizeRow(absl::string_view e, const uint8_t* in, float* out, int64_t k) {
  if (e == "bf16") {
    for (int64_t j = 0; j < k; ++j) {
      uint16_t b;
      std::memcpy(&b, in + 2 * j, 2);
      out[j] = FromBits(static_cast<uint32_t>(b) << 16);
    }
    return;
  }
  const bool q4 = e == "q4_0";
  for (int64_t b = 0; b < k / 32; ++b) {
    uint16_t dh;
    std::memcpy(&dh, in, 2);
    const float d = HalfToFloat(dh);
    for (int j = 0; j < 32; ++j) {
      if (q4) {
        const int q = j < 16 ? (in[2 + j] & 0x0F) : (in[2 + j - 16] >> 4);
        out[b * 32 + j] = (q - 8) * d;
      } else {
        out[b * 32 + j] = static_cast<int8_t>(in[2 + j]) * d;
      }
    }
    in += q4 ? 18 : 34;
  }
}

void QuantizeActivationQ8(const float* x, int64_t k, uint8_t* out) { QuantizeRowQ8_0(x, out, k); }

float DotRowQ4_0(const uint8_t* row, const uint8_t* xq, int64_t k) {
  float sum = 0.0f;
  for (int64_t b = 0; b < k / 32; ++b, row += 18, xq += 34) {
    uint16_t dw, dx;
    std::memcpy(&dw, row, 2);
    std::memcpy(&dx, xq, 2);
    const int8_t* xs = reinterpret_cast<const int8_t*>(xq + 2);
    int acc = 0;
    for (int j = 0; j < 16; ++j) {
      acc += ((row[2 + j] & 0x0F) - 8) * xs[j] + ((row[2 + j] >> 4) - 8) * xs[j + 16];
    }
    sum += HalfToFloat(dw) * HalfToFloat(dx) * static_cast<float>(acc);
  }
  return sum;
}

float DotRowQ8_0(const uint8_t* row, const uint8_t* xq, int64_t k) {
  float sum = 0.0f;
  for (int64_t b = 0; b < k / 32; ++b, row += 34, xq += 34) {
    uint16_t dw, dx;
    std::memcpy(&dw, row, 2);
    std::memcpy(&dx, xq, 2);
    const int8_t* ws = reinterpret_cast<const int8_t*>(row + 2);
    const int8_t* xs = reinterpret_cast<const int8_t*>(xq + 2);
    int acc = 0;
    for (int j = 0; j < 32; ++j) acc += ws[j] * xs[j];
    sum += HalfToFloat(dw) * HalfToFloat(dx) * static_cast<float>(acc);
  }
  return sum;
}

float DotRowBf16(const uint8_t* row, const float* x, int64_t k) {
  float sum = 0.0f;
  for (int64_t j = 0; j < k; ++j) {
    uint16_t b;
    std::memcpy(&b, row + 2 * j, 2);
    sum += FromBits(static_cast<uint32_t>(b) << 16) * x[j];
  }
  return sum;
}

}  // namespace internal
}  // namespace tinystories
}  // namespace edgeq
