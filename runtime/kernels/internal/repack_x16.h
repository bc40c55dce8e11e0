// "X16" weight layouts of the x86 kernels (repacked once at Create): the AVX-512 VNNI kernels read
// a 64-byte vector of 16 rows at a time (x86/avx512_x16.h), the AVX2 and AVX-VNNI kernels its two
// 32-byte halves of 8 rows (x86/avx2_x16.h).
//
// Rows are taken 16 at a time (a row group; the last group is padded with zero rows). A group
// stores its blocks one after another, each as a "tile" of TileBytes: the levels of the 16 rows
// interleaved 4 values at a time, so that 32-bit lane r of a 64-byte vector holds 4 consecutive
// levels of row r (the vpdpbusd operand against 4 broadcast activation bytes), followed by the
// block's scales already unpacked per row. A kernel's MatmulParams::w_row_bytes is TileBytes *
// blocks / 16; group g starts at w + g * 16 * w_row_bytes.
//
// Quads: a "quad" is 4 consecutive values of a (sub-)block; quad q of 16 rows is 64 bytes.
// 4-bit layouts store two quads per 64 bytes: chunk t holds quad t in the low and quad t + 4 in
// the high nibbles (for 8-quad, 32-value sub-blocks).
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_H_

#include <cstddef>
#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {

// Rows per group of every X16 layout.
inline constexpr int kX16Rows = 16;

// Byte offsets of every X16 layout, written down once: the repack (repack_x16.cc) writes and the
// kernels (x86/*_x16.h, x86/*.cc) read through these names.
namespace x16 {

// Quad q of 16 rows: 64 bytes (4 values x 16 rows).
inline constexpr size_t kQuadBytes = 4 * kX16Rows;
// A 32-value sub-block as 4-bit levels: 8 quads in 4 nibble chunks (chunk t: quads t, t + 4).
inline constexpr size_t kNibbles32Bytes = 4 * kQuadBytes;
// A 32-value sub-block as 8-bit levels: 8 quads.
inline constexpr size_t kLevels32Bytes = 8 * kQuadBytes;
// Offsets inside a tile of the vectors the kernels load: part p (0, 1) of 32-value sub-block s as
// nibbles (chunks 2p and 2p + 1) or as bytes (quads 4p..4p + 3).
constexpr size_t NibblesPart(int s, int part) {
  return kNibbles32Bytes * s + 2 * kQuadBytes * part;
}
constexpr size_t Levels32Part(int s, int part) {
  return kLevels32Bytes * s + 4 * kQuadBytes * part;
}
// One fp16 per row.
inline constexpr size_t kHalfPerRowBytes = 2 * kX16Rows;
// One float per row.
inline constexpr size_t kFloatPerRowBytes = 4 * kX16Rows;

// Q4_0X16, per pair of 32-value blocks (an odd last block is paired with a zero block): block s's
// nibbles at kNibbles32Bytes * s, then block s's fp16 d[16] at kD + kHalfPerRowBytes * s.
struct Q4_0 {
  static constexpr size_t kD = 2 * kNibbles32Bytes;                // 512
  static constexpr size_t kTileBytes = kD + 2 * kHalfPerRowBytes;  // 576
};
// Q8_0X16, per pair of blocks: block s's 8 quads of w + 128 (uint8) at kLevels32Bytes * s, then
// block s's fp16 d[16] at kD + kHalfPerRowBytes * s.
struct Q8_0 {
  static constexpr size_t kD = 2 * kLevels32Bytes;                 // 1024
  static constexpr size_t kTileBytes = kD + 2 * kHalfPerRowBytes;  // 1088
};
// Q5_0X16, per pair of 32-value blocks (an odd last block is paired with a zero block): block s's
// low nibbles at kNibbles32Bytes * s, its 5th bits at kHighBits + kQuadBytes * s (one bit plane
// as Q5_K's: bit 4 part + i of byte p is bit 4 of byte p of the part's level vector i), then
// block s's fp16 d[16] at kD + kHalfPerRowBytes * s. 22 bytes per block and row, as in GGML.
struct Q5_0 {
  static constexpr size_t kHighBits = 2 * kNibbles32Bytes;         // 512
  static constexpr size_t kD = kHighBits + 2 * kQuadBytes;         // 640
  static constexpr size_t kTileBytes = kD + 2 * kHalfPerRowBytes;  // 704
};
// Q4_1X16 and Q5_1X16, per pair of 32-value blocks: as Q4_0X16 / Q5_0X16, with block s's fp16
// m[16] after the d's, at kM + kHalfPerRowBytes * s. 20 / 24 bytes per block and row, as in GGML.
struct Q4_1 {
  static constexpr size_t kD = 2 * kNibbles32Bytes;                // 512
  static constexpr size_t kM = kD + 2 * kHalfPerRowBytes;          // 576
  static constexpr size_t kTileBytes = kM + 2 * kHalfPerRowBytes;  // 640
};
struct Q5_1 {
  static constexpr size_t kHighBits = 2 * kNibbles32Bytes;         // 512
  static constexpr size_t kD = kHighBits + 2 * kQuadBytes;         // 640
  static constexpr size_t kM = kD + 2 * kHalfPerRowBytes;          // 704
  static constexpr size_t kTileBytes = kM + 2 * kHalfPerRowBytes;  // 768
};
// The Q4_K/Q5_K scales block (the tail of their tiles): uint8 scale[8 sub-blocks][16 rows];
// uint8 min[8][16]; fp16 d[row]; fp16 dmin[row], as stored. 320 bytes for 16 rows, against 256
// in GGML's blocks (which pack scales and mins to 6 bits).
struct KScales {
  static constexpr size_t kScales = 0;
  static constexpr size_t kMins = kScales + 8 * kX16Rows;     // 128
  static constexpr size_t kD = kMins + 8 * kX16Rows;          // 256
  static constexpr size_t kDmin = kD + kHalfPerRowBytes;      // 288
  static constexpr size_t kBytes = kDmin + kHalfPerRowBytes;  // 320
};
// Q4_KX16, per 256-value super-block: sub-block s's nibbles at kNibbles32Bytes * s, then KScales.
struct Q4_K {
  static constexpr size_t kScalesAt = 8 * kNibbles32Bytes;           // 2048
  static constexpr size_t kTileBytes = kScalesAt + KScales::kBytes;  // 2368
};
// Q5_KX16: as Q4_KX16 with, after the nibbles, the 5th bits of sub-block s at kHighBits +
// kHighBitsPerSub * s: bit 4 part + i of byte p is bit 4 of byte p of the part's level vector i
// (vectors i of part p: chunk 2p + i / 2, low nibbles for even i); then KScales.
struct Q5_K {
  static constexpr size_t kHighBits = 8 * kNibbles32Bytes;              // 2048
  static constexpr size_t kHighBitsPerSub = kQuadBytes;                 // 64
  static constexpr size_t kScalesAt = kHighBits + 8 * kHighBitsPerSub;  // 2560
  static constexpr size_t kTileBytes = kScalesAt + KScales::kBytes;     // 3072
};
// Q6_KX16, per super-block (16 sub-blocks of 16 values, levels 0..63, value = level - 32), in
// GGML's own size (16 x 210 bytes), 6 bits a value as in the GGML block:
//   [0, 2048)     sub-block s at kNibbles16Bytes * s: its low 4 bits as 2 nibble chunks (chunk c:
//                 quad c in the low and quad c + 2 in the high nibbles);
//   [2048, 3072)  sub-block s at kHighBits + kQuadBytes * s: its bits 4-5, bits 2q..2q+1 of a
//                 byte for quad q;
//   [3072, 3328)  int8 scale[s][row];  [3328, 3360) fp16 d[row] as stored.
struct Q6_K {
  static constexpr size_t kNibbles16Bytes = 2 * kQuadBytes;       // 128
  static constexpr size_t kHighBits = 16 * kNibbles16Bytes;       // 2048
  static constexpr size_t kScales = kHighBits + 16 * kQuadBytes;  // 3072
  static constexpr size_t kD = kScales + 16 * kX16Rows;           // 3328
  static constexpr size_t kTileBytes = kD + kHalfPerRowBytes;     // 3360
};

// Q2_KX16, per super-block (16 sub-blocks of 16 values, levels 0..3), in GGML's own size
// (16 x 84 bytes):
//   [0, 1024)     sub-block s at kQuadBytes * s: its 2-bit levels, bits 2q..2q+1 of a byte for
//                 quad q (Q6_KX16's high-bit plane);
//   [1024, 1280)  uint8 scale byte[s][row] as stored (low nibble: scale, high nibble: min);
//   [1280, 1312)  fp16 d[row];  [1312, 1344) fp16 dmin[row], as stored.
struct Q2_K {
  static constexpr size_t kScales = 16 * kQuadBytes;              // 1024
  static constexpr size_t kD = kScales + 16 * kX16Rows;           // 1280
  static constexpr size_t kDmin = kD + kHalfPerRowBytes;          // 1312
  static constexpr size_t kTileBytes = kDmin + kHalfPerRowBytes;  // 1344
};
// Q3_KX16, per super-block (16 sub-blocks of 16 values, levels 0..7, value = level - 4):
//   [0, 1024)     sub-block s at kQuadBytes * s: bits 0-1 of its levels, as Q2_KX16;
//   [1024, 1536)  sub-blocks 2p and 2p + 1 at kHighBits + kQuadBytes * p: bit 2 of the level of
//                 byte b of quad q of sub-block s at bit 4 (s % 2) + q of byte b;
//   [1536, 1792)  int8 scale[s][row] (GGML's 6-bit scale - 32);  [1792, 1824) fp16 d[row].
// 1824 bytes for 16 rows, against 1760 in GGML's blocks (which pack the scales to 6 bits).
struct Q3_K {
  static constexpr size_t kHighBits = 16 * kQuadBytes;           // 1024
  static constexpr size_t kScales = kHighBits + 8 * kQuadBytes;  // 1536
  static constexpr size_t kD = kScales + 16 * kX16Rows;          // 1792
  static constexpr size_t kTileBytes = kD + kHalfPerRowBytes;    // 1824
};
// IQ4_XSX16, per super-block (8 sub-blocks of 32 4-bit indices into kIq4NlValues): sub-block s's
// nibbles at kNibbles32Bytes * s, then int8 scale[s][row] (GGML's 6-bit scale - 32), then fp16
// d[row]. 2208 bytes for 16 rows, against 2176 in GGML's blocks (6-bit scales).
struct Iq4Xs {
  static constexpr size_t kScales = 8 * kNibbles32Bytes;       // 2048
  static constexpr size_t kD = kScales + 8 * kX16Rows;         // 2176
  static constexpr size_t kTileBytes = kD + kHalfPerRowBytes;  // 2208
};

}  // namespace x16

inline constexpr size_t kQ4_0X16TileBytes = x16::Q4_0::kTileBytes;
inline constexpr size_t kQ8_0X16TileBytes = x16::Q8_0::kTileBytes;
inline constexpr size_t kQ5_0X16TileBytes = x16::Q5_0::kTileBytes;
inline constexpr size_t kQ4_1X16TileBytes = x16::Q4_1::kTileBytes;
inline constexpr size_t kQ5_1X16TileBytes = x16::Q5_1::kTileBytes;
inline constexpr size_t kQ4_KX16TileBytes = x16::Q4_K::kTileBytes;
inline constexpr size_t kQ5_KX16TileBytes = x16::Q5_K::kTileBytes;
inline constexpr size_t kQ6_KX16TileBytes = x16::Q6_K::kTileBytes;
inline constexpr size_t kQ2_KX16TileBytes = x16::Q2_K::kTileBytes;
inline constexpr size_t kQ3_KX16TileBytes = x16::Q3_K::kTileBytes;
inline constexpr size_t kIq4XsX16TileBytes = x16::Iq4Xs::kTileBytes;

size_t Q4_0X16RowBytes(int64_t k);
size_t Q8_0X16RowBytes(int64_t k);
size_t Q5_0X16RowBytes(int64_t k);
size_t Q4_1X16RowBytes(int64_t k);
size_t Q5_1X16RowBytes(int64_t k);
size_t Q4_KX16RowBytes(int64_t k);
size_t Q5_KX16RowBytes(int64_t k);
size_t Q6_KX16RowBytes(int64_t k);
size_t Q2_KX16RowBytes(int64_t k);
size_t Q3_KX16RowBytes(int64_t k);
size_t Iq4XsX16RowBytes(int64_t k);

// Repack n rows of GGML blocks (k values each) into round_up(n, 16) rows of the layout.
void RepackQ4_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ8_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ4_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ4_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ6_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ2_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ3_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackIq4XsX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_H_
