// ISA-neutral pieces of the drivers of the X16 weight layouts (internal/repack_x16.h): the
// activation views and the quad order of the nibble chunks, shared by the 512-bit driver
// (avx512_x16.h) and the 256-bit one (avx2_x16.h).
#ifndef EDGEQ_RUNTIME_KERNELS_X86_X16_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_X86_X16_COMMON_H_

#include <cstdint>

#include "runtime/kernels/internal/kernel_api.h"

// Loops over registers (activation rows, quads) must be unrolled for the arrays to stay in
// registers; GCC does not do it by itself at -O2.
#define EDGEQ_UNROLL _Pragma("GCC unroll 16")

namespace edgeq {
namespace kernels {
namespace internal {
namespace x86 {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// Part p holds chunks 2p and 2p + 1: quads 2p, 2p + 4, 2p + 1, 2p + 5.
constexpr int NibbleQuad(int part, int i) { return 2 * part + (i & 1) * 4 + (i >> 1); }

// Activations in Q8_0S, two 32-value blocks per tile (rows pad their blocks to a multiple of 4
// with zero values, sums and scales, so a missing last block of a pair reads zeros).
struct ActQ8_0SPairs {
  static int64_t Blocks(int64_t k) { return (k + 63) / 64; }
  static const int8_t* Qs(const uint8_t* x, int64_t /*k*/, int64_t b) {
    return Q8_0SQs(x) + 64 * b;
  }
  static int32_t Sum(const uint8_t* x, int64_t k, int64_t b, int s) {
    return Q8_0SSum(x, Q8_0SPaddedBlocks(k))[2 * b + s];
  }
  static float ActScale(const uint8_t* x, int64_t k, int64_t b, int s) {
    return Q8_0SD(x, Q8_0SPaddedBlocks(k))[2 * b + s];
  }
};

// Activations in Q8_1S (Q4_1, Q5_1): the Q8_0S view of the row's values, and s of each block.
struct ActQ8_1SPairs {
  static int64_t Blocks(int64_t k) { return (k + 63) / 64; }
  static const int8_t* Qs(const uint8_t* x, int64_t k, int64_t b) {
    return Q8_0SQs(Q8_1SQ8_0S(x, k)) + 64 * b;
  }
  static float ActScale(const uint8_t* x, int64_t k, int64_t b, int s) {
    return Q8_0SD(Q8_1SQ8_0S(x, k), Q8_0SPaddedBlocks(k))[2 * b + s];
  }
  // s (d * sum of the values) of block 2 b + s.
  static float MinScale(const uint8_t* x, int64_t b, int s) { return Q8_1SS(x)[2 * b + s]; }
};

// Activations in Q8_KX (the K-quants).
struct ActQ8_KX {
  static const BlockQ8_KX& Blk(const uint8_t* x, int64_t b) {
    return reinterpret_cast<const BlockQ8_KX*>(x)[b];
  }
  static const int8_t* Qs(const uint8_t* x, int64_t /*k*/, int64_t b) { return Blk(x, b).qs; }
  static float ActScale(const uint8_t* x, int64_t /*k*/, int64_t b, int /*s*/) {
    return Blk(x, b).d;
  }
  static int64_t Blocks(int64_t k) { return k / 256; }
};

}  // namespace
}  // namespace x86
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_X86_X16_COMMON_H_
