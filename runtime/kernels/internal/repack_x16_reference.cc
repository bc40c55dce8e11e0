// The X16 repack as first written (repack_x16.h's layouts, one value at a time through a decoded
// block, generic and slow): the reference the fast repack (repack_x16.cc) is tested against
// byte by byte (repack_x16_test.cc). Test-only.
#include "runtime/kernels/internal/repack_x16_reference.h"

#include <cstring>

#include "quantization/block_layout.h"
#include "runtime/kernels/internal/repack_x16.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace reference {
namespace {

// One block of one row, decoded: unsigned levels and per-sub-block scales (and mins).
struct Decoded {
  uint8_t level[256];
  int scale[16];
  int min[8];
  float d, dmin;
  uint16_t pair_d16[2];  // Q4_0: the d of the two blocks of a tile, as stored
  uint16_t pair_m16[2];  // Q4_1, Q5_1: their m
};

// The GGML block decoders (the levels as the generic kernels read them).
void DecodeQ4_0(const uint8_t* p, int s, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ4_0*>(p);
  for (int e = 0; e < 32; ++e) {
    out->level[32 * s + e] = e < 16 ? (b.qs[e] & 0x0F) : (b.qs[e - 16] >> 4);
  }
  out->pair_d16[s] = b.d;
}

void DecodeQ8_0(const uint8_t* p, int s, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ8_0*>(p);
  for (int e = 0; e < 32; ++e) out->level[32 * s + e] = static_cast<uint8_t>(b.qs[e] + 128);
  out->pair_d16[s] = b.d;
}

void DecodeQ5_0(const uint8_t* p, int s, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ5_0*>(p);
  const uint32_t qh = b.qh[0] | (static_cast<uint32_t>(b.qh[1]) << 8) |
                      (static_cast<uint32_t>(b.qh[2]) << 16) |
                      (static_cast<uint32_t>(b.qh[3]) << 24);
  for (int e = 0; e < 32; ++e) {
    const int lo = e < 16 ? (b.qs[e] & 0x0F) : (b.qs[e - 16] >> 4);
    out->level[32 * s + e] = static_cast<uint8_t>(lo | (((qh >> e) & 1) << 4));
  }
  out->pair_d16[s] = b.d;
}

void DecodeQ4_1(const uint8_t* p, int s, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ4_1*>(p);
  for (int e = 0; e < 32; ++e) {
    out->level[32 * s + e] = e < 16 ? (b.qs[e] & 0x0F) : (b.qs[e - 16] >> 4);
  }
  out->pair_d16[s] = b.d;
  out->pair_m16[s] = b.m;
}

void DecodeQ5_1(const uint8_t* p, int s, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ5_1*>(p);
  const uint32_t qh = b.qh[0] | (static_cast<uint32_t>(b.qh[1]) << 8) |
                      (static_cast<uint32_t>(b.qh[2]) << 16) |
                      (static_cast<uint32_t>(b.qh[3]) << 24);
  for (int e = 0; e < 32; ++e) {
    const int lo = e < 16 ? (b.qs[e] & 0x0F) : (b.qs[e - 16] >> 4);
    out->level[32 * s + e] = static_cast<uint8_t>(lo | (((qh >> e) & 1) << 4));
  }
  out->pair_d16[s] = b.d;
  out->pair_m16[s] = b.m;
}

template <typename B>
void DecodeKScales(const B& b, Decoded* out) {
  uint8_t sc[8], mn[8];
  blocks::UnpackKScales(b.scales, sc, mn);
  for (int s = 0; s < 8; ++s) {
    out->scale[s] = sc[s];
    out->min[s] = mn[s];
  }
  out->d = blocks::Fp16ToFloat(b.d);
  out->dmin = blocks::Fp16ToFloat(b.dmin);
  out->pair_d16[0] = b.d;
  out->pair_d16[1] = b.dmin;
}

void DecodeQ4_K(const uint8_t* p, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ4_K*>(p);
  for (int v = 0; v < 256; ++v) {
    const uint8_t q = b.qs[32 * (v / 64) + v % 32];
    out->level[v] = (v % 64) < 32 ? (q & 0x0F) : (q >> 4);
  }
  DecodeKScales(b, out);
}

void DecodeQ5_K(const uint8_t* p, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ5_K*>(p);
  for (int v = 0; v < 256; ++v) {
    const uint8_t q = b.qs[32 * (v / 64) + v % 32];
    const int bit = 2 * (v / 64) + ((v % 64) < 32 ? 0 : 1);
    out->level[v] = static_cast<uint8_t>(((v % 64) < 32 ? (q & 0x0F) : (q >> 4)) |
                                         (((b.qh[v % 32] >> bit) & 1) << 4));
  }
  DecodeKScales(b, out);
}

void DecodeQ6_K(const uint8_t* p, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ6_K*>(p);
  for (int v = 0; v < 256; ++v) {
    const int n = v / 128, g = (v % 128) / 32, l = v % 32;
    const uint8_t ql = b.ql[64 * n + l + (g % 2) * 32];
    const uint8_t lo = g < 2 ? (ql & 0x0F) : (ql >> 4);
    out->level[v] = static_cast<uint8_t>(lo | (((b.qh[32 * n + l] >> (2 * g)) & 3) << 4));
  }
  for (int s = 0; s < 16; ++s) out->scale[s] = b.scales[s];
  out->d = blocks::Fp16ToFloat(b.d);
  out->pair_d16[0] = b.d;
}

// Q2_K: levels 0..3; scale[s] is the stored byte (scale | min << 4); d and dmin as stored.
void DecodeQ2_K(const uint8_t* p, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ2_K*>(p);
  for (int v = 0; v < 256; ++v) {
    const int n = v / 128, j = (v % 128) / 32, l = v % 32;
    out->level[v] = static_cast<uint8_t>((b.qs[32 * n + l] >> (2 * j)) & 3);
  }
  for (int s = 0; s < 16; ++s) out->scale[s] = b.scales[s];
  out->pair_d16[0] = b.d;
  out->pair_d16[1] = b.dmin;
}

// Q3_K: levels 0..7 (value = level - 4, the hmask bit set for level >= 4); scale[s] = sc - 32.
void DecodeQ3_K(const uint8_t* p, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockQ3_K*>(p);
  for (int v = 0; v < 256; ++v) {
    const int n = v / 128, j = (v % 128) / 32, l = v % 32;
    const int lo = (b.qs[32 * n + l] >> (2 * j)) & 3;
    const int hi = (b.hmask[l] >> (4 * n + j)) & 1;
    out->level[v] = static_cast<uint8_t>(lo | (hi << 2));
  }
  for (int s = 0; s < 16; ++s) {
    const int low = s < 8 ? (b.scales[s] & 0xF) : (b.scales[s - 8] >> 4);
    out->scale[s] = (low | (((b.scales[8 + s % 4] >> (2 * (s / 4))) & 3) << 4)) - 32;
  }
  out->pair_d16[0] = b.d;
}

// IQ4_XS: the 4-bit indices (IQ4_NL's nibble layout per 32 values); scale[s] = ls - 32.
void DecodeIq4Xs(const uint8_t* p, Decoded* out) {
  const auto& b = *reinterpret_cast<const blocks::BlockIq4Xs*>(p);
  for (int s = 0; s < 8; ++s) {
    for (int e = 0; e < 32; ++e) {
      out->level[32 * s + e] = e < 16 ? (b.qs[16 * s + e] & 0x0F) : (b.qs[16 * s + e - 16] >> 4);
    }
    out->scale[s] =
        (((b.scales_l[s / 2] >> (4 * (s % 2))) & 0xF) | (((b.scales_h >> (2 * s)) & 3) << 4)) - 32;
  }
  out->pair_d16[0] = b.d;
}

// Byte of row r, value e (0..3) of quad q in a 64-byte quad vector.
inline int QuadByte(int r, int e) { return 4 * r + e; }

// Writes the nibbles of one 32-value sub-block (8 quads) of row r: chunk t (64 bytes) holds quad t
// low and quad t + 4 high.
void PutNibbles32(const uint8_t* level, int r, uint8_t* dst) {
  for (int t = 0; t < 4; ++t) {
    for (int e = 0; e < 4; ++e) {
      const uint8_t lo = level[4 * t + e] & 0x0F, hi = level[4 * (t + 4) + e] & 0x0F;
      dst[x16::kQuadBytes * t + QuadByte(r, e)] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

using DecodeFn = void (*)(const uint8_t*, Decoded*);
using DecodePartFn = void (*)(const uint8_t*, int part, Decoded*);
using PutFn = void (*)(const Decoded&, int r, uint8_t* tile);

// Shared loop: rows in groups of 16 (zero rows past n), blocks in order, one tile each.
// Tiles hold `per_tile` GGML blocks (a missing last one decodes as zeros).
void RepackX16(const uint8_t* w, int64_t n, int64_t k, int64_t block_elems, size_t block_bytes,
               int per_tile, size_t tile_bytes, DecodePartFn decode, PutFn put, uint8_t* out) {
  const int64_t nb = k / block_elems;
  const int64_t tiles = (nb + per_tile - 1) / per_tile;
  const int64_t groups = (n + kX16Rows - 1) / kX16Rows;
  std::memset(out, 0, static_cast<size_t>(groups * tiles) * tile_bytes);
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t t = 0; t < tiles; ++t) {
      uint8_t* tile = out + static_cast<size_t>(g * tiles + t) * tile_bytes;
      for (int r = 0; r < kX16Rows && g * kX16Rows + r < n; ++r) {
        Decoded dec = {};
        for (int s = 0; s < per_tile && t * per_tile + s < nb; ++s) {
          const int64_t b = t * per_tile + s;
          decode(w + static_cast<size_t>((g * kX16Rows + r) * nb + b) * block_bytes, s, &dec);
        }
        put(dec, r, tile);
      }
    }
  }
}

template <DecodeFn kDecode>
void DecodeWhole(const uint8_t* p, int /*part*/, Decoded* out) {
  kDecode(p, out);
}

// Q4_0 tiles pair blocks: DecodeQ4_0Pair decodes two (the second may be missing: zero).
void PutQ4_0(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 2; ++s) {
    PutNibbles32(dec.level + 32 * s, r, tile + x16::kNibbles32Bytes * s);
    std::memcpy(tile + x16::Q4_0::kD + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_d16[s], 2);
  }
}

void PutQ8_0(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 2; ++s) {
    for (int q = 0; q < 8; ++q) {
      for (int e = 0; e < 4; ++e)
        tile[x16::kLevels32Bytes * s + x16::kQuadBytes * q + QuadByte(r, e)] =
            dec.level[32 * s + 4 * q + e];
    }
    std::memcpy(tile + x16::Q8_0::kD + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_d16[s], 2);
  }
}

// Scales, mins, d and dmin (fp16, as stored) of Q4_K/Q5_K at `at`.
void PutKScales(const Decoded& dec, int r, uint8_t* at) {
  for (int s = 0; s < 8; ++s) {
    at[x16::KScales::kScales + kX16Rows * s + r] = static_cast<uint8_t>(dec.scale[s]);
    at[x16::KScales::kMins + kX16Rows * s + r] = static_cast<uint8_t>(dec.min[s]);
  }
  std::memcpy(at + x16::KScales::kD + 2 * r, &dec.pair_d16[0], 2);
  std::memcpy(at + x16::KScales::kDmin + 2 * r, &dec.pair_d16[1], 2);
}

void PutQ4_K(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 8; ++s) PutNibbles32(dec.level + 32 * s, r, tile + x16::kNibbles32Bytes * s);
  PutKScales(dec, r, tile + x16::Q4_K::kScalesAt);
}

// The 5th bits of one 32-value sub-block of row r as one bit plane (Q5_K, Q5_0): vector i of part
// p (chunk c = 2p + i / 2, plane i % 2: low quad c, high quad c + 4) at bit 4 p + i.
void PutHighBits32(const uint8_t* level, int r, uint8_t* plane) {
  for (int p = 0; p < 2; ++p) {
    for (int i = 0; i < 4; ++i) {
      const int quad = 2 * p + i / 2 + 4 * (i % 2);
      for (int e = 0; e < 4; ++e) {
        if (level[4 * quad + e] & 0x10)
          plane[QuadByte(r, e)] |= static_cast<uint8_t>(1 << (4 * p + i));
      }
    }
  }
}

void PutQ5_K(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 8; ++s) {
    const uint8_t* level = dec.level + 32 * s;
    PutNibbles32(level, r, tile + x16::kNibbles32Bytes * s);
    PutHighBits32(level, r, tile + x16::Q5_K::kHighBits + x16::Q5_K::kHighBitsPerSub * s);
  }
  PutKScales(dec, r, tile + x16::Q5_K::kScalesAt);
}

void PutQ4_1(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 2; ++s) {
    PutNibbles32(dec.level + 32 * s, r, tile + x16::kNibbles32Bytes * s);
    std::memcpy(tile + x16::Q4_1::kD + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_d16[s], 2);
    std::memcpy(tile + x16::Q4_1::kM + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_m16[s], 2);
  }
}

void PutQ5_1(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 2; ++s) {
    PutNibbles32(dec.level + 32 * s, r, tile + x16::kNibbles32Bytes * s);
    PutHighBits32(dec.level + 32 * s, r, tile + x16::Q5_1::kHighBits + x16::kQuadBytes * s);
    std::memcpy(tile + x16::Q5_1::kD + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_d16[s], 2);
    std::memcpy(tile + x16::Q5_1::kM + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_m16[s], 2);
  }
}

void PutQ5_0(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 2; ++s) {
    PutNibbles32(dec.level + 32 * s, r, tile + x16::kNibbles32Bytes * s);
    PutHighBits32(dec.level + 32 * s, r, tile + x16::Q5_0::kHighBits + x16::kQuadBytes * s);
    std::memcpy(tile + x16::Q5_0::kD + x16::kHalfPerRowBytes * s + 2 * r, &dec.pair_d16[s], 2);
  }
}

void PutQ6_K(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 16; ++s) {
    for (int q = 0; q < 4; ++q) {
      for (int e = 0; e < 4; ++e) {
        const uint8_t level = dec.level[16 * s + 4 * q + e];
        tile[x16::Q6_K::kNibbles16Bytes * s + x16::kQuadBytes * (q % 2) + QuadByte(r, e)] |=
            static_cast<uint8_t>((level & 0x0F) << (4 * (q / 2)));
        tile[x16::Q6_K::kHighBits + x16::kQuadBytes * s + QuadByte(r, e)] |=
            static_cast<uint8_t>(((level >> 4) & 3) << (2 * q));
      }
    }
    tile[x16::Q6_K::kScales + kX16Rows * s + r] =
        static_cast<uint8_t>(static_cast<int8_t>(dec.scale[s]));
  }
  std::memcpy(tile + x16::Q6_K::kD + 2 * r, &dec.pair_d16[0], 2);
}

void PutQ2_K(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 16; ++s) {
    for (int q = 0; q < 4; ++q) {
      for (int e = 0; e < 4; ++e) {
        tile[x16::kQuadBytes * s + QuadByte(r, e)] |=
            static_cast<uint8_t>((dec.level[16 * s + 4 * q + e] & 3) << (2 * q));
      }
    }
    tile[x16::Q2_K::kScales + kX16Rows * s + r] = static_cast<uint8_t>(dec.scale[s]);
  }
  std::memcpy(tile + x16::Q2_K::kD + 2 * r, &dec.pair_d16[0], 2);
  std::memcpy(tile + x16::Q2_K::kDmin + 2 * r, &dec.pair_d16[1], 2);
}

void PutQ3_K(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 16; ++s) {
    for (int q = 0; q < 4; ++q) {
      for (int e = 0; e < 4; ++e) {
        const uint8_t level = dec.level[16 * s + 4 * q + e];
        tile[x16::kQuadBytes * s + QuadByte(r, e)] |= static_cast<uint8_t>((level & 3) << (2 * q));
        if (level & 4) {
          tile[x16::Q3_K::kHighBits + x16::kQuadBytes * (s / 2) + QuadByte(r, e)] |=
              static_cast<uint8_t>(1 << (4 * (s % 2) + q));
        }
      }
    }
    tile[x16::Q3_K::kScales + kX16Rows * s + r] =
        static_cast<uint8_t>(static_cast<int8_t>(dec.scale[s]));
  }
  std::memcpy(tile + x16::Q3_K::kD + 2 * r, &dec.pair_d16[0], 2);
}

void PutIq4Xs(const Decoded& dec, int r, uint8_t* tile) {
  for (int s = 0; s < 8; ++s) {
    PutNibbles32(dec.level + 32 * s, r, tile + x16::kNibbles32Bytes * s);
    tile[x16::Iq4Xs::kScales + kX16Rows * s + r] =
        static_cast<uint8_t>(static_cast<int8_t>(dec.scale[s]));
  }
  std::memcpy(tile + x16::Iq4Xs::kD + 2 * r, &dec.pair_d16[0], 2);
}

}  // namespace

void RepackQ4_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 32, sizeof(blocks::BlockQ4_0), 2, kQ4_0X16TileBytes, DecodeQ4_0, PutQ4_0, out);
}
void RepackQ8_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 32, sizeof(blocks::BlockQ8_0), 2, kQ8_0X16TileBytes, DecodeQ8_0, PutQ8_0, out);
}
void RepackQ4_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 32, sizeof(blocks::BlockQ4_1), 2, kQ4_1X16TileBytes, DecodeQ4_1, PutQ4_1, out);
}
void RepackQ5_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 32, sizeof(blocks::BlockQ5_1), 2, kQ5_1X16TileBytes, DecodeQ5_1, PutQ5_1, out);
}
void RepackQ5_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 32, sizeof(blocks::BlockQ5_0), 2, kQ5_0X16TileBytes, DecodeQ5_0, PutQ5_0, out);
}
void RepackQ4_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 256, sizeof(blocks::BlockQ4_K), 1, kQ4_KX16TileBytes, DecodeWhole<DecodeQ4_K>,
            PutQ4_K, out);
}
void RepackQ5_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 256, sizeof(blocks::BlockQ5_K), 1, kQ5_KX16TileBytes, DecodeWhole<DecodeQ5_K>,
            PutQ5_K, out);
}
void RepackQ6_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 256, sizeof(blocks::BlockQ6_K), 1, kQ6_KX16TileBytes, DecodeWhole<DecodeQ6_K>,
            PutQ6_K, out);
}
void RepackQ2_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 256, sizeof(blocks::BlockQ2_K), 1, kQ2_KX16TileBytes, DecodeWhole<DecodeQ2_K>,
            PutQ2_K, out);
}
void RepackQ3_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 256, sizeof(blocks::BlockQ3_K), 1, kQ3_KX16TileBytes, DecodeWhole<DecodeQ3_K>,
            PutQ3_K, out);
}
void RepackIq4XsX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackX16(w, n, k, 256, sizeof(blocks::BlockIq4Xs), 1, kIq4XsX16TileBytes,
            DecodeWhole<DecodeIq4Xs>, PutIq4Xs, out);
}

}  // namespace reference
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
