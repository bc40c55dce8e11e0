// The X16 repack (layouts in repack_x16.h): one pass over the GGML blocks of each 16-row group,
// tile by tile. Row r of a tile is lane r of every 64-byte vector, 4 bytes at 4 r: each format's
// Put computes those 32-bit lanes from the block with word operations (nibble and bit planes
// moved 4 values at a time) and stores them straight into the tile. Every byte of a tile belongs
// to one (row, block) lane, so a tile is only cleared first where rows or a paired block are
// missing. Byte-identical to the value-by-value reference (repack_x16_reference.cc, tested in
// repack_x16_test.cc).
#include "runtime/kernels/internal/repack_x16.h"

#include <algorithm>
#include <cstring>

#include "quantization/block_layout.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the X16 lanes are little-endian words");

constexpr uint32_t kLow4 = 0x0F0F0F0Fu;  // the low nibble of each byte
constexpr uint32_t kLow2 = 0x03030303u;  // the low 2 bits of each byte
constexpr uint32_t kBit0 = 0x01010101u;  // bit 0 of each byte

inline uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline void Store32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void Store16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

// Lane r (4 bytes) of 64-byte vector i at `at`.
inline uint8_t* Lane(uint8_t* at, int i, int r) { return at + x16::kQuadBytes * i + 4 * r; }

#if defined(__SSE2__)
// Word t of v as lane r of vector t (t = 0..3) at `at`.
inline void StoreLanes(__m128i v, int r, uint8_t* at) {
  for (int t = 0; t < 4; ++t) {
    Store32(Lane(at, t, r), static_cast<uint32_t>(_mm_cvtsi128_si32(v)));
    v = _mm_srli_si128(v, 4);
  }
}
#endif

// A 32-value sub-block whose bytes already are (value i) | (value i + 16) << 4 (Q4_0, Q4_1,
// Q5_0, Q5_1, IQ4_XS): chunk t is bytes 4t..4t + 3.
inline void PutPackedNibbles32(const uint8_t* qs, int r, uint8_t* dst) {
  for (int t = 0; t < 4; ++t) Store32(Lane(dst, t, r), Load32(qs + 4 * t));
}

// A 32-value sub-block whose value i is nibble `shift` / 4 of lo[i] (i < 16) or hi[i - 16].
inline void PutNibbles32(const uint8_t* lo, const uint8_t* hi, int shift, int r, uint8_t* dst) {
  for (int t = 0; t < 4; ++t) {
    const uint32_t a = (Load32(lo + 4 * t) >> shift) & kLow4;
    const uint32_t b = (Load32(hi + 4 * t) >> shift) & kLow4;
    Store32(Lane(dst, t, r), a | (b << 4));
  }
}

// The 5th-bit plane of a 32-value sub-block (repack_x16.h: Q5_K, Q5_0): bit 4 p + i of lane byte
// e is bit 4 of value 4 quad + e, quad = 2 p + i / 2 + 4 (i % 2). hb[quad] holds those bits of
// the quad's 4 values at bit 0 of each byte.
inline void PutHighBits32(const uint32_t hb[8], int r, uint8_t* plane) {
  uint32_t word = 0;
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < 4; ++i) word |= hb[2 * p + i / 2 + 4 * (i % 2)] << (4 * p + i);
  }
  Store32(plane + 4 * r, word);
}

// Bits 0..3 of x at bit 0 of bytes 0..3.
inline uint32_t SpreadBits4(uint32_t x) { return ((x & 0xF) * 0x00204081u) & kBit0; }

// The 5th bits of a Q5_0/Q5_1 block (qh: bit j of the little-endian word for value j).
inline void PutQh32(const uint8_t qh[4], int r, uint8_t* plane) {
  const uint32_t bits = Load32(qh);
  uint32_t hb[8];
  for (int q = 0; q < 8; ++q) hb[q] = SpreadBits4(bits >> (4 * q));
  PutHighBits32(hb, r, plane);
}

inline void PutHalf(uint8_t* at, int r, uint16_t v) { Store16(at + 2 * r, v); }

// The formats: GGML block type, values per block, blocks per tile and Put (row r's lanes of
// block s of a tile).
struct Q4_0F {
  using Block = blocks::BlockQ4_0;
  static constexpr int kElems = 32, kPerTile = 2;
  static constexpr size_t kTileBytes = kQ4_0X16TileBytes;
  static void Put(const Block& b, int s, int r, uint8_t* tile) {
    PutPackedNibbles32(b.qs, r, tile + x16::kNibbles32Bytes * s);
    PutHalf(tile + x16::Q4_0::kD + x16::kHalfPerRowBytes * s, r, b.d);
  }
};

struct Q8_0F {
  using Block = blocks::BlockQ8_0;
  static constexpr int kElems = 32, kPerTile = 2;
  static constexpr size_t kTileBytes = kQ8_0X16TileBytes;
  static void Put(const Block& b, int s, int r, uint8_t* tile) {
    const uint8_t* qs = reinterpret_cast<const uint8_t*>(b.qs);
    uint8_t* dst = tile + x16::kLevels32Bytes * s;
    for (int q = 0; q < 8; ++q) Store32(Lane(dst, q, r), Load32(qs + 4 * q) ^ 0x80808080u);
    PutHalf(tile + x16::Q8_0::kD + x16::kHalfPerRowBytes * s, r, b.d);
  }
};

struct Q5_0F {
  using Block = blocks::BlockQ5_0;
  static constexpr int kElems = 32, kPerTile = 2;
  static constexpr size_t kTileBytes = kQ5_0X16TileBytes;
  static void Put(const Block& b, int s, int r, uint8_t* tile) {
    PutPackedNibbles32(b.qs, r, tile + x16::kNibbles32Bytes * s);
    PutQh32(b.qh, r, tile + x16::Q5_0::kHighBits + x16::kQuadBytes * s);
    PutHalf(tile + x16::Q5_0::kD + x16::kHalfPerRowBytes * s, r, b.d);
  }
};

struct Q4_1F {
  using Block = blocks::BlockQ4_1;
  static constexpr int kElems = 32, kPerTile = 2;
  static constexpr size_t kTileBytes = kQ4_1X16TileBytes;
  static void Put(const Block& b, int s, int r, uint8_t* tile) {
    PutPackedNibbles32(b.qs, r, tile + x16::kNibbles32Bytes * s);
    PutHalf(tile + x16::Q4_1::kD + x16::kHalfPerRowBytes * s, r, b.d);
    PutHalf(tile + x16::Q4_1::kM + x16::kHalfPerRowBytes * s, r, b.m);
  }
};

struct Q5_1F {
  using Block = blocks::BlockQ5_1;
  static constexpr int kElems = 32, kPerTile = 2;
  static constexpr size_t kTileBytes = kQ5_1X16TileBytes;
  static void Put(const Block& b, int s, int r, uint8_t* tile) {
    PutPackedNibbles32(b.qs, r, tile + x16::kNibbles32Bytes * s);
    PutQh32(b.qh, r, tile + x16::Q5_1::kHighBits + x16::kQuadBytes * s);
    PutHalf(tile + x16::Q5_1::kD + x16::kHalfPerRowBytes * s, r, b.d);
    PutHalf(tile + x16::Q5_1::kM + x16::kHalfPerRowBytes * s, r, b.m);
  }
};

// Q4_K/Q5_K's scales block: the 6-bit scales and mins unpacked, d and dmin as stored.
template <typename B>
void PutKScales(const B& b, int r, uint8_t* at) {
  uint8_t sc[8], mn[8];
  blocks::UnpackKScales(b.scales, sc, mn);
  for (int s = 0; s < 8; ++s) {
    at[x16::KScales::kScales + kX16Rows * s + r] = sc[s];
    at[x16::KScales::kMins + kX16Rows * s + r] = mn[s];
  }
  PutHalf(at + x16::KScales::kD, r, b.d);
  PutHalf(at + x16::KScales::kDmin, r, b.dmin);
}

// Sub-block s (32 values) of a Q4_K/Q5_K super-block: nibble s % 2 of qs[32 (s / 2) + i].
inline void PutKNibbles(const uint8_t* qs, int s, int r, uint8_t* tile) {
  const uint8_t* lo = qs + 32 * (s / 2);
  PutNibbles32(lo, lo + 16, 4 * (s % 2), r, tile + x16::kNibbles32Bytes * s);
}

struct Q4_KF {
  using Block = blocks::BlockQ4_K;
  static constexpr int kElems = 256, kPerTile = 1;
  static constexpr size_t kTileBytes = kQ4_KX16TileBytes;
  static void Put(const Block& b, int /*s*/, int r, uint8_t* tile) {
#if defined(__SSE2__)
    // Sub-blocks 2j (low nibbles) and 2j + 1 (high) of qs[32 j..]: chunk t of each is word t of
    // (a & 0x0F) | (b << 4 & 0xF0), (a >> 4 & 0x0F) | (b & 0xF0).
    const __m128i low = _mm_set1_epi8(0x0F), high = _mm_set1_epi8(static_cast<char>(0xF0));
    for (int j = 0; j < 4; ++j) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 32 * j));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qs + 32 * j + 16));
      StoreLanes(_mm_or_si128(_mm_and_si128(a, low), _mm_and_si128(_mm_slli_epi16(c, 4), high)), r,
                 tile + x16::kNibbles32Bytes * (2 * j));
      StoreLanes(_mm_or_si128(_mm_and_si128(_mm_srli_epi16(a, 4), low), _mm_and_si128(c, high)), r,
                 tile + x16::kNibbles32Bytes * (2 * j + 1));
    }
#else
    for (int s = 0; s < 8; ++s) PutKNibbles(b.qs, s, r, tile);
#endif
    PutKScales(b, r, tile + x16::Q4_K::kScalesAt);
  }
};

struct Q5_KF {
  using Block = blocks::BlockQ5_K;
  static constexpr int kElems = 256, kPerTile = 1;
  static constexpr size_t kTileBytes = kQ5_KX16TileBytes;
  static void Put(const Block& b, int /*s*/, int r, uint8_t* tile) {
    for (int s = 0; s < 8; ++s) {
      PutKNibbles(b.qs, s, r, tile);
      uint32_t hb[8];  // the 5th bit of value i of sub-block s: bit s of qh[i]
      for (int q = 0; q < 8; ++q) hb[q] = (Load32(b.qh + 4 * q) >> s) & kBit0;
      PutHighBits32(hb, r, tile + x16::Q5_K::kHighBits + x16::Q5_K::kHighBitsPerSub * s);
    }
    PutKScales(b, r, tile + x16::Q5_K::kScalesAt);
  }
};

// A plane of 2-bit fields (Q6_K's high bits, Q2_K, Q3_K's low bits) of one 16-value sub-block:
// bits 2q..2q + 1 of lane byte e are bits `shift`.. of src[4 q + e].
inline uint32_t TwoBitPlane(const uint8_t* src, int shift) {
  uint32_t word = 0;
  for (int q = 0; q < 4; ++q) word |= ((Load32(src + 4 * q) >> shift) & kLow2) << (2 * q);
  return word;
}

// Value 16 s + i of a Q6_K/Q2_K/Q3_K super-block is in byte 32 (s / 8) + 16 (s % 2) + i of its
// 2-bit array (64 bytes), at bits 2 ((s % 8) / 2).
inline const uint8_t* Sub16(const uint8_t* bits2, int s) {
  return bits2 + 32 * (s / 8) + 16 * (s % 2);
}
inline int Sub16Shift(int s) { return 2 * ((s % 8) / 2); }

struct Q6_KF {
  using Block = blocks::BlockQ6_K;
  static constexpr int kElems = 256, kPerTile = 1;
  static constexpr size_t kTileBytes = kQ6_KX16TileBytes;
  static void Put(const Block& b, int /*s*/, int r, uint8_t* tile) {
#if defined(__SSE2__)
    PutSse2(b, r, tile);
#else
    PutScalar(b, r, tile);
#endif
  }

#if defined(__SSE2__)
  // As PutScalar, 16 values at a time: sub-block s = 8 n + 2 g + h.
  static void PutSse2(const Block& b, int r, uint8_t* tile) {
    const __m128i low = _mm_set1_epi8(0x0F), two = _mm_set1_epi8(0x03);
    for (int n = 0; n < 2; ++n) {
      for (int h = 0; h < 2; ++h) {
        const __m128i hbits =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qh + 32 * n + 16 * h));
        for (int g = 0; g < 4; ++g) {
          const int s = 8 * n + 2 * g + h;
          const __m128i q = _mm_loadu_si128(
              reinterpret_cast<const __m128i*>(b.ql + 64 * n + 32 * (g % 2) + 16 * h));
          const __m128i nib = _mm_and_si128(g < 2 ? q : _mm_srli_epi16(q, 4), low);
          // Words 0, 1: chunk c = the nibbles of values 4c.. (low) and 8 + 4c.. (high).
          const __m128i chunks = _mm_or_si128(nib, _mm_slli_epi16(_mm_srli_si128(nib, 8), 4));
          uint8_t* dst = tile + x16::Q6_K::kNibbles16Bytes * s;
          Store32(Lane(dst, 0, r), static_cast<uint32_t>(_mm_cvtsi128_si32(chunks)));
          Store32(Lane(dst, 1, r),
                  static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(chunks, 4))));
          // Word q: bits 2g.. of quad q; folded into word 0 at bits 2q of each byte.
          __m128i hi = _mm_and_si128(_mm_srl_epi16(hbits, _mm_cvtsi32_si128(2 * g)), two);
          hi = _mm_or_si128(hi, _mm_slli_epi16(_mm_srli_si128(hi, 4), 2));
          hi = _mm_or_si128(hi, _mm_slli_epi16(_mm_srli_si128(hi, 8), 4));
          Store32(tile + x16::Q6_K::kHighBits + x16::kQuadBytes * s + 4 * r,
                  static_cast<uint32_t>(_mm_cvtsi128_si32(hi)));
        }
      }
    }
    for (int s = 0; s < 16; ++s) {
      tile[x16::Q6_K::kScales + kX16Rows * s + r] = static_cast<uint8_t>(b.scales[s]);
    }
    PutHalf(tile + x16::Q6_K::kD, r, b.d);
  }
#endif

  static void PutScalar(const Block& b, int r, uint8_t* tile) {
    for (int s = 0; s < 16; ++s) {
      // The low 4 bits of value 16 s + i: nibble g / 2 of ql[64 (s / 8) + 32 (g % 2) +
      // 16 (s % 2) + i], g = (s % 8) / 2; chunk c holds quads c (low) and c + 2 (high).
      const int g = (s % 8) / 2;
      const uint8_t* ql = b.ql + 64 * (s / 8) + 32 * (g % 2) + 16 * (s % 2);
      const int shift = 4 * (g / 2);
      uint8_t* nib = tile + x16::Q6_K::kNibbles16Bytes * s;
      for (int c = 0; c < 2; ++c) {
        const uint32_t lo = (Load32(ql + 4 * c) >> shift) & kLow4;
        const uint32_t hi = (Load32(ql + 8 + 4 * c) >> shift) & kLow4;
        Store32(Lane(nib, c, r), lo | (hi << 4));
      }
      Store32(tile + x16::Q6_K::kHighBits + x16::kQuadBytes * s + 4 * r,
              TwoBitPlane(b.qh + 32 * (s / 8) + 16 * (s % 2), 2 * g));
      tile[x16::Q6_K::kScales + kX16Rows * s + r] = static_cast<uint8_t>(b.scales[s]);
    }
    PutHalf(tile + x16::Q6_K::kD, r, b.d);
  }
};

struct Q2_KF {
  using Block = blocks::BlockQ2_K;
  static constexpr int kElems = 256, kPerTile = 1;
  static constexpr size_t kTileBytes = kQ2_KX16TileBytes;
  static void Put(const Block& b, int /*s*/, int r, uint8_t* tile) {
    for (int s = 0; s < 16; ++s) {
      Store32(tile + x16::kQuadBytes * s + 4 * r, TwoBitPlane(Sub16(b.qs, s), Sub16Shift(s)));
      tile[x16::Q2_K::kScales + kX16Rows * s + r] = b.scales[s];
    }
    PutHalf(tile + x16::Q2_K::kD, r, b.d);
    PutHalf(tile + x16::Q2_K::kDmin, r, b.dmin);
  }
};

struct Q3_KF {
  using Block = blocks::BlockQ3_K;
  static constexpr int kElems = 256, kPerTile = 1;
  static constexpr size_t kTileBytes = kQ3_KX16TileBytes;
  static void Put(const Block& b, int /*s*/, int r, uint8_t* tile) {
    for (int s = 0; s < 16; ++s) {
      Store32(tile + x16::kQuadBytes * s + 4 * r, TwoBitPlane(Sub16(b.qs, s), Sub16Shift(s)));
      const int low = s < 8 ? (b.scales[s] & 0xF) : (b.scales[s - 8] >> 4);
      const int sc = (low | (((b.scales[8 + s % 4] >> (2 * (s / 4))) & 3) << 4)) - 32;
      tile[x16::Q3_K::kScales + kX16Rows * s + r] = static_cast<uint8_t>(static_cast<int8_t>(sc));
    }
    // Sub-blocks 2p, 2p + 1: bit 4 (s % 2) + q of lane byte e is the 3rd bit of value
    // 16 s + 4 q + e, bit 4 (s / 8) + (s % 8) / 2 of hmask[16 (s % 2) + 4 q + e].
    for (int p = 0; p < 8; ++p) {
      const int shift = 4 * (p / 4) + p % 4;
      uint32_t word = 0;
      for (int h = 0; h < 2; ++h) {
        for (int q = 0; q < 4; ++q) {
          word |= ((Load32(b.hmask + 16 * h + 4 * q) >> shift) & kBit0) << (4 * h + q);
        }
      }
      Store32(tile + x16::Q3_K::kHighBits + x16::kQuadBytes * p + 4 * r, word);
    }
    PutHalf(tile + x16::Q3_K::kD, r, b.d);
  }
};

struct Iq4XsF {
  using Block = blocks::BlockIq4Xs;
  static constexpr int kElems = 256, kPerTile = 1;
  static constexpr size_t kTileBytes = kIq4XsX16TileBytes;
  static void Put(const Block& b, int /*s*/, int r, uint8_t* tile) {
    for (int s = 0; s < 8; ++s) {
      PutPackedNibbles32(b.qs + 16 * s, r, tile + x16::kNibbles32Bytes * s);
      const int sc =
          (((b.scales_l[s / 2] >> (4 * (s % 2))) & 0xF) | (((b.scales_h >> (2 * s)) & 3) << 4)) -
          32;
      tile[x16::Iq4Xs::kScales + kX16Rows * s + r] = static_cast<uint8_t>(static_cast<int8_t>(sc));
    }
    PutHalf(tile + x16::Iq4Xs::kD, r, b.d);
  }
};

// Rows in groups of 16 (zero rows past n), tiles of F::kPerTile blocks in order (a missing last
// block: zeros). A group's rows are read one after another, each from its start to its end (the
// order the hardware prefetches best); the group's tiles (at most some 100 KB) stay in cache
// while its 16 rows fill them.
template <typename F>
void RepackTiles(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  using B = typename F::Block;
  const int64_t nb = k / F::kElems;
  const int64_t tiles = (nb + F::kPerTile - 1) / F::kPerTile;
  const int64_t full_tiles = nb / F::kPerTile;  // the last one may be half empty
  const size_t row_stride = static_cast<size_t>(nb) * sizeof(B);
  for (int64_t g = 0; g * kX16Rows < n; ++g) {
    const int rows = static_cast<int>(std::min<int64_t>(kX16Rows, n - g * kX16Rows));
    const uint8_t* src = w + static_cast<size_t>(g * kX16Rows) * row_stride;
    uint8_t* group = out + static_cast<size_t>(g * tiles) * F::kTileBytes;
    if (rows < kX16Rows) {
      std::memset(group, 0, static_cast<size_t>(tiles) * F::kTileBytes);
    } else if (full_tiles < tiles) {
      std::memset(group + static_cast<size_t>(full_tiles) * F::kTileBytes, 0, F::kTileBytes);
    }
    for (int r = 0; r < rows; ++r) {
      const B* row = reinterpret_cast<const B*>(src + r * row_stride);
      uint8_t* tile = group;
      for (int64_t t = 0; t < full_tiles; ++t, tile += F::kTileBytes, row += F::kPerTile) {
        for (int s = 0; s < F::kPerTile; ++s) F::Put(row[s], s, r, tile);
      }
      for (int64_t b = full_tiles * F::kPerTile; b < nb; ++b) F::Put(*row++, 0, r, tile);
    }
  }
}

}  // namespace

size_t Q4_0X16RowBytes(int64_t k) {
  return static_cast<size_t>((k / 32 + 1) / 2) * kQ4_0X16TileBytes / 16;
}
size_t Q8_0X16RowBytes(int64_t k) {
  return static_cast<size_t>((k / 32 + 1) / 2) * kQ8_0X16TileBytes / 16;
}
size_t Q4_1X16RowBytes(int64_t k) {
  return static_cast<size_t>((k / 32 + 1) / 2) * kQ4_1X16TileBytes / 16;
}
size_t Q5_1X16RowBytes(int64_t k) {
  return static_cast<size_t>((k / 32 + 1) / 2) * kQ5_1X16TileBytes / 16;
}
size_t Q5_0X16RowBytes(int64_t k) {
  return static_cast<size_t>((k / 32 + 1) / 2) * kQ5_0X16TileBytes / 16;
}
size_t Q4_KX16RowBytes(int64_t k) { return static_cast<size_t>(k / 256) * kQ4_KX16TileBytes / 16; }
size_t Q5_KX16RowBytes(int64_t k) { return static_cast<size_t>(k / 256) * kQ5_KX16TileBytes / 16; }
size_t Q6_KX16RowBytes(int64_t k) { return static_cast<size_t>(k / 256) * kQ6_KX16TileBytes / 16; }
size_t Q2_KX16RowBytes(int64_t k) { return static_cast<size_t>(k / 256) * kQ2_KX16TileBytes / 16; }
size_t Q3_KX16RowBytes(int64_t k) { return static_cast<size_t>(k / 256) * kQ3_KX16TileBytes / 16; }
size_t Iq4XsX16RowBytes(int64_t k) {
  return static_cast<size_t>(k / 256) * kIq4XsX16TileBytes / 16;
}

void RepackQ4_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q4_0F>(w, n, k, out);
}
void RepackQ8_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q8_0F>(w, n, k, out);
}
void RepackQ4_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q4_1F>(w, n, k, out);
}
void RepackQ5_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q5_1F>(w, n, k, out);
}
void RepackQ5_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q5_0F>(w, n, k, out);
}
void RepackQ4_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q4_KF>(w, n, k, out);
}
void RepackQ5_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q5_KF>(w, n, k, out);
}
void RepackQ6_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q6_KF>(w, n, k, out);
}
void RepackQ2_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q2_KF>(w, n, k, out);
}
void RepackQ3_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Q3_KF>(w, n, k, out);
}
void RepackIq4XsX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackTiles<Iq4XsF>(w, n, k, out);
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
