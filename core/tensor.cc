#include "core/tensor.h"

#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace edgeq {
namespace {

struct AlignedFree {
  void operator()(const void* p) const { std::free(const_cast<void*>(p)); }
};

// A zeroed buffer of at least one byte, so that data() is never null.
absl::StatusOr<std::shared_ptr<const void>> AllocateZeroed(size_t size_bytes, void** data) {
  const size_t rounded =
      ((size_bytes + kTensorAlignment - 1) / kTensorAlignment) * kTensorAlignment;
  void* p = nullptr;
  if (posix_memalign(&p, kTensorAlignment, rounded == 0 ? kTensorAlignment : rounded) != 0) {
    return absl::ResourceExhaustedError(
        absl::StrFormat("cannot allocate %d bytes for a tensor", size_bytes));
  }
  std::memset(p, 0, rounded == 0 ? kTensorAlignment : rounded);
  *data = p;
  return std::shared_ptr<const void>(p, AlignedFree());
}

}  // namespace

Tensor::Tensor() : Tensor(*Create(DType::kFloat32, Shape{0})) {}

Tensor::Tensor(DType dtype, Shape shape, std::shared_ptr<const void> storage, void* data,
               size_t size_bytes, bool is_view, bool writable)
    : dtype_(dtype),
      shape_(std::move(shape)),
      storage_(std::move(storage)),
      data_(data),
      size_bytes_(size_bytes),
      is_view_(is_view),
      writable_(writable) {}

absl::StatusOr<Tensor> Tensor::Create(DType dtype, const Shape& shape) {
  absl::Status s = shape.Validate();
  if (!s.ok()) return s;
  const size_t size_bytes = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  void* data = nullptr;
  absl::StatusOr<std::shared_ptr<const void>> storage = AllocateZeroed(size_bytes, &data);
  if (!storage.ok()) return storage.status();
  return Tensor(dtype, shape, *std::move(storage), data, size_bytes, /*is_view=*/false,
                /*writable=*/true);
}

absl::StatusOr<Tensor> Tensor::Full(const Shape& shape, float value) {
  absl::StatusOr<Tensor> t = Create(DType::kFloat32, shape);
  if (!t.ok()) return t.status();
  float* p = static_cast<float*>(t->data_);
  for (int64_t i = 0, n = t->num_elements(); i < n; ++i) p[i] = value;
  return t;
}

absl::StatusOr<Tensor> Tensor::View(DType dtype, const Shape& shape, const void* data,
                                    size_t size_bytes, std::shared_ptr<const void> owner,
                                    bool writable) {
  absl::Status s = shape.Validate();
  if (!s.ok()) return s;
  const size_t expected = static_cast<size_t>(shape.num_elements()) * DTypeSize(dtype);
  if (size_bytes != expected) {
    return absl::InvalidArgumentError(
        absl::StrFormat("Tensor::View: %d bytes given for %s%s, which needs %d", size_bytes,
                        DTypeName(dtype), shape.ToString(), expected));
  }
  if (data == nullptr && size_bytes != 0) {
    return absl::InvalidArgumentError("Tensor::View: null data");
  }
  return Tensor(dtype, shape, std::move(owner), const_cast<void*>(data), size_bytes,
                /*is_view=*/true, writable);
}

absl::Status Tensor::CheckDType(DType requested) const {
  if (requested == dtype_) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrFormat("tensor %s has dtype %s, not the requested %s", DebugString(),
                      DTypeName(dtype_), DTypeName(requested)));
}

absl::StatusOr<Tensor> Tensor::Clone() const {
  absl::StatusOr<Tensor> t = Create(dtype_, shape_);
  if (!t.ok()) return t.status();
  if (size_bytes_ != 0) std::memcpy(t->data_, data_, size_bytes_);
  t->encoding_ = encoding_;
  t->logical_shape_ = logical_shape_;
  return t;
}

absl::StatusOr<Tensor> Tensor::Reshape(const Shape& shape) const {
  absl::Status s = shape.Validate();
  if (!s.ok()) return s;
  if (shape.num_elements() != num_elements()) {
    return absl::InvalidArgumentError(absl::StrFormat("cannot reshape %s to %s: %d elements vs %d",
                                                      DebugString(), shape.ToString(),
                                                      num_elements(), shape.num_elements()));
  }
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

std::string Tensor::DebugString() const {
  std::string s = absl::StrCat(DTypeName(dtype_), shape_.ToString());
  if (is_quantized()) absl::StrAppend(&s, " (", encoding_, " of ", logical_shape_.ToString(), ")");
  return s;
}

std::string TensorType::ToString() const {
  return absl::StrCat(DTypeName(dtype), shape.ToString());
}

}  // namespace edgeq
