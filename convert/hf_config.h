// config.json of a Hugging Face checkpoint as convert/hf_import.cc and convert/hf_layers.cc
// read it: typed accessors whose errors name the file, the key and the expected value, and the
// ceilings on its sizes. Internal to convert/.
#ifndef EDGEQ_CONVERT_HF_CONFIG_H_
#define EDGEQ_CONVERT_HF_CONFIG_H_

#include <cfloat>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/internal/json_input.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace convert {
namespace internal {

// Ceilings on config.json sizes, far above any released model, checked before anything is
// sized from them; the tensors present bound them further (shapes must match, every declared
// layer must exist).
constexpr int64_t kMaxLayers = 4096;
constexpr int64_t kMaxWidth = int64_t{1} << 20;      // hidden_size, intermediate_size
constexpr int64_t kMaxHeads = 65536;                 // num_attention_heads, head_dim
constexpr int64_t kMaxVocab = int64_t{1} << 21;      // vocab_size (Gemma 3: 262144)
constexpr int64_t kMaxContext = int64_t{1} << 24;    // max_position_embeddings
constexpr int64_t kMaxU32 = (int64_t{1} << 31) - 1;  // other sizes: below 2^31

// config.json accessors: errors name the file and key and the expected value.
class Config {
  using json = nlohmann::json;

 public:
  Config(std::string path, json j) : path_(std::move(path)), j_(std::move(j)) {}

  bool Has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }

  // A positive integer at most `max` (a JSON integer: 64.0, true and "64" are refused).
  absl::StatusOr<int64_t> PositiveInt(const char* key, int64_t max = kMaxU32) const {
    if (!Has(key)) return Missing(key, "a positive integer");
    const json& v = j_[key];
    const bool fits = v.is_number_unsigned() ? v.get<uint64_t>() <= static_cast<uint64_t>(max)
                                             : v.is_number_integer() && v.get<int64_t>() <= max;
    if (!fits || v.get<int64_t>() <= 0) {
      return Bad(key, absl::StrCat("a positive integer at most ", max));
    }
    return v.get<int64_t>();
  }
  absl::StatusOr<int64_t> OptionalPositiveInt(const char* key, int64_t fallback,
                                              int64_t max = kMaxU32) const {
    if (!Has(key)) return fallback;
    return PositiveInt(key, max);
  }
  // An integer in 0..max (a JSON integer).
  absl::StatusOr<int64_t> NonNegativeInt(const char* key, int64_t max) const {
    const std::string expected = absl::StrCat("an integer in 0..", max);
    if (!Has(key)) return Missing(key, expected);
    const json& v = j_[key];
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(max)
                                : v.get<int64_t>() < 0 || v.get<int64_t>() > max)) {
      return Bad(key, expected);
    }
    return v.get<int64_t>();
  }
  absl::StatusOr<double> PositiveFloat(const char* key) const {
    if (!Has(key)) return Missing(key, "a positive number");
    const json& v = j_[key];
    if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() <= FLT_MAX)) {
      return Bad(key, "a positive number (a finite float)");
    }
    return v.get<double>();
  }
  absl::StatusOr<double> PositiveFloat(const char* key, double fallback) const {
    if (!Has(key)) return fallback;
    return PositiveFloat(key);
  }
  // true or false; a string such as "false" is refused rather than read as the fallback.
  absl::StatusOr<bool> Bool(const char* key, bool fallback) const {
    if (!Has(key)) return fallback;
    if (!j_[key].is_boolean()) return Bad(key, "true or false");
    return j_[key].get<bool>();
  }
  const json& raw() const { return j_; }
  const std::string& path() const { return path_; }

  absl::Status Missing(const std::string& key, const std::string& expected) const {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: missing key \"%s\" (expected %s)", path_, key, expected));
  }
  absl::Status Bad(const std::string& key, const std::string& expected) const {
    const std::string shown =
        j_.contains(key) ? checkpoint::internal::JsonForError(j_[key]) : "absent";
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: key \"%s\" is %s, expected %s", path_, key, shown, expected));
  }

 private:
  std::string path_;
  json j_;
};

}  // namespace internal
}  // namespace convert
}  // namespace edgeq

#endif  // EDGEQ_CONVERT_HF_CONFIG_H_
