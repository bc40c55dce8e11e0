#include "core/dtype.h"

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace edgeq {
namespace {

struct DTypeInfo {
  DType dtype;
  size_t size;
  absl::string_view name;
};

constexpr DTypeInfo kDTypes[kNumDTypes] = {
    {DType::kFloat32, 4, "f32"}, {DType::kFloat16, 2, "f16"}, {DType::kBFloat16, 2, "bf16"},
    {DType::kInt8, 1, "i8"},     {DType::kUInt8, 1, "u8"},    {DType::kInt32, 4, "i32"},
    {DType::kInt64, 8, "i64"},
};

const DTypeInfo& Info(DType dtype) { return kDTypes[static_cast<int>(dtype)]; }

}  // namespace

size_t DTypeSize(DType dtype) { return Info(dtype).size; }

absl::string_view DTypeName(DType dtype) { return Info(dtype).name; }

absl::StatusOr<DType> DTypeFromName(absl::string_view name) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.name == name) return info.dtype;
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "unknown dtype '%s' (expected one of f32, f16, bf16, i8, u8, i32, i64)", name));
}

absl::StatusOr<DType> DTypeFromInt(int value) {
  if (value < 0 || value >= kNumDTypes) {
    return absl::InvalidArgumentError(
        absl::StrFormat("invalid dtype code %d (expected 0..%d)", value, kNumDTypes - 1));
  }
  return static_cast<DType>(value);
}

}  // namespace edgeq
