#include "checkpoint/safetensors.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/internal/json_input.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "nlohmann/json.hpp"
#include "quantization/encoding.h"

namespace edgeq {
namespace checkpoint {

namespace {

using json = nlohmann::json;

// The reference implementation allows 100 MB; a parsed header takes about 20 times its text in
// memory, so edgeq allows 2 MiB (about 30,000 tensors of one file; shards hold far fewer), which
// keeps refusing any crafted header under 64 MiB.
constexpr uint64_t kMaxHeader = uint64_t{2} << 20;
// {"name": {"shape": [..]}}: nothing in a header nests deeper.
constexpr int kMaxHeaderDepth = 3;

struct StDType {
  const char* name;
  DType dtype;
  const char* encoding;
  size_t element_size;
};
constexpr StDType kDTypes[] = {
    {"F32", DType::kFloat32, "", 4},    {"F16", DType::kFloat16, "", 2},
    {"BF16", DType::kUInt8, "bf16", 2}, {"I8", DType::kInt8, "", 1},
    {"U8", DType::kUInt8, "", 1},       {"I32", DType::kInt32, "", 4},
    {"I64", DType::kInt64, "", 8},
};

absl::Status Bad(absl::string_view msg) {
  return absl::InvalidArgumentError(absl::StrCat("safetensors: ", msg));
}

absl::Status WriteTo(const TensorDict& dict, internal::Sink* sink) {
  json header = json::object();
  uint64_t offset = 0;
  std::vector<const Tensor*> tensors;
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    const StDType* st = nullptr;
    for (const StDType& d : kDTypes) {
      if (t.is_quantized() ? t.encoding() == d.encoding
                           : (d.encoding[0] == '\0' && d.dtype == t.dtype())) {
        st = &d;
      }
    }
    if (!t.is_quantized() && t.dtype() == DType::kBFloat16) st = &kDTypes[2];
    if (st == nullptr) {
      return absl::UnimplementedError(absl::StrFormat(
          "safetensors: tensor '%s' (%s) has no safetensors dtype (supported: f32, f16, bf16, "
          "i8, u8, i32, i64)",
          name, t.DebugString()));
    }
    if (name == "__metadata__") return Bad("a tensor cannot be named __metadata__");
    json entry;
    entry["dtype"] = st->name;
    entry["shape"] = t.logical_shape().dims();
    entry["data_offsets"] = {offset, offset + t.size_bytes()};
    header[name] = std::move(entry);
    offset += t.size_bytes();
    tensors.push_back(&t);
  }
  if (!dict.MetadataKeys().empty()) {
    json meta = json::object();
    for (const std::string& key : dict.MetadataKeys()) {
      const MetadataValue& v = **dict.GetMetadata(key);
      meta[key] = (v.kind() == MetadataValue::Kind::kString && !v.is_array())
                      ? v.string_value()
                      : v.DebugString(static_cast<size_t>(-1));
    }
    header["__metadata__"] = std::move(meta);
  }
  std::string text = header.dump(-1, ' ', false, json::error_handler_t::replace);
  text.resize((text.size() + 7) / 8 * 8, ' ');  // keeps the data 8-byte aligned
  std::string prefix;
  internal::PutU64(&prefix, text.size());
  EDGEQ_RETURN_IF_ERROR(sink->Write(prefix));
  EDGEQ_RETURN_IF_ERROR(sink->Write(text));
  for (const Tensor* t : tensors)
    EDGEQ_RETURN_IF_ERROR(sink->Write(t->raw_data(), t->size_bytes()));
  return absl::OkStatus();
}

// A tensor entry of the header: dtype, logical shape and data offsets.
struct Entry {
  const StDType* st;
  Shape shape;
  uint64_t begin, end;
};

// Reads and checks the "dtype", "shape" and "data_offsets" of tensor entry `e` (`tw`: "tensor
// 'name'" for errors).
absl::StatusOr<Entry> ReadEntry(const json& e, const std::string& tw) {
  auto dt = e.find("dtype");
  auto sh = e.find("shape");
  auto off = e.find("data_offsets");
  if (dt == e.end() || !dt->is_string() || sh == e.end() || !sh->is_array() || off == e.end() ||
      !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned()) {
    return Bad(tw +
               " needs \"dtype\" (string), \"shape\" (array) and \"data_offsets\" "
               "([begin, end], unsigned)");
  }
  const std::string dtype_name = dt->get<std::string>();
  const StDType* st = nullptr;
  for (const StDType& d : kDTypes) {
    if (dtype_name == d.name) st = &d;
  }
  if (st == nullptr) {
    return absl::UnimplementedError(absl::StrFormat(
        "safetensors: %s has dtype %s, which edgeq does not read (supported: F32, F16, BF16, "
        "I8, U8, I32, I64)",
        tw, QuoteForError(dtype_name)));
  }
  if (sh->size() > static_cast<size_t>(Shape::kMaxRank)) {
    return Bad(absl::StrFormat("%s has rank %d, above %d", tw, sh->size(), Shape::kMaxRank));
  }
  std::vector<int64_t> dims;
  for (const json& d : *sh) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > uint64_t{Shape::kMaxElements}) {
      return Bad(absl::StrFormat("%s: shape dimension %s is not an integer in 0..2^48", tw,
                                 internal::JsonForError(d)));
    }
    dims.push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  absl::StatusOr<Shape> shape = Shape::Create(dims);
  if (!shape.ok()) return Bad(absl::StrCat(tw, ": ", shape.status().message()));
  const uint64_t begin = (*off)[0].get<uint64_t>(), end = (*off)[1].get<uint64_t>();
  return Entry{st, *std::move(shape), begin, end};
}

}  // namespace

absl::StatusOr<TensorDict> ReadSafetensorsFromBuffer(absl::Span<const uint8_t> data,
                                                     std::shared_ptr<const void> owner) {
  internal::ByteReader r(data, "safetensors");
  EDGEQ_ASSIGN_OR_RETURN(uint64_t n, r.U64("header length"));
  if (n > kMaxHeader) {
    return r.Error(absl::StrFormat("header length %d is above the limit %d", n, kMaxHeader));
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view text, r.Bytes(n, "JSON header"));
  // Depth-checked before parsing; a key given twice (a tensor, or a field of one) is refused
  // instead of the last one winning. Arrays (shapes, data_offsets) hold at most kMaxRank
  // elements: checked before any value is built, so a header of one endless array costs no
  // memory.
  absl::StatusOr<json> parsed =
      internal::ParseJsonBounded(text, "JSON header", kMaxHeaderDepth, nullptr, Shape::kMaxRank);
  if (!parsed.ok()) {
    if (absl::StrContains(parsed.status().message(), "an array has more than")) {
      return Bad(
          absl::StrFormat("an array in the JSON header has more than %d elements (a shape "
                          "has at most %d dimensions, data_offsets 2)",
                          Shape::kMaxRank, Shape::kMaxRank));
    }
    return Bad(parsed.status().message());
  }
  const json header = *std::move(parsed);
  if (!header.is_object()) return Bad("the header is not a JSON object");
  const uint8_t* base = data.data() + r.pos();
  const uint64_t data_size = r.remaining();

  TensorDict dict;
  struct Range {
    uint64_t begin, end;
    std::string name;
  };
  std::vector<Range> ranges;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const std::string& name = it.key();
    const json& e = it.value();
    if (name == "__metadata__") {
      if (!e.is_object()) return Bad("__metadata__ is not an object");
      for (auto m = e.begin(); m != e.end(); ++m) {
        if (!m.value().is_string()) {
          return Bad(
              absl::StrFormat("__metadata__ %s is not a string", QuoteForError(m.key(), 128)));
        }
        dict.SetMetadata(m.key(), MetadataValue::String(m.value().get<std::string>()));
      }
      continue;
    }
    const std::string tw = absl::StrCat("tensor ", QuoteForError(name, 128));
    if (name.empty()) return Bad("a tensor has an empty name");
    if (!e.is_object()) return Bad(tw + " is not an object");
    EDGEQ_ASSIGN_OR_RETURN(const Entry entry, ReadEntry(e, tw));
    const StDType* st = entry.st;
    const Shape* shape = &entry.shape;
    const std::string dtype_name = st->name;
    const uint64_t begin = entry.begin, end = entry.end;
    const uint64_t bytes = static_cast<uint64_t>(shape->num_elements()) * st->element_size;
    if (begin > end || end > data_size) {
      return Bad(
          absl::StrFormat("%s: data_offsets [%d, %d] are outside the %d data bytes "
                          "(truncated file?)",
                          tw, begin, end, data_size));
    }
    if (end - begin != bytes) {
      return Bad(absl::StrFormat("%s: data_offsets [%d, %d] hold %d bytes, but %s%s needs %d", tw,
                                 begin, end, end - begin, dtype_name, shape->ToString(), bytes));
    }
    Shape physical = *shape;
    if (st->encoding[0] != '\0') {
      if (physical.rank() == 0) return Bad(tw + ": a BF16 scalar is not supported");
      physical = physical.WithLastDim(physical.dim(-1) * 2);
    }
    const uint8_t* p = base + begin;
    Tensor t;
    if (reinterpret_cast<uintptr_t>(p) % st->element_size != 0) {
      EDGEQ_ASSIGN_OR_RETURN(t, Tensor::Create(st->dtype, physical));
      if (bytes > 0) std::memcpy(t.raw_mutable_data(), p, bytes);
    } else {
      EDGEQ_ASSIGN_OR_RETURN(t, Tensor::View(st->dtype, physical, p, bytes, owner));
    }
    if (st->encoding[0] != '\0') {
      t.SetQuantization(st->encoding, *shape);
      if (absl::Status s = CheckQuantizedTensor(name, t); !s.ok()) {
        return Bad(s.message());
      }
    }
    EDGEQ_RETURN_IF_ERROR(dict.Set(name, std::move(t)));
    if (bytes > 0) ranges.push_back({begin, end, name});
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].begin < ranges[i - 1].end) {
      return Bad(absl::StrFormat("tensors %s and %s overlap",
                                 QuoteForError(ranges[i - 1].name, 128),
                                 QuoteForError(ranges[i].name, 128)));
    }
  }
  return dict;
}

absl::StatusOr<TensorDict> ReadSafetensors(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  absl::StatusOr<TensorDict> dict = ReadSafetensorsFromBuffer(file->span(), file);
  if (!dict.ok()) {
    return absl::Status(dict.status().code(), absl::StrCat(path, ": ", dict.status().message()));
  }
  return dict;
}

absl::StatusOr<std::string> WriteSafetensorsToString(const TensorDict& dict) {
  std::string out;
  internal::StringSink sink(&out);
  EDGEQ_RETURN_IF_ERROR(WriteTo(dict, &sink));
  return out;
}

absl::Status WriteSafetensors(const TensorDict& dict, const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<internal::AtomicFileWriter> writer,
                         internal::AtomicFileWriter::Create(path));
  EDGEQ_RETURN_IF_ERROR(WriteTo(dict, writer.get()));
  return writer->Commit();
}

}  // namespace checkpoint
}  // namespace edgeq
