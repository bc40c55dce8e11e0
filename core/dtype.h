// Element types of edgeq tensors.
#ifndef EDGEQ_CORE_DTYPE_H_
#define EDGEQ_CORE_DTYPE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace edgeq {

// The element type of a tensor. Values are stable: they are written into checkpoints.
enum class DType : uint8_t {
  kFloat32 = 0,
  kFloat16 = 1,
  kBFloat16 = 2,
  kInt8 = 3,
  kUInt8 = 4,
  kInt32 = 5,
  kInt64 = 6,
};

inline constexpr int kNumDTypes = 7;

// Size of one element in bytes.
size_t DTypeSize(DType dtype);

// Short lower-case name: "f32", "f16", "bf16", "i8", "u8", "i32", "i64".
absl::string_view DTypeName(DType dtype);

// Parses a name produced by DTypeName(). InvalidArgument naming the input otherwise.
absl::StatusOr<DType> DTypeFromName(absl::string_view name);

// Checks that a raw value (e.g. read from a file) names a DType.
absl::StatusOr<DType> DTypeFromInt(int value);

// The DType of a C++ element type; only defined for the types that have one. 16-bit float
// types have no C++ type here: they are accessed as uint16_t bits.
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kFloat32;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr DType value = DType::kInt64;
};

}  // namespace edgeq

#endif  // EDGEQ_CORE_DTYPE_H_
