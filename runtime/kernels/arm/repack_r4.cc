// Plain C++ (baseline flags): runs once per weight matrix at Create.
#include "runtime/kernels/arm/repack_r4.h"

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

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
