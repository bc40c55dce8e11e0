#include "checkpoint/tensor_dict.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace edgeq {
namespace checkpoint {

MetadataValue MetadataValue::Int(int64_t v, Width width) { return IntArray({v}, width).Scalar(); }

MetadataValue MetadataValue::Float(double v, Width width) {
  return FloatArray({v}, width).Scalar();
}

MetadataValue MetadataValue::Bool(bool v) { return BoolArray({v}).Scalar(); }

MetadataValue MetadataValue::String(std::string v) {
  std::vector<std::string> one;
  one.push_back(std::move(v));
  return StringArray(std::move(one)).Scalar();
}

MetadataValue MetadataValue::IntArray(std::vector<int64_t> v, Width width) {
  MetadataValue m;
  m.kind_ = Kind::kInt;
  const bool int_width = width == Width::kU8 || width == Width::kI8 || width == Width::kU16 ||
                         width == Width::kI16 || width == Width::kU32 || width == Width::kI32 ||
                         width == Width::kU64 || width == Width::kI64;
  m.width_ = int_width ? width : Width::kI64;
  m.is_array_ = true;
  m.ints_ = std::move(v);
  return m;
}

MetadataValue MetadataValue::FloatArray(std::vector<double> v, Width width) {
  MetadataValue m;
  m.kind_ = Kind::kFloat;
  m.width_ = width == Width::kF32 ? Width::kF32 : Width::kF64;
  m.is_array_ = true;
  m.ints_.clear();
  m.floats_ = std::move(v);
  if (m.width_ == Width::kF32) {
    for (double& x : m.floats_) x = static_cast<float>(x);  // the value an f32 can hold
  }
  return m;
}

MetadataValue MetadataValue::BoolArray(std::vector<bool> v) {
  MetadataValue m;
  m.kind_ = Kind::kBool;
  m.width_ = Width::kBool;
  m.is_array_ = true;
  m.ints_.assign(v.begin(), v.end());
  return m;
}

MetadataValue MetadataValue::StringArray(std::vector<std::string> v) {
  MetadataValue m;
  m.kind_ = Kind::kString;
  m.width_ = Width::kString;
  m.is_array_ = true;
  m.ints_.clear();
  m.strings_ = std::move(v);
  return m;
}

MetadataValue MetadataValue::Scalar() && {
  is_array_ = false;
  return std::move(*this);
}

size_t MetadataValue::size() const {
  switch (kind_) {
    case Kind::kInt:
    case Kind::kBool:
      return ints_.size();
    case Kind::kFloat:
      return floats_.size();
    case Kind::kString:
      return strings_.size();
  }
  return 0;
}

absl::string_view WidthName(MetadataValue::Width width) {
  using W = MetadataValue::Width;
  switch (width) {
    case W::kU8:
      return "u8";
    case W::kI8:
      return "i8";
    case W::kU16:
      return "u16";
    case W::kI16:
      return "i16";
    case W::kU32:
      return "u32";
    case W::kI32:
      return "i32";
    case W::kF32:
      return "f32";
    case W::kBool:
      return "bool";
    case W::kString:
      return "string";
    case W::kU64:
      return "u64";
    case W::kI64:
      return "i64";
    case W::kF64:
      return "f64";
  }
  return "?";
}

absl::StatusOr<MetadataValue::Width> WidthFromInt(uint32_t value) {
  if (value <= 8 || (value >= 10 && value <= 12)) {
    return static_cast<MetadataValue::Width>(value);
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "metadata value type %u is not one of 0..8 (u8..string) or 10..12 (u64, i64, f64)", value));
}

std::string MetadataValue::TypeName() const {
  if (!is_array_) return std::string(WidthName(width_));
  return absl::StrFormat("%s[%d]", WidthName(width_), size());
}

std::string MetadataValue::DebugString(size_t max_items) const {
  std::vector<std::string> items;
  const size_t n = std::min(size(), is_array_ ? max_items : size_t{1});
  for (size_t i = 0; i < n; ++i) {
    switch (kind_) {
      case Kind::kInt:
        if (width_ == Width::kU64) {
          items.push_back(absl::StrCat(static_cast<uint64_t>(ints_[i])));
        } else {
          items.push_back(absl::StrCat(ints_[i]));
        }
        break;
      case Kind::kBool:
        items.push_back(ints_[i] ? "true" : "false");
        break;
      case Kind::kFloat:
        items.push_back(absl::StrFormat("%g", floats_[i]));
        break;
      case Kind::kString: {
        std::string s = strings_[i];
        if (s.size() > 60) s = s.substr(0, 57) + "...";
        items.push_back(absl::StrCat("\"", s, "\""));
        break;
      }
    }
  }
  if (!is_array_) return items.empty() ? "" : items[0];
  std::string out = absl::StrCat("[", absl::StrJoin(items, ", "));
  if (size() > n) absl::StrAppend(&out, ", ... (", size(), " items)");
  return out + "]";
}

bool operator==(const MetadataValue& a, const MetadataValue& b) {
  if (a.kind_ != b.kind_ || a.width_ != b.width_ || a.is_array_ != b.is_array_) return false;
  if (a.ints_ != b.ints_ || a.strings_ != b.strings_) return false;
  if (a.floats_.size() != b.floats_.size()) return false;
  // Bitwise comparison so that NaN payloads compare equal to themselves.
  return a.floats_.empty() ||
         std::memcmp(a.floats_.data(), b.floats_.data(), a.floats_.size() * sizeof(double)) == 0;
}

absl::Status TensorDict::Set(absl::string_view name, Tensor tensor) {
  if (name.empty()) return absl::InvalidArgumentError("TensorDict::Set: empty tensor name");
  auto it = tensors_.find(name);
  if (it != tensors_.end()) {
    it->second = std::move(tensor);
    return absl::OkStatus();
  }
  keys_.emplace_back(name);
  tensors_.emplace(std::string(name), std::move(tensor));
  return absl::OkStatus();
}

bool TensorDict::Contains(absl::string_view name) const { return tensors_.contains(name); }

absl::StatusOr<const Tensor*> TensorDict::Get(absl::string_view name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) {
    return absl::NotFoundError(
        absl::StrFormat("no tensor named '%s' (the checkpoint has %d tensors)", name, size()));
  }
  return &it->second;
}

absl::StatusOr<const Tensor*> TensorDict::Get(absl::string_view name, DType dtype) const {
  absl::StatusOr<const Tensor*> t = Get(name);
  if (!t.ok()) return t.status();
  if ((*t)->dtype() != dtype) {
    return absl::FailedPreconditionError(
        absl::StrFormat("tensor '%s' has dtype %s, expected %s (%s)", name,
                        DTypeName((*t)->dtype()), DTypeName(dtype), (*t)->DebugString()));
  }
  return t;
}

bool TensorDict::Remove(absl::string_view name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return false;
  tensors_.erase(it);
  keys_.erase(std::find(keys_.begin(), keys_.end(), name));
  return true;
}

uint64_t TensorDict::TotalBytes() const {
  uint64_t total = 0;
  for (const auto& kv : tensors_) total += kv.second.size_bytes();
  return total;
}

void TensorDict::SetMetadata(absl::string_view key, MetadataValue value) {
  auto it = metadata_.find(key);
  if (it != metadata_.end()) {
    it->second = std::move(value);
    return;
  }
  metadata_keys_.emplace_back(key);
  metadata_.emplace(std::string(key), std::move(value));
}

bool TensorDict::RemoveMetadata(absl::string_view key) {
  auto it = metadata_.find(key);
  if (it == metadata_.end()) return false;
  metadata_.erase(it);
  metadata_keys_.erase(std::find(metadata_keys_.begin(), metadata_keys_.end(), key));
  return true;
}

bool TensorDict::HasMetadata(absl::string_view key) const { return metadata_.contains(key); }

absl::StatusOr<const MetadataValue*> TensorDict::GetMetadata(absl::string_view key) const {
  auto it = metadata_.find(key);
  if (it == metadata_.end()) {
    return absl::NotFoundError(absl::StrFormat("no metadata key '%s'", key));
  }
  return &it->second;
}

namespace {
absl::Status WrongKind(absl::string_view key, absl::string_view expected, const MetadataValue& v) {
  return absl::FailedPreconditionError(
      absl::StrFormat("metadata '%s' is %s, expected a scalar %s", key, v.TypeName(), expected));
}
}  // namespace

absl::StatusOr<int64_t> TensorDict::GetInt(absl::string_view key) const {
  absl::StatusOr<const MetadataValue*> v = GetMetadata(key);
  if (!v.ok()) return v.status();
  const MetadataValue& m = **v;
  if (m.is_array() || m.kind() != MetadataValue::Kind::kInt) return WrongKind(key, "integer", m);
  return m.int_value();
}

absl::StatusOr<bool> TensorDict::GetBool(absl::string_view key) const {
  absl::StatusOr<const MetadataValue*> v = GetMetadata(key);
  if (!v.ok()) return v.status();
  const MetadataValue& m = **v;
  if (m.is_array() || m.kind() != MetadataValue::Kind::kBool) return WrongKind(key, "bool", m);
  return m.bool_value();
}

absl::StatusOr<double> TensorDict::GetFloat(absl::string_view key) const {
  absl::StatusOr<const MetadataValue*> v = GetMetadata(key);
  if (!v.ok()) return v.status();
  const MetadataValue& m = **v;
  if (m.is_array()) return WrongKind(key, "float", m);
  if (m.kind() == MetadataValue::Kind::kFloat) return m.float_value();
  if (m.kind() == MetadataValue::Kind::kInt) return static_cast<double>(m.int_value());
  return WrongKind(key, "float", m);
}

absl::StatusOr<std::string> TensorDict::GetString(absl::string_view key) const {
  absl::StatusOr<const MetadataValue*> v = GetMetadata(key);
  if (!v.ok()) return v.status();
  const MetadataValue& m = **v;
  if (m.is_array() || m.kind() != MetadataValue::Kind::kString) {
    return WrongKind(key, "string", m);
  }
  return m.string_value();
}

}  // namespace checkpoint
}  // namespace edgeq
