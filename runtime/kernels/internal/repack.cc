#include "runtime/kernels/internal/repack.h"

#include <cstring>

#include "quantization/block_layout.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

size_t RoundUp64(size_t v) { return (v + 63) / 64 * 64; }

// Element e (0..31) of a Q4_0 block as its 4-bit level.
inline uint8_t Q4Level(const blocks::BlockQ4_0& b, int e) {
  return e < 16 ? (b.qs[e] & 0x0F) : (b.qs[e - 16] >> 4);
}

}  // namespace

int64_t PaddedBlocks32(int64_t k) { return (k / 32 + 3) / 4 * 4; }

size_t Q4_0X4RowBytes(int64_t k) { return RoundUp64(PaddedBlocks32(k) * 18); }

void RepackQ4_0X4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  const int64_t nb = k / 32, nbp = PaddedBlocks32(k);
  const size_t row_bytes = Q4_0X4RowBytes(k);
  const blocks::BlockQ4_0 pad = {0,
                                 {0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
                                  0x88, 0x88, 0x88, 0x88, 0x88}};
  for (int64_t j = 0; j < n; ++j) {
    const auto* src = reinterpret_cast<const blocks::BlockQ4_0*>(w + j * nb * 18);
    uint8_t* dst = out + j * row_bytes;
    std::memset(dst, 0, row_bytes);
    auto block = [&](int64_t b) -> const blocks::BlockQ4_0& { return b < nb ? src[b] : pad; };
    for (int64_t g = 0; g < nbp / 4; ++g) {
      for (int t = 0; t < 64; ++t) {
        const uint8_t lo = Q4Level(block(4 * g + t / 32), t % 32);
        const uint8_t hi = Q4Level(block(4 * g + 2 + t / 32), t % 32);
        dst[g * 64 + t] = static_cast<uint8_t>(lo | (hi << 4));
      }
    }
    uint16_t* d = reinterpret_cast<uint16_t*>(dst + nbp * 16);
    for (int64_t b = 0; b < nbp; ++b) d[b] = b < nb ? src[b].d : 0;
  }
}

size_t Q8_0X4RowBytes(int64_t k) { return RoundUp64(PaddedBlocks32(k) * 34); }

void RepackQ8_0X4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out) {
  const int64_t nb = k / 32, nbp = PaddedBlocks32(k);
  const size_t row_bytes = Q8_0X4RowBytes(k);
  for (int64_t j = 0; j < n; ++j) {
    const auto* src = reinterpret_cast<const blocks::BlockQ8_0*>(w + j * nb * 34);
    uint8_t* dst = out + j * row_bytes;
    std::memset(dst, 0, row_bytes);
    for (int64_t b = 0; b < nbp; ++b) {
      for (int e = 0; e < 32; ++e) {
        const uint8_t v = b < nb ? static_cast<uint8_t>(src[b].qs[e]) : 0;
        dst[b * 32 + e] = v;
      }
    }
    uint16_t* d = reinterpret_cast<uint16_t*>(dst + nbp * 32);
    for (int64_t b = 0; b < nbp; ++b) d[b] = b < nb ? src[b].d : 0;
  }
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
