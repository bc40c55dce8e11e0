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

// Q4_0X16, per pair of 32-value blocks (a tile, 64-byte aligned; an odd last block is paired with
// a zero block): [0, 256) and [256, 512) each block's 8 quads as 4 nibble chunks; [512, 544) and
// [544, 576) each block's fp16 d[16].
inline constexpr size_t kQ4_0X16TileBytes = 576;
// Q8_0X16, per pair of blocks: [0, 512) and [512, 1024) each block's 8 quads of w + 128 (uint8);
// [1024, 1056) and [1056, 1088) each block's fp16 d[16].
inline constexpr size_t kQ8_0X16TileBytes = 1088;
// Q4_KX16, per 256-value super-block (8 sub-blocks of 32):
//   [0, 2048)     sub-block s at 256 s: 4 nibble chunks (8 quads)
//   [2048, 2176)  uint8 scale[s][row]
//   [2176, 2432)  int16 min pairs [j][row][2] = (min 2j, min 2j + 1) of the row (for vpdpwssd)
//   [2432, 2496)  float d[row];  [2496, 2560) float dmin[row]
inline constexpr size_t kQ4_KX16TileBytes = 2560;
// Q5_KX16: as Q4_KX16 with, after the nibbles, the 5th bits:
//   [0, 2048) nibbles; [2048, 2560) sub-block s at 64 s: bit 4 part + i of byte p is bit 4 of
//   byte p of the part's level vector i (vectors i of part p: chunk 2p + i / 2, low nibbles for
//   even i); [2560, 2688) scales; [2688, 2944) min pairs; [2944, 3008) d; [3008, 3072) dmin.
inline constexpr size_t kQ5_KX16TileBytes = 3072;
// Q6_KX16, per super-block (16 sub-blocks of 16): [0, 4096) sub-block s at 256 s: 4 quads of
// uint8 levels 0..63 (value = level - 32); [4096, 4352) int8 scale[s][row]; [4352, 4416) float d.
inline constexpr size_t kQ6_KX16TileBytes = 4416;

size_t Q4_0X16RowBytes(int64_t k);
size_t Q8_0X16RowBytes(int64_t k);
size_t Q4_KX16RowBytes(int64_t k);
size_t Q5_KX16RowBytes(int64_t k);
size_t Q6_KX16RowBytes(int64_t k);

// Repack n rows of GGML blocks (k values each) into round_up(n, 16) rows of the layout.
void RepackQ4_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ8_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ4_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ6_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_H_
