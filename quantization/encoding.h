// QuantizationEncoding: how a float tensor is stored as bytes, block by block.
//
//   const edgeq::QuantizationEncoding& enc = edgeq::Q4_0Encoding();
//   absl::StatusOr<edgeq::Tensor> q = enc.Quantize(weights);   // f32 [n, k] -> u8 [n, k/32*18]
//   absl::StatusOr<edgeq::Tensor> w = enc.Dequantize(*q);       // u8 -> f32 [n, k]
//
// A quantized tensor is a uint8 tensor whose last dimension counts bytes: a logical shape
// [..., k] becomes [..., k / elements_per_block * block_size]. It is tagged with the encoding's
// name and its logical shape (Tensor::encoding(), Tensor::logical_shape()), so it knows how to
// decode itself. Built-in encodings and user encodings live in one registry keyed by name.
#ifndef EDGEQ_QUANTIZATION_ENCODING_H_
#define EDGEQ_QUANTIZATION_ENCODING_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "pthreadpool.h"

namespace edgeq {

// `elements_per_block` logical values are stored in `block_size` bytes.
struct BlockParameters {
  int64_t elements_per_block;
  int64_t block_size;
  friend bool operator==(const BlockParameters& a, const BlockParameters& b) {
    return a.elements_per_block == b.elements_per_block && a.block_size == b.block_size;
  }
};

class QuantizationEncoding {
 public:
  virtual ~QuantizationEncoding() = default;

  // Registry key, lower case: one of the 14 built-ins ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0",
  // "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "iq4_nl", "iq4_xs", "f16", "bf16") or a user's name.
  virtual absl::string_view name() const = 0;
  virtual BlockParameters block_parameters() const = 0;

  // [..., k] -> [..., k / elements_per_block * block_size]. InvalidArgument (naming the
  // encoding, the shape and the multiple needed) if rank is 0 or k is not a multiple of
  // elements_per_block.
  absl::StatusOr<Shape> QuantizedShape(const Shape& logical) const;
  // [..., bytes] -> [..., bytes / block_size * elements_per_block]; InvalidArgument if the byte
  // count is not a whole number of blocks.
  absl::StatusOr<Shape> LogicalShape(const Shape& quantized) const;

  // Quantizes an f32 tensor of rank >= 1 into a tagged uint8 tensor. Errors: not f32, last
  // dimension not a multiple of elements_per_block, NaN or Inf in the input (the message names
  // the flat index). Rows are processed in parallel on `pool` when given (may be null).
  absl::StatusOr<Tensor> Quantize(const Tensor& input, pthreadpool_t pool = nullptr) const;

  // Decodes a uint8 tensor produced by Quantize (or read from a file) back to f32 of the logical
  // shape. Errors: not uint8, a tag naming another encoding, a byte count that is not a whole
  // number of blocks.
  absl::StatusOr<Tensor> Dequantize(const Tensor& input, pthreadpool_t pool = nullptr) const;

  // Row codecs every encoding implements. `num_elements` is a positive multiple of
  // elements_per_block; `x` holds finite floats. Must be thread-safe (no mutable state).
  virtual void QuantizeRow(const float* x, uint8_t* out, int64_t num_elements) const = 0;
  virtual void DequantizeRow(const uint8_t* in, float* y, int64_t num_elements) const = 0;
};

// Built-in encodings (GGML-compatible blocks, bit-exact with GGML's reference codecs).
const QuantizationEncoding& Q4_0Encoding();      // 32 values in 18 bytes
const QuantizationEncoding& Q8_0Encoding();      // 32 values in 34 bytes
const QuantizationEncoding& Q4_KEncoding();      // 256 values in 144 bytes
const QuantizationEncoding& Q5_KEncoding();      // 256 values in 176 bytes
const QuantizationEncoding& Q6_KEncoding();      // 256 values in 210 bytes
const QuantizationEncoding& BFloat16Encoding();  // 1 value in 2 bytes

// The process-wide registry of encodings, built-ins included. Thread-safe.
class EncodingRegistry {
 public:
  static EncodingRegistry& Global();

  // AlreadyExists if the name is taken (ignoring case); InvalidArgument on an empty name or bad
  // block parameters.
  absl::Status Register(std::unique_ptr<QuantizationEncoding> encoding);
  // Case-insensitive: "Q4_K" (GGML's spelling) and "q4_k" find the same encoding. NotFound
  // naming the encoding and listing the registered names.
  absl::StatusOr<const QuantizationEncoding*> Find(absl::string_view name) const;
  std::vector<std::string> Names() const;  // sorted
};

// Shorthand for EncodingRegistry::Global().Find(name).
absl::StatusOr<const QuantizationEncoding*> FindEncoding(absl::string_view name);

// The invariant of a quantized tensor, checked in one place: by every checkpoint reader at load,
// by Graph::Constant/Quantize and by `edgeq inspect --verify`, before any kernel reads the bytes.
// A tensor tagged with an encoding must
//   - be uint8;
//   - name a registered encoding, spelled as registered (e.g. "q4_k", not "Q4_K");
//   - have a logical shape of rank >= 1, no zero dimension, whose last dimension k is a multiple
//     of the encoding's elements_per_block;
//   - hold exactly rows x (k / elements_per_block) x block_size bytes (rows: the product of the
//     other logical dimensions), with a last byte dimension of one row's bytes.
// OK for a tensor without a tag. The error (InvalidArgument) names `name`, the encoding, the
// logical shape, and the expected and actual byte counts.
absl::Status CheckQuantizedTensor(absl::string_view name, const Tensor& tensor);

}  // namespace edgeq

#endif  // EDGEQ_QUANTIZATION_ENCODING_H_
