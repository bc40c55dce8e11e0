// "R4" weight layouts of the ARM kernels of the 32-value types (q4_0, q8_0, iq4_nl: dotprod and
// i8mm; q4_1, q5_0, q5_1: NEON, dotprod and i8mm): four weight rows interleaved per block, exactly
// as many bytes as GGML's blocks (no padding; k = 288 included); and of Q4_K and Q6_K (dotprod and
// i8mm), Q4_K's scales and mins unpacked (148 bytes per row and super-block instead of 144).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_REPACK_R4_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_REPACK_R4_H_

#include <cstddef>
#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {

// Rows are taken in groups of four: group g (rows 4 g .. 4 g + 3) starts at row 4 g, i.e. at
// 4 g * row_bytes, with row_bytes = GGML's row (k / 32 blocks). In a group, block b of the four
// rows is one R4 block; a last group with fewer than four rows is completed with zero rows (scale
// 0), inside the n rounded up to 16 rows the runtime allocates.
//
// "Q4_0R4" block, 72 bytes: fp16 d[4] (row r's scale), then 64 bytes: byte 16 v + 4 r + t holds
// GGML's qs[4 v + t] of row r xor 0x88, i.e. the low nibble (value 4 v + t) and the high nibble
// (value 16 + 4 v + t) as 4-bit two's complement numbers (level - 8). Shifted left by 4 (low) or
// masked with 0xF0 (high), each 16 bytes are 16 x (level - 8) of values 4 c .. 4 c + 3 of the four
// rows (c = v, or v + 4), the operand of a lane-indexed sdot.
size_t Q4_0R4RowBytes(int64_t k);
void RepackQ4_0R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Iq4NlR4" block, 72 bytes: as Q4_0R4 but the bytes are GGML's IQ4_NL qs as stored (each nibble
// an index into the 16 levels). Same row bytes as Q4_0R4 (BlockIQ4_NL is 18 bytes too).
void RepackIq4NlR4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q8_0R4" block, 136 bytes: fp16 d[4], then 128 bytes: byte 16 c + 4 r + t = qs[4 c + t] of row r.
size_t Q8_0R4RowBytes(int64_t k);
void RepackQ8_0R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q5_0R4" block, 88 bytes (4 x 22): fp16 d[4]; 16 high-bit bytes H; 64 qs bytes as in Iq4NlR4
// (GGML's nibbles as stored). Bit c of H[4 r + t] is the inverted 5th bit of the value whose
// nibble is in byte 4 r + t of chunk c (c < 4: the low nibbles of qs bytes 16 c.., value
// 4 c + t; c >= 4: the high nibbles of bytes 16 (c - 4).., value 16 + 4 (c - 4) + t), so that
// sli(nibble, tst(H, 1 << c), 4) is the signed level - 16 of all 16 values at once.
size_t Q5_0R4RowBytes(int64_t k);
void RepackQ5_0R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q4_1R4" block, 80 bytes (4 x 20): fp16 d[4], fp16 m[4], 64 qs bytes as stored (levels 0..15).
size_t Q4_1R4RowBytes(int64_t k);
void RepackQ4_1R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q5_1R4" block, 96 bytes (4 x 24): fp16 d[4], fp16 m[4], then H and qs as in Q5_0R4 (the
// decoded values are level - 16; the kernels add 16 x the activations' block sum back).
size_t Q5_1R4RowBytes(int64_t k);
void RepackQ5_1R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q4_KR4" block (one 256-value super-block of four rows), 592 bytes (4 x 148; GGML's Q4_K is
// 144 per row): fp16 d[4], fp16 dmin[4] (row r's), uint8 sc[8][4] and mn[8][4] (byte 16 + 4 s + r
// and 48 + 4 s + r: the 6-bit scale and min of sub-block s of row r, GGML's get_scale_min_k4),
// then sub-block s (32 values) in 64 bytes at 80 + 64 s: byte 16 c + 4 r + e holds the level of
// value 32 s + 4 c + e of row r in its low nibble and of value 32 s + 16 + 4 c + e in its high
// nibble, so that each masked or shifted 16 bytes are word c (or c + 4) of the four rows: the
// operand of a lane-indexed sdot against 16 activation values. Groups of four rows as above (a
// missing row: zero bytes, d = dmin = 0).
size_t Q4_KR4RowBytes(int64_t k);
void RepackQ4_KR4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q6_KR4" block (one super-block of four rows), 840 bytes (4 x 210, as GGML's Q6_K): fp16 d[4],
// int8 sc[16][4] (byte 8 + 4 g + r: the scale of 16-value group g of row r), then sub-block s
// (32 values) in 96 bytes at 72 + 96 s: 64 bytes of nibbles as Q4_KR4's (byte 16 c + 4 r + e: the
// low 4 bits of the level of value 32 s + 4 c + e of row r in its low nibble, of value
// 32 s + 16 + 4 c + e in its high nibble), then 32 bytes of high bits: byte 16 h + 4 r + e holds at
// bits 2 c, 2 c + 1 the top two bits of the level of value 32 s + 16 h + 4 c + e, xor 2, so that
// (bits << 6 - 2 c) with the nibble shifted in below it (sri by 2 of nibble << 4) is the byte
// 4 x (level - 32) as int8. A missing row: zero bytes (level 32, d = 0).
size_t Q6_KR4RowBytes(int64_t k);
void RepackQ6_KR4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_REPACK_R4_H_
