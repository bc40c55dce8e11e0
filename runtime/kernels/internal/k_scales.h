// GGML's get_scale_min_k4 for all 8 sub-blocks of a Q4_K/Q5_K super-block.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_K_SCALES_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_K_SCALES_H_

#include <cstdint>
#include <cstring>

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

// The same 8 scales and 8 mins as 16 bytes (scales first), computed with 32-bit word operations.
struct KScaleMin {
  uint32_t words[4];
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words); }
};
inline KScaleMin ScaleMinBytes(const uint8_t* q) {
  uint32_t w[3];
  std::memcpy(w, q, sizeof(w));
  constexpr uint32_t k6 = 0x3f3f3f3f, k4 = 0x0f0f0f0f, k2 = 0x03030303;
  KScaleMin r;
  r.words[0] = w[0] & k6;                                       // scales 0..3
  r.words[1] = (w[2] & k4) | (((w[0] >> 6) & k2) << 4);         // scales 4..7
  r.words[2] = w[1] & k6;                                       // mins 0..3
  r.words[3] = ((w[2] >> 4) & k4) | (((w[1] >> 6) & k2) << 4);  // mins 4..7
  return r;
}

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_K_SCALES_H_
