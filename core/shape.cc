#include "core/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace edgeq {

absl::StatusOr<Shape> Shape::Create(absl::Span<const int64_t> dims) {
  Shape shape(std::vector<int64_t>(dims.begin(), dims.end()));
  absl::Status status = shape.Validate();
  if (!status.ok()) return status;
  return shape;
}

absl::Status Shape::Validate() const {
  if (rank() > kMaxRank) {
    return absl::InvalidArgumentError(absl::StrFormat("shape %s has rank %d, above the maximum %d",
                                                      ToString(), rank(), kMaxRank));
  }
  int64_t count = 1;
  for (int i = 0; i < rank(); ++i) {
    const int64_t d = dims_[i];
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("shape %s has negative dimension %d at index %d", ToString(), d, i));
    }
    if (d != 0 && count > kMaxElements / d) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "shape %s has too many elements (more than %d)", ToString(), kMaxElements));
    }
    count *= d;
  }
  return absl::OkStatus();
}

int64_t Shape::num_elements() const {
  int64_t count = 1;
  for (int64_t d : dims_) count *= d;
  return count;
}

Shape Shape::WithLastDim(int64_t last) const {
  std::vector<int64_t> dims = dims_;
  dims.back() = last;
  return Shape(std::move(dims));
}

std::string Shape::ToString() const { return absl::StrCat("[", absl::StrJoin(dims_, ", "), "]"); }

}  // namespace edgeq
