// The X16 repack as first written (repack_x16.h's layouts, one value at a time through a decoded
// block, generic and slow): the reference the fast repack (repack_x16.cc) is tested against
// byte by byte (repack_x16_test.cc). Test-only.
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_REFERENCE_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_REFERENCE_H_

#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {
namespace reference {

// As the functions of the same names in repack_x16.h.
void RepackQ4_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ8_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_0X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ4_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_1X16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ4_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ5_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ6_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ2_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackQ3_KX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);
void RepackIq4XsX16(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

}  // namespace reference
}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_X16_REFERENCE_H_
