#include "checkpoint/internal/metadata_codec.h"

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace checkpoint {
namespace internal {

namespace {

using Width = MetadataValue::Width;
using Kind = MetadataValue::Kind;

size_t WidthBytes(Width w) {
  switch (w) {
    case Width::kU8:
    case Width::kI8:
    case Width::kBool:
      return 1;
    case Width::kU16:
    case Width::kI16:
      return 2;
    case Width::kU32:
    case Width::kI32:
    case Width::kF32:
      return 4;
    case Width::kU64:
    case Width::kI64:
    case Width::kF64:
      return 8;
    case Width::kString:
      return 8;  // at least the length prefix
  }
  return 1;
}

void EncodeElement(const MetadataValue& v, size_t i, std::string* out) {
  switch (v.width()) {
    case Width::kU8:
    case Width::kI8:
    case Width::kBool:
      PutU8(out, static_cast<uint8_t>(v.ints()[i]));
      break;
    case Width::kU16:
    case Width::kI16:
      PutU16(out, static_cast<uint16_t>(v.ints()[i]));
      break;
    case Width::kU32:
    case Width::kI32:
      PutU32(out, static_cast<uint32_t>(v.ints()[i]));
      break;
    case Width::kU64:
    case Width::kI64:
      PutU64(out, static_cast<uint64_t>(v.ints()[i]));
      break;
    case Width::kF32:
      PutF32(out, static_cast<float>(v.floats()[i]));
      break;
    case Width::kF64:
      PutF64(out, v.floats()[i]);
      break;
    case Width::kString:
      EncodeString(v.strings()[i], out);
      break;
  }
}

}  // namespace

void EncodeString(absl::string_view s, std::string* out) {
  PutU64(out, s.size());
  out->append(s.data(), s.size());
}

void EncodeValue(const MetadataValue& value, std::string* out) {
  if (value.is_array()) {
    PutU32(out, kArrayType);
    PutU32(out, static_cast<uint32_t>(value.width()));
    PutU64(out, value.size());
  } else {
    PutU32(out, static_cast<uint32_t>(value.width()));
  }
  for (size_t i = 0; i < value.size(); ++i) EncodeElement(value, i, out);
}

absl::StatusOr<std::string> DecodeString(ByteReader* reader, absl::string_view what) {
  EDGEQ_ASSIGN_OR_RETURN(uint64_t n, reader->U64(absl::StrCat(what, " length")));
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view s, reader->Bytes(n, what));
  return std::string(s);
}

absl::StatusOr<MetadataValue> DecodeValue(ByteReader* reader, absl::string_view key) {
  const std::string what = absl::StrCat("metadata ", QuoteForError(key, 128));
  EDGEQ_ASSIGN_OR_RETURN(uint32_t type, reader->U32(what));
  bool is_array = false;
  uint64_t count = 1;
  if (type == kArrayType) {
    is_array = true;
    EDGEQ_ASSIGN_OR_RETURN(type, reader->U32(what));
    if (type == kArrayType) {
      return absl::UnimplementedError(
          absl::StrFormat("%s is an array of arrays, which edgeq does not read", what));
    }
    EDGEQ_ASSIGN_OR_RETURN(count, reader->U64(absl::StrCat(what, " array count")));
  }
  absl::StatusOr<Width> width_or = WidthFromInt(type);
  if (!width_or.ok()) {
    return reader->Error(absl::StrCat(what, ": ", width_or.status().message()));
  }
  const Width width = *width_or;
  // Every element takes at least WidthBytes(width) bytes: bound the count before allocating.
  if (count > reader->remaining() / WidthBytes(width)) {
    return reader->Error(
        absl::StrFormat("%s: %d elements of type %s cannot fit in the %d bytes left", what, count,
                        WidthName(width), reader->remaining()));
  }
  const size_t n = static_cast<size_t>(count);
  switch (width) {
    case Width::kString: {
      std::vector<std::string> v;
      v.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        EDGEQ_ASSIGN_OR_RETURN(std::string s, DecodeString(reader, what));
        v.push_back(std::move(s));
      }
      if (!is_array) return MetadataValue::String(std::move(v[0]));
      return MetadataValue::StringArray(std::move(v));
    }
    case Width::kF32:
    case Width::kF64: {
      std::vector<double> v(n);
      for (size_t i = 0; i < n; ++i) {
        if (width == Width::kF32) {
          EDGEQ_ASSIGN_OR_RETURN(float f, reader->F32(what));
          v[i] = f;
        } else {
          EDGEQ_ASSIGN_OR_RETURN(v[i], reader->F64(what));
        }
      }
      if (!is_array) return MetadataValue::Float(v[0], width);
      return MetadataValue::FloatArray(std::move(v), width);
    }
    case Width::kBool: {
      std::vector<bool> v(n);
      for (size_t i = 0; i < n; ++i) {
        EDGEQ_ASSIGN_OR_RETURN(uint8_t b, reader->U8(what));
        if (b > 1) {
          return reader->Error(absl::StrFormat("%s: bool byte %d is not 0 or 1", what, b));
        }
        v[i] = b != 0;
      }
      if (!is_array) return MetadataValue::Bool(v[0]);
      return MetadataValue::BoolArray(std::move(v));
    }
    default: {
      std::vector<int64_t> v(n);
      for (size_t i = 0; i < n; ++i) {
        switch (width) {
          case Width::kU8: {
            EDGEQ_ASSIGN_OR_RETURN(uint8_t x, reader->U8(what));
            v[i] = x;
            break;
          }
          case Width::kI8: {
            EDGEQ_ASSIGN_OR_RETURN(uint8_t x, reader->U8(what));
            v[i] = static_cast<int8_t>(x);
            break;
          }
          case Width::kU16: {
            EDGEQ_ASSIGN_OR_RETURN(uint16_t x, reader->U16(what));
            v[i] = x;
            break;
          }
          case Width::kI16: {
            EDGEQ_ASSIGN_OR_RETURN(uint16_t x, reader->U16(what));
            v[i] = static_cast<int16_t>(x);
            break;
          }
          case Width::kU32: {
            EDGEQ_ASSIGN_OR_RETURN(uint32_t x, reader->U32(what));
            v[i] = x;
            break;
          }
          case Width::kI32: {
            EDGEQ_ASSIGN_OR_RETURN(uint32_t x, reader->U32(what));
            v[i] = static_cast<int32_t>(x);
            break;
          }
          default: {  // u64, i64
            EDGEQ_ASSIGN_OR_RETURN(uint64_t x, reader->U64(what));
            v[i] = static_cast<int64_t>(x);
            break;
          }
        }
      }
      if (!is_array) return MetadataValue::Int(v[0], width);
      return MetadataValue::IntArray(std::move(v), width);
    }
  }
}

}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq
