// The fast X16 repack (repack_x16.cc) against the value-by-value reference
// (repack_x16_reference.cc) byte by byte, for every X16 layout over odd shapes: n = 1..49 (whole
// and partial 16-row groups), k from one block to several (odd block counts: a pair tile with a
// missing block), both output buffers pre-filled with different garbage so that a byte the fast
// repack leaves unwritten shows. Also: a matrix repacked in chunks of whole row groups (as
// QMatmulKernel's load loop does, one thread per chunk) equals the matrix repacked at once.
#include "runtime/kernels/internal/repack_x16.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/kernels/internal/repack_x16_reference.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace {

using RepackFn = void (*)(const uint8_t*, int64_t, int64_t, uint8_t*);

struct Layout {
  const char* name;
  RepackFn fast;
  RepackFn reference;
  size_t (*row_bytes)(int64_t k);
  int block_elems;
  size_t block_bytes;
};

const Layout kLayouts[] = {
    {"Q4_0X16", RepackQ4_0X16, reference::RepackQ4_0X16, Q4_0X16RowBytes, 32, 18},
    {"Q8_0X16", RepackQ8_0X16, reference::RepackQ8_0X16, Q8_0X16RowBytes, 32, 34},
    {"Q5_0X16", RepackQ5_0X16, reference::RepackQ5_0X16, Q5_0X16RowBytes, 32, 22},
    {"Q4_1X16", RepackQ4_1X16, reference::RepackQ4_1X16, Q4_1X16RowBytes, 32, 20},
    {"Q5_1X16", RepackQ5_1X16, reference::RepackQ5_1X16, Q5_1X16RowBytes, 32, 24},
    {"Q4_KX16", RepackQ4_KX16, reference::RepackQ4_KX16, Q4_KX16RowBytes, 256, 144},
    {"Q5_KX16", RepackQ5_KX16, reference::RepackQ5_KX16, Q5_KX16RowBytes, 256, 176},
    {"Q6_KX16", RepackQ6_KX16, reference::RepackQ6_KX16, Q6_KX16RowBytes, 256, 210},
    {"Q2_KX16", RepackQ2_KX16, reference::RepackQ2_KX16, Q2_KX16RowBytes, 256, 84},
    {"Q3_KX16", RepackQ3_KX16, reference::RepackQ3_KX16, Q3_KX16RowBytes, 256, 110},
    {"Iq4XsX16", RepackIq4XsX16, reference::RepackIq4XsX16, Iq4XsX16RowBytes, 256, 136},
};

std::vector<uint8_t> RandomBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(size);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// Index of the first differing byte, or -1.
int64_t FirstDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  }
  return -1;
}

TEST(RepackX16Test, ByteIdenticalToTheReferenceOnOddShapes) {
  for (const Layout& l : kLayouts) {
    // 1, 2, 3 and 5 blocks (32-value types: odd counts leave a pair tile half empty).
    for (const int blocks : {1, 2, 3, 5}) {
      const int64_t k = int64_t{blocks} * l.block_elems;
      const size_t row_bytes = l.row_bytes(k);
      for (int64_t n = 1; n <= 49; ++n) {
        const std::vector<uint8_t> w =
            RandomBytes(static_cast<size_t>(n * blocks) * l.block_bytes, 7 * n + blocks);
        const size_t out_bytes = static_cast<size_t>((n + 15) / 16 * 16) * row_bytes;
        std::vector<uint8_t> fast(out_bytes, 0xA5), ref(out_bytes, 0x5A);
        l.fast(w.data(), n, k, fast.data());
        l.reference(w.data(), n, k, ref.data());
        const int64_t at = FirstDifference(fast, ref);
        ASSERT_EQ(at, -1) << l.name << " n=" << n << " k=" << k << ": byte " << at << " is "
                          << int{fast[at]} << ", reference " << int{ref[at]};
      }
    }
  }
}

TEST(RepackX16Test, ChunksOfWholeRowGroupsEqualOneCall) {
  constexpr int64_t kN = 53;
  for (const Layout& l : kLayouts) {
    const int64_t k = 3 * l.block_elems;
    const size_t src_row = 3 * l.block_bytes, row_bytes = l.row_bytes(k);
    const std::vector<uint8_t> w = RandomBytes(kN * src_row, 99);
    const size_t out_bytes = static_cast<size_t>((kN + 15) / 16 * 16) * row_bytes;
    std::vector<uint8_t> whole(out_bytes, 0), chunked(out_bytes, 0x77);
    l.fast(w.data(), kN, k, whole.data());
    for (int64_t j = 0; j < kN; j += 32) {
      const int64_t rows = std::min<int64_t>(32, kN - j);
      l.fast(w.data() + j * src_row, rows, k, chunked.data() + j * row_bytes);
    }
    EXPECT_EQ(FirstDifference(whole, chunked), -1) << l.name;
  }
}

}  // namespace
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq
