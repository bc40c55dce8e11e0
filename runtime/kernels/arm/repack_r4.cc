// Plain C++ (baseline flags): runs once per weight matrix at Create.
#include "runtime/kernels/arm/repack_r4.h"

#include <cstddef>
#include <cstring>

#include "quantization/block_layout.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

// Interleaves n rows of GGML blocks (src_block bytes each, fp16 scale first) into R4 blocks of
// 8 + 4 * qs_bytes bytes; qs(src, r, v, t) gives the byte at 16 v + 4 r + t of the qs part.
template <typename QsByte>
void RepackR4(const uint8_t* w, int64_t n, int64_t k, size_t src_block, int qs_bytes, QsByte qs,
              uint8_t* out) {
  const int64_t nb = k / 32;
  const size_t row_bytes = static_cast<size_t>(nb) * src_block;
  const size_t dst_block = 8 + 4 * static_cast<size_t>(qs_bytes);
  for (int64_t g = 0; g < (n + 3) / 4; ++g) {
    uint8_t* dst = out + 4 * g * row_bytes;
    std::memset(dst, 0, 4 * row_bytes);
    for (int r = 0; r < 4 && 4 * g + r < n; ++r) {
      const uint8_t* src = w + (4 * g + r) * row_bytes;
      for (int64_t b = 0; b < nb; ++b) {
        const uint8_t* sb = src + b * src_block;
        uint8_t* db = dst + b * dst_block;
        std::memcpy(db + 2 * r, sb, 2);
        for (int v = 0; v < qs_bytes / 4; ++v) {
          for (int t = 0; t < 4; ++t) db[8 + 16 * v + 4 * r + t] = qs(sb + 2, 4 * v + t);
        }
      }
    }
  }
}

// Q5_0 / Q5_1 / Q4_1 R4 blocks (repack_r4.h): `head` bytes of fp16 scales (and mins) of the four
// rows, then (with high bits) the 16 transposed, inverted high-bit bytes, then the 64 qs bytes.
// `min_at` is the source offset of a block's fp16 min (0: none), `qh_at` of its qh (0: none).
void RepackR4Five(const uint8_t* w, int64_t n, int64_t k, size_t src_block, int min_at, int qh_at,
                  int qs_at, uint8_t* out) {
  const int64_t nb = k / 32;
  const size_t row_bytes = static_cast<size_t>(nb) * src_block;
  const size_t dst_block = 4 * src_block;
  const int head = min_at ? 16 : 8;
  const int qs_dst = head + (qh_at ? 16 : 0);
  for (int64_t g = 0; g < (n + 3) / 4; ++g) {
    uint8_t* dst = out + 4 * g * row_bytes;
    std::memset(dst, 0, 4 * row_bytes);
    // A missing last row stays zero bytes: scale 0 (and min 0) make its dots 0.
    for (int r = 0; r < 4 && 4 * g + r < n; ++r) {
      const uint8_t* src = w + (4 * g + r) * row_bytes;
      for (int64_t b = 0; b < nb; ++b) {
        uint8_t* db = dst + b * dst_block;
        const uint8_t* sb = src + b * src_block;
        std::memcpy(db + 2 * r, sb, 2);
        if (min_at) std::memcpy(db + 8 + 2 * r, sb + min_at, 2);
        uint32_t qh = 0;
        if (qh_at) std::memcpy(&qh, sb + qh_at, 4);
        for (int v = 0; v < 4; ++v) {
          for (int t = 0; t < 4; ++t) {
            db[qs_dst + 16 * v + 4 * r + t] = sb[qs_at + 4 * v + t];
            if (qh_at) {
              // Bit v: the 5th bit of value 4 v + t (low nibble); bit v + 4: of value 16 + 4 v + t
              // (high nibble); stored inverted (set when the bit is 0).
              const uint8_t lo = ((qh >> (4 * v + t)) & 1) ^ 1;
              const uint8_t hi = ((qh >> (16 + 4 * v + t)) & 1) ^ 1;
              db[head + 4 * r + t] |= static_cast<uint8_t>(lo << v | hi << (v + 4));
            }
          }
        }
      }
    }
  }
}

}  // namespace

size_t Q4_0R4RowBytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(blocks::BlockQ4_0); }

void RepackQ4_0R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackR4(
      w, n, k, sizeof(blocks::BlockQ4_0), 16,
      [](const uint8_t* qs, int i) { return static_cast<uint8_t>(qs[i] ^ 0x88); }, out);
}

void RepackIq4NlR4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackR4(
      w, n, k, sizeof(blocks::BlockIq4Nl), 16, [](const uint8_t* qs, int i) { return qs[i]; }, out);
}

size_t Q8_0R4RowBytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(blocks::BlockQ8_0); }

void RepackQ8_0R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackR4(
      w, n, k, sizeof(blocks::BlockQ8_0), 32, [](const uint8_t* qs, int i) { return qs[i]; }, out);
}

size_t Q5_0R4RowBytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(blocks::BlockQ5_0); }

void RepackQ5_0R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackR4Five(w, n, k, sizeof(blocks::BlockQ5_0), 0, offsetof(blocks::BlockQ5_0, qh),
               offsetof(blocks::BlockQ5_0, qs), out);
}

size_t Q4_1R4RowBytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(blocks::BlockQ4_1); }

void RepackQ4_1R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackR4Five(w, n, k, sizeof(blocks::BlockQ4_1), offsetof(blocks::BlockQ4_1, m), 0,
               offsetof(blocks::BlockQ4_1, qs), out);
}

size_t Q5_1R4RowBytes(int64_t k) { return static_cast<size_t>(k / 32) * sizeof(blocks::BlockQ5_1); }

void RepackQ5_1R4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  RepackR4Five(w, n, k, sizeof(blocks::BlockQ5_1), offsetof(blocks::BlockQ5_1, m),
               offsetof(blocks::BlockQ5_1, qh), offsetof(blocks::BlockQ5_1, qs), out);
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
