// The dimensions of a tensor.
#ifndef EDGEQ_CORE_SHAPE_H_
#define EDGEQ_CORE_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace edgeq {

// A list of dimensions, outermost first; the last one is contiguous in memory.
//
// A Shape built from a brace list (`Shape{32, 64}`) is not checked; everything that allocates or
// reads memory for a shape (Tensor::Create, readers) calls Validate() first, so a negative
// dimension or an element count that overflows is reported as a Status, never used.
class Shape {
 public:
  // Dimensions may hold at most this many elements in total (2^48: far above any edge model,
  // and small enough that a byte count of any dtype fits in int64).
  static constexpr int64_t kMaxElements = int64_t{1} << 48;
  static constexpr int kMaxRank = 8;

  Shape() = default;  // rank 0: a scalar with one element.
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Validated construction: InvalidArgument on a negative dimension, rank above kMaxRank, or an
  // element count above kMaxElements.
  static absl::StatusOr<Shape> Create(absl::Span<const int64_t> dims);

  // OK if every dimension is >= 0, rank <= kMaxRank and the element count fits; the message
  // names the shape and the offending dimension otherwise.
  absl::Status Validate() const;

  int rank() const { return static_cast<int>(dims_.size()); }
  // Dimension i; negative i counts from the end (-1 is the last). i must be in range.
  int64_t dim(int i) const { return dims_[i < 0 ? i + rank() : i]; }
  const std::vector<int64_t>& dims() const { return dims_; }

  // Product of the dimensions (1 for a scalar). Only meaningful on a valid shape.
  int64_t num_elements() const;

  // Same shape with the last dimension replaced. Requires rank >= 1.
  Shape WithLastDim(int64_t last) const;

  // "[32, 64]".
  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) { return a.dims_ == b.dims_; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace edgeq

#endif  // EDGEQ_CORE_SHAPE_H_
