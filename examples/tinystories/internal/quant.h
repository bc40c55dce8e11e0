// Weight codecs and matrix-vector kernels local to the TinyStories example: Q4_0, Q8_0 (GGML
// block layouts) and BF16, with scalar reference kernels. A stand-in used while //quantization's
// codecs and //runtime/kernels' qmatmul kernels are not available in the tree; not a public API.
#ifndef EDGEQ_EXAMPLES_TINYSTORIES_INTERNAL_QUANT_H_
#define EDGEQ_EXAMPLES_TINYSTORIES_INTERNAL_QUANT_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/tensor.h"

namespace edgeq {
namespace tinystories {
namespace internal {

// Values per block (32 for q4_0/q8_0, 1 for bf16) and bytes per block; 0 for unknown encodings.
int ElementsPerBlock(absl::string_view encoding);
int BlockBytes(absl::string_view encoding);
bool IsKnownEncoding(absl::string_view encoding);  // "q4_0", "q8_0", "bf16"

// f32 [n, k] -> u8 [n, k / epb * block_bytes] tagged with (encoding, [n, k]).
// InvalidArgument naming the encoding and k if k is not a multiple of the block.
absl::StatusOr<Tensor> Quantize(const Tensor& f32, absl::string_view encoding);

// One row of k logical values.
void DequantizeRow(absl::string_view encoding, const uint8_t* in, float* out, int64_t k);

// Q8_0 blocks of an activation vector (k a multiple of 32): scratch for the dot products.
void QuantizeActivationQ8(const float* x, int64_t k, uint8_t* out);

// Dot product of one weight row (encoding) with x (f32) or its Q8_0 form (q4_0/q8_0 rows).
float DotRowQ4_0(const uint8_t* row, const uint8_t* xq8, int64_t k);
float DotRowQ8_0(const uint8_t* row, const uint8_t* xq8, int64_t k);
float DotRowBf16(const uint8_t* row, const float* x, int64_t k);

uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);

}  // namespace internal
}  // namespace tinystories
}  // namespace edgeq

#endif  // EDGEQ_EXAMPLES_TINYSTORIES_INTERNAL_QUANT_H_
