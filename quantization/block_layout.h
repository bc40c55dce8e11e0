// Byte layouts of GGML's block formats (little endian, packed), and bit-exact fp16/bf16
// conversions. The single description of the blocks shared by the codecs (quantization/) and the
// qmatmul kernels (runtime/kernels/). See FORMATS.md in the design notes for the meaning of
// every field.
#ifndef EDGEQ_QUANTIZATION_BLOCK_LAYOUT_H_
#define EDGEQ_QUANTIZATION_BLOCK_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace edgeq {
namespace blocks {

inline constexpr int kQK4_0 = 32;
inline constexpr int kQK8_0 = 32;
inline constexpr int kQK_K = 256;        // Super-block size of the K-quants.
inline constexpr int kKScaleBytes = 12;  // Packed 6-bit scales+mins of Q4_K/Q5_K.

struct BlockQ4_0 {
  uint16_t d;              // fp16 scale
  uint8_t qs[kQK4_0 / 2];  // byte j: element j (low nibble) | element j+16 (high nibble)
};
static_assert(sizeof(BlockQ4_0) == 18, "Q4_0 block is 18 bytes");

struct BlockQ8_0 {
  uint16_t d;  // fp16 scale
  int8_t qs[kQK8_0];
};
static_assert(sizeof(BlockQ8_0) == 34, "Q8_0 block is 34 bytes");

struct BlockQ4_K {
  uint16_t d;                    // fp16 super-block scale for the scales
  uint16_t dmin;                 // fp16 super-block scale for the mins
  uint8_t scales[kKScaleBytes];  // 8 x (6-bit scale, 6-bit min)
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockQ4_K) == 144, "Q4_K block is 144 bytes");

struct BlockQ5_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[kKScaleBytes];
  uint8_t qh[kQK_K / 8];  // 5th bits
  uint8_t qs[kQK_K / 2];
};
static_assert(sizeof(BlockQ5_K) == 176, "Q5_K block is 176 bytes");

struct BlockQ6_K {
  uint8_t ql[kQK_K / 2];
  uint8_t qh[kQK_K / 4];
  int8_t scales[kQK_K / 16];
  uint16_t d;  // fp16, last
};
static_assert(sizeof(BlockQ6_K) == 210, "Q6_K block is 210 bytes");

// Activation format of K-quant dot products.
struct BlockQ8_K {
  float d;
  int8_t qs[kQK_K];
  int16_t bsums[kQK_K / 16];  // sums of each group of 16 qs
};
static_assert(sizeof(BlockQ8_K) == 292, "Q8_K block is 292 bytes");

// ---- The table of built-in block formats ----
//
// Every fact about a built-in block format is written here once, as in ggml's type traits: its
// id, its registry name (looked up ignoring case, so GGML's "Q4_K" and edgeq's "q4_k" both
// work), its GGML type id and name, how many values a block holds in how many bytes, and the
// activation format its qmatmul kernels pair it with. The codecs (quantization/codec_table.cc:
// row quantize/dequantize per id), the kernels' dispatch (runtime/kernels, whose Encoding is
// Format) and the GGUF reader/writer (checkpoint/gguf.cc) index this table. Adding an encoding
// adds a row here, its codec and its kernels.

enum class Format : int { kQ4_0, kQ8_0, kQ4_K, kQ5_K, kQ6_K, kBf16 };
inline constexpr int kNumFormats = 6;

// What the kernels quantize the activations to for a dot product with these weights.
enum class ActivationFormat : int {
  kF32,   // no quantization (bf16 weights)
  kQ8_0,  // 32-value blocks (Q4_0, Q8_0)
  kQ8_K,  // 256-value super-blocks (the K-quants)
};

struct BlockFormat {
  Format id;
  const char* name;       // registry name, lower case
  const char* ggml_name;  // GGML's spelling
  uint32_t ggml_type;     // GGML type id (ggml_type / GGUF tensor type)
  int64_t values_per_block;
  int64_t bytes_per_block;
  ActivationFormat activation;
};

inline constexpr BlockFormat kBlockFormats[kNumFormats] = {
    {Format::kQ4_0, "q4_0", "Q4_0", 2, kQK4_0, sizeof(BlockQ4_0), ActivationFormat::kQ8_0},
    {Format::kQ8_0, "q8_0", "Q8_0", 8, kQK8_0, sizeof(BlockQ8_0), ActivationFormat::kQ8_0},
    {Format::kQ4_K, "q4_k", "Q4_K", 12, kQK_K, sizeof(BlockQ4_K), ActivationFormat::kQ8_K},
    {Format::kQ5_K, "q5_k", "Q5_K", 13, kQK_K, sizeof(BlockQ5_K), ActivationFormat::kQ8_K},
    {Format::kQ6_K, "q6_k", "Q6_K", 14, kQK_K, sizeof(BlockQ6_K), ActivationFormat::kQ8_K},
    {Format::kBf16, "bf16", "BF16", 30, 1, sizeof(uint16_t), ActivationFormat::kF32},
};

constexpr bool BlockFormatsAreIndexedById() {
  for (int i = 0; i < kNumFormats; ++i) {
    if (static_cast<int>(kBlockFormats[i].id) != i) return false;
  }
  return true;
}
static_assert(BlockFormatsAreIndexedById(), "kBlockFormats[i].id must be i");

constexpr const BlockFormat& GetBlockFormat(Format id) {
  return kBlockFormats[static_cast<int>(id)];
}

// ASCII case-insensitive equality of a NUL-terminated name and (p, n).
constexpr bool NameEqualsIgnoreCase(const char* name, const char* p, size_t n) {
  size_t i = 0;
  for (; i < n && name[i] != '\0'; ++i) {
    char a = name[i], b = p[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = static_cast<char>(b - 'A' + 'a');
    if (a != b) return false;
  }
  return i == n && name[i] == '\0';
}

// The format named (p, n) ignoring case ("Q4_K", "q4_k"), or null.
constexpr const BlockFormat* FindBlockFormat(const char* p, size_t n) {
  for (const BlockFormat& f : kBlockFormats) {
    if (NameEqualsIgnoreCase(f.name, p, n)) return &f;
  }
  return nullptr;
}

// The format of GGML type id `ggml_type`, or null.
constexpr const BlockFormat* FindBlockFormatByGgmlType(uint32_t ggml_type) {
  for (const BlockFormat& f : kBlockFormats) {
    if (f.ggml_type == ggml_type) return &f;
  }
  return nullptr;
}

// ---- fp16 / bf16 (bit-exact, no FPU mode dependence) ----

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
inline float BitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// IEEE binary16 -> float (exact).
inline float Fp16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsFloat(sign | 0x7f800000u | (mant << 13));  // inf / NaN
  if (exp == 0) {
    if (mant == 0) return BitsFloat(sign);
    // Subnormal: normalize.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    mant &= 0x3ffu;
    exp = static_cast<uint32_t>(127 - 15 - e);
    return BitsFloat(sign | (exp << 23) | (mant << 13));
  }
  return BitsFloat(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

// float -> IEEE binary16, round to nearest even (same bits as F16C vcvtps2ph imm 0).
inline uint16_t FloatToFp16(float f) {
  const uint32_t x = FloatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN (NaN keeps a quiet payload bit)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? (0x200u | (abs >> 13)) : 0));
  }
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (abs < 0x38800000u) {                                      // result is subnormal or zero
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);  // below half the smallest subnormal
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // 14 + (113 - exp) ... maps to subnormal position
    uint32_t half = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  // Normal: rebias exponent, round mantissa to 10 bits (carry may bump the exponent).
  uint32_t h = ((abs >> 13) - ((127 - 15) << 10));
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

// bf16 -> float (exact).
inline float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

}  // namespace blocks
}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_BLOCK_LAYOUT_H_
