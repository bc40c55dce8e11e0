// Pieces of the dotprod kernels: the q4_0/q8_0 block dot and the 16-byte dot the K-quant row
// kernels of arm_common.h take (include it only from files compiled with +dotprod).
#ifndef EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_
#define EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_

#include <arm_neon.h>

#include <cstdint>

#include "quantization/block_layout.h"
#include "runtime/kernels/arm/arm_common.h"

namespace edgeq {
namespace kernels {
namespace internal {
namespace arm {
// Internal linkage: every kernel file, compiled with its own -m flags, keeps its own copy of
// these helpers, so the linker can never merge an AVX-512 (or i8mm) copy into another ISA's path.
namespace {

// sdot: 4 int8 products per int32 lane (include only from files compiled with +dotprod).
struct DotprodDot {
  static inline int32x4_t Block(int8x16_t q0, int8x16_t q1, int8x16_t x0, int8x16_t x1) {
    return vdotq_s32(vdotq_s32(vdupq_n_s32(0), q0, x0), q1, x1);
  }
};

// The same 16-byte dot with sdot (for arm::K45Tile and arm::Q6KTile).
struct DotprodDot16 {
  static inline int32x4_t Acc(int32x4_t acc, int8x16_t a, int8x16_t b) {
    return vdotq_s32(acc, a, b);
  }
};

}  // namespace
}  // namespace arm
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_ARM_DOTPROD_COMMON_H_
