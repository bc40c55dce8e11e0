// Tensor: a typed, shaped block of memory, owned (64-byte aligned) or viewed (e.g. an mmap).
#ifndef EDGEQ_CORE_TENSOR_H_
#define EDGEQ_CORE_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/types/span.h"
#include "core/dtype.h"
#include "core/shape.h"

namespace edgeq {

// Alignment of every buffer a Tensor allocates (a cache line; enough for AVX-512 loads).
inline constexpr size_t kTensorAlignment = 64;

// A tensor: dtype, shape and a buffer.
//
// Copies are cheap and share the buffer (like a shared_ptr); Clone() makes a deep, owning copy.
// A tensor either owns a 64-byte aligned buffer (Create, Full, FromValues) or views memory that
// something else keeps alive (View: an mmap'd checkpoint, a caller's array). Views of read-only
// memory refuse mutable access with a Status.
//
// A quantized tensor is a uint8 tensor tagged with the name of its encoding and its logical
// (unquantized) shape; see quantization/encoding.h. The tag is plain data here: core knows
// nothing of encodings.
class Tensor {
 public:
  // An empty f32 tensor of shape [0].
  Tensor();

  // A zero-filled tensor. InvalidArgument if the shape is invalid (negative dimension,
  // overflowing element count).
  static absl::StatusOr<Tensor> Create(DType dtype, const Shape& shape);

  // An f32 tensor with every element set to `value`.
  static absl::StatusOr<Tensor> Full(const Shape& shape, float value);

  // A tensor holding a copy of `values`; their count must equal the shape's element count.
  template <typename T>
  static absl::StatusOr<Tensor> FromValues(const Shape& shape, absl::Span<const T> values);

  // A non-owning view of `size_bytes` bytes at `data`, which must equal the byte size of
  // (dtype, shape). `owner` (may be null) is kept alive as long as any copy of the tensor, e.g.
  // the mapping of a checkpoint. `writable` says whether MutableValues() may hand out the memory.
  static absl::StatusOr<Tensor> View(DType dtype, const Shape& shape, const void* data,
                                     size_t size_bytes, std::shared_ptr<const void> owner,
                                     bool writable = false);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t num_elements() const { return shape_.num_elements(); }
  size_t size_bytes() const { return size_bytes_; }
  bool is_view() const { return is_view_; }
  bool writable() const { return writable_; }

  // Typed access: FailedPrecondition naming both dtypes if T does not match dtype().
  template <typename T>
  absl::StatusOr<absl::Span<const T>> Values() const;
  // As Values(); also FailedPrecondition on a read-only view.
  template <typename T>
  absl::StatusOr<absl::Span<T>> MutableValues();

  // Raw bytes (no checks). raw_mutable_data() must only be used on writable tensors.
  const void* raw_data() const { return data_; }
  void* raw_mutable_data() { return data_; }
  absl::Span<const uint8_t> bytes() const {
    return absl::MakeConstSpan(static_cast<const uint8_t*>(data_), size_bytes_);
  }

  // A deep copy into a fresh, owning, writable buffer (the quantization tag is kept).
  absl::StatusOr<Tensor> Clone() const;

  // Same buffer, new shape with the same element count (InvalidArgument otherwise).
  absl::StatusOr<Tensor> Reshape(const Shape& shape) const;

  // Quantization tag: empty encoding() means a plain tensor.
  const std::string& encoding() const { return encoding_; }
  const Shape& logical_shape() const { return encoding_.empty() ? shape_ : logical_shape_; }
  bool is_quantized() const { return !encoding_.empty(); }
  // Tags this tensor (in place) as quantized with `encoding` and the given logical shape.
  void SetQuantization(std::string encoding, Shape logical_shape) {
    encoding_ = std::move(encoding);
    logical_shape_ = std::move(logical_shape);
  }

  // "f32[32, 64]", or "u8[32, 36] (q4_0 of [32, 64])".
  std::string DebugString() const;

 private:
  Tensor(DType dtype, Shape shape, std::shared_ptr<const void> storage, void* data,
         size_t size_bytes, bool is_view, bool writable);

  absl::Status CheckDType(DType requested) const;

  DType dtype_;
  Shape shape_;
  std::shared_ptr<const void> storage_;  // Keeps data_ alive (owned buffer or a view's owner).
  void* data_;
  size_t size_bytes_;
  bool is_view_;
  bool writable_;
  std::string encoding_;
  Shape logical_shape_;
};

// dtype and shape, without data: the type of a graph input or value.
struct TensorType {
  TensorType() = default;
  TensorType(DType dtype, Shape shape) : dtype(dtype), shape(std::move(shape)) {}

  DType dtype = DType::kFloat32;
  Shape shape;

  std::string ToString() const;  // "f32[32, 64]"
  friend bool operator==(const TensorType& a, const TensorType& b) {
    return a.dtype == b.dtype && a.shape == b.shape;
  }
  friend bool operator!=(const TensorType& a, const TensorType& b) { return !(a == b); }
};

// ---- implementation details below ----

template <typename T>
absl::StatusOr<Tensor> Tensor::FromValues(const Shape& shape, absl::Span<const T> values) {
  absl::StatusOr<Tensor> t = Create(DTypeOf<T>::value, shape);
  if (!t.ok()) return t.status();
  if (static_cast<int64_t>(values.size()) != t->num_elements()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Tensor::FromValues: %d values given for shape %s, which holds %d",
                        values.size(), shape.ToString(), t->num_elements()));
  }
  if (!values.empty()) std::memcpy(t->data_, values.data(), values.size() * sizeof(T));
  return t;
}

template <typename T>
absl::StatusOr<absl::Span<const T>> Tensor::Values() const {
  absl::Status s = CheckDType(DTypeOf<T>::value);
  if (!s.ok()) return s;
  return absl::MakeConstSpan(static_cast<const T*>(data_), static_cast<size_t>(num_elements()));
}

template <typename T>
absl::StatusOr<absl::Span<T>> Tensor::MutableValues() {
  absl::Status s = CheckDType(DTypeOf<T>::value);
  if (!s.ok()) return s;
  if (!writable_) {
    return absl::FailedPreconditionError(
        absl::StrFormat("tensor %s is a read-only view; Clone() it to modify", DebugString()));
  }
  return absl::MakeSpan(static_cast<T*>(data_), static_cast<size_t>(num_elements()));
}

}  // namespace edgeq

#endif  // EDGEQ_CORE_TENSOR_H_
