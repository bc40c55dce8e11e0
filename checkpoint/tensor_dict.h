// TensorDict: the in-memory form of a checkpoint: named tensors in insertion order, plus
// metadata (hyperparameters, vocabulary, provenance).
//
//   edgeq::checkpoint::TensorDict dict;
//   EDGEQ_RETURN_IF_ERROR(dict.Set("blk.0.attn_q.weight", std::move(wq)));
//   dict.SetMetadata("llama.block_count", edgeq::checkpoint::MetadataValue::Int(5));
//   EDGEQ_ASSIGN_OR_RETURN(const edgeq::Tensor* w, dict.Get("blk.0.attn_q.weight",
//   DType::kFloat32)); EDGEQ_ASSIGN_OR_RETURN(int64_t layers, dict.GetInt("llama.block_count"));
#ifndef EDGEQ_CHECKPOINT_TENSOR_DICT_H_
#define EDGEQ_CHECKPOINT_TENSOR_DICT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/dtype.h"
#include "core/tensor.h"

namespace edgeq {
namespace checkpoint {

// One metadata value: a scalar or an array of integers, floats, booleans or strings.
//
// `width` records the storage type the value came from (or should be written as), e.g. a GGUF
// u32 vs i64, so that files round-trip bit-identically; readers of the value need not care.
// Unsigned 64-bit values above INT64_MAX are kept as their two's-complement bit pattern.
class MetadataValue {
 public:
  enum class Kind : uint8_t { kInt, kFloat, kBool, kString };
  // Stored widths. Values are written into .max files: keep them stable.
  enum class Width : uint8_t {
    kU8 = 0,
    kI8 = 1,
    kU16 = 2,
    kI16 = 3,
    kU32 = 4,
    kI32 = 5,
    kF32 = 6,
    kBool = 7,
    kString = 8,
    kU64 = 10,
    kI64 = 11,
    kF64 = 12,
  };

  MetadataValue() : ints_{0} {}  // the integer 0
  static MetadataValue Int(int64_t v, Width width = Width::kI64);
  static MetadataValue Float(double v, Width width = Width::kF64);
  static MetadataValue Bool(bool v);
  static MetadataValue String(std::string v);
  static MetadataValue IntArray(std::vector<int64_t> v, Width width = Width::kI64);
  static MetadataValue FloatArray(std::vector<double> v, Width width = Width::kF64);
  static MetadataValue BoolArray(std::vector<bool> v);
  static MetadataValue StringArray(std::vector<std::string> v);

  Kind kind() const { return kind_; }
  Width width() const { return width_; }
  bool is_array() const { return is_array_; }
  // Number of elements (1 for a scalar).
  size_t size() const;

  // Floats stored with width kF32 are rounded to float on construction.
  // Scalar accessors (meaningful for the matching kind only; see TensorDict::GetInt etc. for
  // checked access).
  int64_t int_value() const { return ints_.empty() ? 0 : ints_[0]; }
  double float_value() const { return floats_.empty() ? 0.0 : floats_[0]; }
  bool bool_value() const { return !ints_.empty() && ints_[0] != 0; }
  const std::string& string_value() const { return strings_.at(0); }

  // Element storage: ints (kInt and kBool, bools as 0/1), floats, strings.
  const std::vector<int64_t>& ints() const { return ints_; }
  const std::vector<double>& floats() const { return floats_; }
  const std::vector<std::string>& strings() const { return strings_; }

  // "u32", "f32[512]", "string" ...
  std::string TypeName() const;
  // Short human-readable value; arrays show their first `max_items` elements.
  std::string DebugString(size_t max_items = 4) const;

  friend bool operator==(const MetadataValue& a, const MetadataValue& b);
  friend bool operator!=(const MetadataValue& a, const MetadataValue& b) { return !(a == b); }

 private:
  MetadataValue Scalar() &&;

  Kind kind_ = Kind::kInt;
  Width width_ = Width::kI64;
  bool is_array_ = false;
  std::vector<int64_t> ints_;
  std::vector<double> floats_;
  std::vector<std::string> strings_;
};

// Name of a width: "u8", "i8", ..., "f64", "bool", "string".
absl::string_view WidthName(MetadataValue::Width width);
// Checks a raw value read from a file; InvalidArgument naming it otherwise.
absl::StatusOr<MetadataValue::Width> WidthFromInt(uint32_t value);

// Ordered map name -> Tensor, plus ordered metadata. Names are unique non-empty strings.
class TensorDict {
 public:
  // Adds or replaces a tensor (replacing keeps the original position). InvalidArgument on an
  // empty name.
  absl::Status Set(absl::string_view name, Tensor tensor);
  bool Contains(absl::string_view name) const;
  // NotFound naming the key (and how many tensors there are) if absent.
  absl::StatusOr<const Tensor*> Get(absl::string_view name) const;
  // As Get, and FailedPrecondition naming the key and both dtypes if the dtype differs.
  absl::StatusOr<const Tensor*> Get(absl::string_view name, DType dtype) const;
  // Removes a tensor; false if absent.
  bool Remove(absl::string_view name);

  // Tensor names in insertion order.
  const std::vector<std::string>& Keys() const { return keys_; }
  size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }
  // Sum of the tensors' byte sizes.
  uint64_t TotalBytes() const;

  // Metadata (insertion order kept).
  void SetMetadata(absl::string_view key, MetadataValue value);
  bool HasMetadata(absl::string_view key) const;
  absl::StatusOr<const MetadataValue*> GetMetadata(absl::string_view key) const;
  // Checked scalar access: NotFound naming the key, FailedPrecondition naming the key, the
  // expected kind and the stored type. Strict: GetInt takes integers only (not a bool), GetBool
  // a bool only (not an integer or a string such as "false").
  absl::StatusOr<int64_t> GetInt(absl::string_view key) const;
  absl::StatusOr<bool> GetBool(absl::string_view key) const;
  absl::StatusOr<double> GetFloat(absl::string_view key) const;  // ints convert
  absl::StatusOr<std::string> GetString(absl::string_view key) const;
  const std::vector<std::string>& MetadataKeys() const { return metadata_keys_; }
  // Removes a metadata key (the others keep their order); false if absent.
  bool RemoveMetadata(absl::string_view key);

 private:
  std::vector<std::string> keys_;
  absl::flat_hash_map<std::string, Tensor> tensors_;
  std::vector<std::string> metadata_keys_;
  absl::flat_hash_map<std::string, MetadataValue> metadata_;
};

}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_TENSOR_DICT_H_
