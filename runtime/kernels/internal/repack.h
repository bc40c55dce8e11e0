// Weight layouts the SIMD kernels repack GGML blocks into at Create (once per weight matrix).
#ifndef EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_H_
#define EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_H_

#include <cstddef>
#include <cstdint>

namespace edgeq {
namespace kernels {
namespace internal {

// Blocks per row padded to a multiple of 4 (same as Q8_0SPaddedBlocks).
int64_t PaddedBlocks32(int64_t k);

// "Q4_0X4": per row, nbp = PaddedBlocks32(k) blocks in groups of 4 (64 bytes of nibbles each):
// byte t of group g holds element t % 32 of block 4g + t / 32 in its low nibble and element
// t % 32 of block 4g + 2 + t / 32 in its high nibble (so each nibble plane is two whole blocks in
// natural order, matching Q8_0S activations). Then nbp fp16 scales (0 for pad blocks, whose
// nibbles are 8, i.e. value 0). Rows are padded to 64 bytes.
size_t Q4_0X4RowBytes(int64_t k);
void RepackQ4_0X4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

// "Q8_0X4": per row, int8 qs[nbp * 32] in natural order (pad 0), then nbp fp16 scales.
size_t Q8_0X4RowBytes(int64_t k);
void RepackQ8_0X4(const uint8_t* w, int64_t n, int64_t k, uint8_t* out);

}  // namespace internal
}  // namespace kernels
}  // namespace edgeq

#endif  // EDGEQ_RUNTIME_KERNELS_INTERNAL_REPACK_H_
