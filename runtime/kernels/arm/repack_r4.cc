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

size_t Q4_KR4RowBytes(int64_t k) { return static_cast<size_t>(k / blocks::kQK_K) * 148; }

void RepackQ4_KR4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  const int64_t nb = k / blocks::kQK_K;
  const size_t src_row = static_cast<size_t>(nb) * sizeof(blocks::BlockQ4_K);
  const size_t dst_row = Q4_KR4RowBytes(k);
  for (int64_t g = 0; g < (n + 3) / 4; ++g) {
    uint8_t* dst = out + 4 * g * dst_row;
    std::memset(dst, 0, 4 * dst_row);
    for (int r = 0; r < 4 && 4 * g + r < n; ++r) {
      const auto* src = reinterpret_cast<const blocks::BlockQ4_K*>(w + (4 * g + r) * src_row);
      for (int64_t b = 0; b < nb; ++b) {
        const blocks::BlockQ4_K& sb = src[b];
        uint8_t* db = dst + b * 4 * 148;
        std::memcpy(db + 2 * r, &sb.d, 2);
        std::memcpy(db + 8 + 2 * r, &sb.dmin, 2);
        for (int s = 0; s < 8; ++s) {
          blocks::GetScaleMinK4(s, sb.scales, &db[16 + 4 * s + r], &db[48 + 4 * s + r]);
          // Value 32 s + u is the low (s even) or high (s odd) nibble of qs[32 (s / 2) + u].
          const uint8_t* q = sb.qs + 32 * (s / 2);
          const int shift = 4 * (s % 2);
          for (int c = 0; c < 4; ++c) {
            for (int e = 0; e < 4; ++e) {
              const int lo = (q[4 * c + e] >> shift) & 15, hi = (q[16 + 4 * c + e] >> shift) & 15;
              db[80 + 64 * s + 16 * c + 4 * r + e] = static_cast<uint8_t>(lo | hi << 4);
            }
          }
        }
      }
    }
  }
}

size_t Q6_KR4RowBytes(int64_t k) { return static_cast<size_t>(k / blocks::kQK_K) * 210; }

namespace {

// GGML's 6-bit level (0..63) of value v of a Q6_K block (dequantize_row_q6_K's order: per half n of
// 128 values, l < 32: values 128 n + l + 32 t, t = 0..3, from ql[64 n + l (+ 32)] and the bit pair
// 2 t of qh[32 n + l]).
int Q6Level(const blocks::BlockQ6_K& b, int v) {
  const int n = v / 128, t = v % 128 / 32, l = v % 32;
  const uint8_t ql = b.ql[64 * n + l + 32 * (t % 2)];
  const int low = t < 2 ? ql & 15 : ql >> 4;
  return low | ((b.qh[32 * n + l] >> (2 * t)) & 3) << 4;
}

}  // namespace

void RepackQ6_KR4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  const int64_t nb = k / blocks::kQK_K;
  const size_t src_row = static_cast<size_t>(nb) * sizeof(blocks::BlockQ6_K);
  const size_t dst_row = Q6_KR4RowBytes(k);
  for (int64_t g = 0; g < (n + 3) / 4; ++g) {
    uint8_t* dst = out + 4 * g * dst_row;
    std::memset(dst, 0, 4 * dst_row);
    for (int r = 0; r < 4 && 4 * g + r < n; ++r) {
      const auto* src = reinterpret_cast<const blocks::BlockQ6_K*>(w + (4 * g + r) * src_row);
      for (int64_t b = 0; b < nb; ++b) {
        const blocks::BlockQ6_K& sb = src[b];
        uint8_t* db = dst + b * 4 * 210;
        std::memcpy(db + 2 * r, &sb.d, 2);
        for (int gr = 0; gr < 16; ++gr) db[8 + 4 * gr + r] = static_cast<uint8_t>(sb.scales[gr]);
        for (int s = 0; s < 8; ++s) {
          uint8_t* nib = db + 72 + 96 * s;
          for (int c = 0; c < 4; ++c) {
            for (int e = 0; e < 4; ++e) {
              const int lo = Q6Level(sb, 32 * s + 4 * c + e);
              const int hi = Q6Level(sb, 32 * s + 16 + 4 * c + e);
              nib[16 * c + 4 * r + e] = static_cast<uint8_t>((lo & 15) | (hi & 15) << 4);
              nib[64 + 4 * r + e] |= static_cast<uint8_t>(((lo >> 4) ^ 2) << (2 * c));
              nib[80 + 4 * r + e] |= static_cast<uint8_t>(((hi >> 4) ^ 2) << (2 * c));
            }
          }
        }
      }
    }
  }
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
