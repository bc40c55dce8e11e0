// Byte layouts of GGML's block formats (little endian, packed), and bit-exact fp16/bf16
// conversions. The single description of the blocks shared by the codecs (quantization/) and the
// qmatmul kernels (runtime/kernels/). See FORMATS.md in the design notes for the meaning of
// every field.
#ifndef EDGEQ_QUANTIZATION_BLOCK_LAYOUT_H_
#define EDGEQ_QUANTIZATION_BLOCK_LAYOUT_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

struct BlockQ4_1 {
  uint16_t d;              // fp16 scale
  uint16_t m;              // fp16 min
  uint8_t qs[kQK4_0 / 2];  // like Q4_0; x = q * d + m, q in 0..15
};
static_assert(sizeof(BlockQ4_1) == 20, "Q4_1 block is 20 bytes");

struct BlockQ5_0 {
  uint16_t d;              // fp16 scale
  uint8_t qh[4];           // bit j: 5th bit of element j (little-endian uint32)
  uint8_t qs[kQK4_0 / 2];  // low 4 bits, like Q4_0; x = (q - 16) * d, q in 0..31
};
static_assert(sizeof(BlockQ5_0) == 22, "Q5_0 block is 22 bytes");

struct BlockQ5_1 {
  uint16_t d;  // fp16 scale
  uint16_t m;  // fp16 min
  uint8_t qh[4];
  uint8_t qs[kQK4_0 / 2];  // x = q * d + m, q in 0..31
};
static_assert(sizeof(BlockQ5_1) == 24, "Q5_1 block is 24 bytes");

// IQ4_NL: 4-bit indices into kIq4NlValues; x = d * kIq4NlValues[q].
struct BlockIq4Nl {
  uint16_t d;              // fp16 scale
  uint8_t qs[kQK4_0 / 2];  // nibble layout of Q4_0
};
static_assert(sizeof(BlockIq4Nl) == 18, "IQ4_NL block is 18 bytes");

// The 16 non-linear levels of IQ4_NL and IQ4_XS (GGML's kvalues_iq4nl).
inline constexpr int8_t kIq4NlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// Activation format of Q4_1/Q5_1 dot products: Q8_0's quants plus s = d * sum(qs) (fp16), so
// that the weights' min term is m * s.
struct BlockQ8_1 {
  uint16_t d;  // fp16 scale
  uint16_t s;  // fp16 d * sum(qs)
  int8_t qs[kQK8_0];
};
static_assert(sizeof(BlockQ8_1) == 36, "Q8_1 block is 36 bytes");

struct BlockQ2_K {
  uint8_t scales[kQK_K / 16];  // per 16 values: 4-bit scale (low nibble), 4-bit min (high)
  uint8_t qs[kQK_K / 4];       // 2-bit quants: byte 32c+l holds values 128c' + l + 32s at bits 2s
  uint16_t d;                  // fp16 super-block scale for the scales
  uint16_t dmin;               // fp16 super-block scale for the mins; x = d*sc*q - dmin*m
};
static_assert(sizeof(BlockQ2_K) == 84, "Q2_K block is 84 bytes");

struct BlockQ3_K {
  uint8_t hmask[kQK_K / 8];  // 3rd bit of value 32b + l at bit b of byte l (set: q >= 4)
  uint8_t qs[kQK_K / 4];     // low 2 bits, Q2_K's layout
  uint8_t scales[12];        // 16 6-bit scales (x = d * (sc - 32) * (q - 4))
  uint16_t d;                // fp16, last
};
static_assert(sizeof(BlockQ3_K) == 110, "Q3_K block is 110 bytes");

// IQ4_XS: IQ4_NL's indices under 8 6-bit sub-block scales; x = d * (ls - 32) * kIq4NlValues[q].
struct BlockIq4Xs {
  uint16_t d;
  uint16_t scales_h;             // bits 2ib..2ib+1: the high 2 bits of scale ib
  uint8_t scales_l[kQK_K / 64];  // nibble ib % 2 of byte ib / 2: the low 4 bits of scale ib
  uint8_t qs[kQK_K / 2];         // per 32 values, IQ4_NL's 16-byte nibble layout
};
static_assert(sizeof(BlockIq4Xs) == 136, "IQ4_XS block is 136 bytes");

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

enum class Format : int {
  kQ4_0,
  kQ8_0,
  kQ4_K,
  kQ5_K,
  kQ6_K,
  kBf16,
  kQ4_1,
  kQ5_0,
  kQ5_1,
  kIq4Nl,
  kF16,
  kQ2_K,
  kQ3_K,
  kIq4Xs,
};
inline constexpr int kNumFormats = 14;

// What the kernels quantize the activations to for a dot product with these weights.
enum class ActivationFormat : int {
  kF32,   // no quantization (bf16 weights)
  kQ8_0,  // 32-value blocks (Q4_0, Q8_0, Q5_0, IQ4_NL)
  kQ8_K,  // 256-value super-blocks (the K-quants, IQ4_XS)
  kQ8_1,  // 32-value blocks with d * sum (Q4_1, Q5_1)
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
    {Format::kQ4_1, "q4_1", "Q4_1", 3, kQK4_0, sizeof(BlockQ4_1), ActivationFormat::kQ8_1},
    {Format::kQ5_0, "q5_0", "Q5_0", 6, kQK4_0, sizeof(BlockQ5_0), ActivationFormat::kQ8_0},
    {Format::kQ5_1, "q5_1", "Q5_1", 7, kQK4_0, sizeof(BlockQ5_1), ActivationFormat::kQ8_1},
    {Format::kIq4Nl, "iq4_nl", "IQ4_NL", 20, kQK4_0, sizeof(BlockIq4Nl), ActivationFormat::kQ8_0},
    {Format::kF16, "f16", "F16", 1, 1, sizeof(uint16_t), ActivationFormat::kF32},
    {Format::kQ2_K, "q2_k", "Q2_K", 10, kQK_K, sizeof(BlockQ2_K), ActivationFormat::kQ8_K},
    {Format::kQ3_K, "q3_k", "Q3_K", 11, kQK_K, sizeof(BlockQ3_K), ActivationFormat::kQ8_K},
    {Format::kIq4Xs, "iq4_xs", "IQ4_XS", 23, kQK_K, sizeof(BlockIq4Xs), ActivationFormat::kQ8_K},
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

// ---- Helpers shared by the codecs and the kernels ----
//
// Internal linkage (an unnamed namespace): every file, whatever its -m flags, compiles its own
// copy, so the linker can never pick a copy built for an ISA the CPU lacks.
namespace {

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

// GGML's fp32 -> fp16 of a tensor value (the f16 codec's, and an f16 KV cache's): a NaN becomes the
// quiet NaN 0x7e00 with its sign, anything else FloatToFp16.
inline uint16_t GgmlFloatToFp16(float f) {
  const uint32_t u = FloatBits(f);
  return (u & 0x7fffffffu) > 0x7f800000u ? static_cast<uint16_t>(((u >> 16) & 0x8000u) | 0x7e00u)
                                         : FloatToFp16(f);
}

// bf16 -> float (exact).
inline float Bf16ToFloat(uint16_t b) { return BitsFloat(static_cast<uint32_t>(b) << 16); }

// GGML's nearest_int: adds 1.5 * 2^23 and reads the mantissa, i.e. round half to even for
// |f| < 2^22. Defined (no UB) for every input, including NaN and Inf.
inline int NearestInt(float f) {
  const float v = f + 12582912.f;
  int32_t i;
  std::memcpy(&i, &v, sizeof(i));
  return (i & 0x007fffff) - 0x00400000;
}

// GGML's get_scale_min_k4: the 6-bit scale and min of sub-block j (0..7) of the 12 packed scale
// bytes `q` of a Q4_K/Q5_K super-block.
inline void GetScaleMinK4(int j, const uint8_t* q, uint8_t* d, uint8_t* m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4));
  }
}

// All 8 sub-blocks' scales and mins.
inline void UnpackKScales(const uint8_t* q, uint8_t sc[8], uint8_t mn[8]) {
  for (int j = 0; j < 8; ++j) GetScaleMinK4(j, q, &sc[j], &mn[j]);
}

// GGML's quantize_row_q8_0_ref for one block of 32: d = amax / 127, qs = roundf(x / d) (half
// away from zero), d stored as fp16; returns the fp16 bits of d. Where GGML has undefined
// behaviour (largest |x| below about 3.7e-37: the f32 scale is subnormal and 1/d is inf) the
// quants are zero; the stored scale is 0, so the block decodes to zeros either way. Used by the
// Q8_0 codec and by the kernels' Q8_0 activation quantizers.
inline uint16_t QuantizeBlockQ8_0(const float* x, int8_t* qs) {
#if defined(__SSE2__)
  const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
  __m128 m = _mm_setzero_ps();
  for (int k = 0; k < 8; ++k) m = _mm_max_ps(m, _mm_and_ps(_mm_loadu_ps(x + 4 * k), abs_mask));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_max_ps(m, _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
  const float amax = _mm_cvtss_f32(m);
#else
  float amax = 0.0f;
  for (int j = 0; j < kQK8_0; ++j) {
    const float a = std::fabs(x[j]);
    amax = amax > a ? amax : a;
  }
#endif
  const float d = amax / ((1 << 7) - 1);
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  const uint16_t d_bits = FloatToFp16(d);
  if (std::isinf(id)) {
    for (int j = 0; j < kQK8_0; ++j) qs[j] = 0;
    return d_bits;
  }
#if defined(__SSE2__)
  // roundf(v) = trunc(v) + (|v - trunc(v)| >= 0.5 ? sign(v) : 0); v - trunc(v) is exact.
  const __m128 vid = _mm_set1_ps(id);
  const __m128 half = _mm_set1_ps(0.5f);
  const __m128 neg_half = _mm_set1_ps(-0.5f);
  __m128i q[8];
  for (int k = 0; k < 8; ++k) {
    const __m128 v = _mm_mul_ps(_mm_loadu_ps(x + 4 * k), vid);
    const __m128i t = _mm_cvttps_epi32(v);
    const __m128 frac = _mm_sub_ps(v, _mm_cvtepi32_ps(t));
    // Comparison masks are -1 where true: subtracting the "up" mask adds 1.
    const __m128i up = _mm_castps_si128(_mm_cmpge_ps(frac, half));
    const __m128i down = _mm_castps_si128(_mm_cmple_ps(frac, neg_half));
    q[k] = _mm_add_epi32(_mm_sub_epi32(t, up), down);
  }
  const __m128i w0 = _mm_packs_epi32(q[0], q[1]);
  const __m128i w1 = _mm_packs_epi32(q[2], q[3]);
  const __m128i w2 = _mm_packs_epi32(q[4], q[5]);
  const __m128i w3 = _mm_packs_epi32(q[6], q[7]);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(qs), _mm_packs_epi16(w0, w1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(qs + 16), _mm_packs_epi16(w2, w3));
#else
  for (int j = 0; j < kQK8_0; ++j) qs[j] = static_cast<int8_t>(std::roundf(x[j] * id));
#endif
  return d_bits;
}

}  // namespace

}  // namespace blocks
}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_BLOCK_LAYOUT_H_
