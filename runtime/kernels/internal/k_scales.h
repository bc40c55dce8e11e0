// GGML's get_scale_min_k4 for all 8 sub-blocks of a Q4_K/Q5_K super-block.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_K_SCALES_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_K_SCALES_H_

#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {

inline void UnpackKScales(const uint8_t* q, uint8_t sc[8], uint8_t mn[8]) {
  for (int j = 0; j < 4; ++j) {
    sc[j] = q[j] & 63;
    mn[j] = q[j + 4] & 63;
  }
  for (int j = 4; j < 8; ++j) {
    sc[j] = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    mn[j] = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_K_SCALES_H_
