#include "checkpoint/gguf.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/internal/metadata_codec.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace checkpoint {

namespace {

using internal::AlignUp;
using internal::ByteReader;

constexpr uint32_t kDefaultAlignment = 32;
constexpr uint32_t kMaxAlignment = 1 << 16;
constexpr uint32_t kMaxDims = 4;  // GGML_MAX_DIMS
// Tensor names: llama.cpp allows 63 bytes; ours stay far below this.
constexpr size_t kMaxTensorNameBytes = 1024;

// One GGML tensor type edgeq reads and writes.
struct GgmlType {
  uint32_t id;
  const char* ggml_name;
  DType dtype;           // of the edgeq tensor
  const char* encoding;  // "" for plain tensors
  int64_t elements_per_block;
  int64_t block_size;
};

// The plain types, then one per block format of quantization/block_layout.h (GGML type id,
// name and block sizes come from that table).
constexpr int kNumPlainTypes = 5;
constexpr std::array<GgmlType, kNumPlainTypes + blocks::kNumFormats> MakeTypes() {
  std::array<GgmlType, kNumPlainTypes + blocks::kNumFormats> t = {{
      {0, "F32", DType::kFloat32, "", 1, 4},
      {1, "F16", DType::kFloat16, "", 1, 2},
      {24, "I8", DType::kInt8, "", 1, 1},
      {26, "I32", DType::kInt32, "", 1, 4},
      {27, "I64", DType::kInt64, "", 1, 8},
  }};
  for (int i = 0; i < blocks::kNumFormats; ++i) {
    const blocks::BlockFormat& f = blocks::kBlockFormats[i];
    t[kNumPlainTypes + i] = {f.ggml_type, f.ggml_name,        DType::kUInt8,
                             f.name,      f.values_per_block, f.bytes_per_block};
  }
  return t;
}
constexpr std::array<GgmlType, kNumPlainTypes + blocks::kNumFormats> kTypes = MakeTypes();

// "F32, F16, I8, I32, I64, Q4_0, ..." for error messages.
std::string SupportedTypeNames() {
  std::string s;
  for (const GgmlType& t : kTypes) absl::StrAppend(&s, s.empty() ? "" : ", ", t.ggml_name);
  return s;
}

const char* GgmlTypeName(uint32_t id) {
  static const char* const kNames[] = {
      "F32",     "F16",    "Q4_0",    "Q4_1",  "Q4_2(removed)", "Q4_3(removed)", "Q5_0",  "Q5_1",
      "Q8_0",    "Q8_1",   "Q2_K",    "Q3_K",  "Q4_K",          "Q5_K",          "Q6_K",  "Q8_K",
      "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ1_S", "IQ4_NL",        "IQ3_S",         "IQ2_S", "IQ4_XS",
      "I8",      "I16",    "I32",     "I64",   "F64",           "IQ1_M",         "BF16"};
  if (id < sizeof(kNames) / sizeof(kNames[0])) return kNames[id];
  return "unknown";
}

const GgmlType* FindType(uint32_t id) {
  for (const GgmlType& t : kTypes) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

absl::StatusOr<const GgmlType*> TypeForTensor(const std::string& name, const Tensor& t) {
  if (t.is_quantized()) {
    for (const GgmlType& g : kTypes) {
      if (t.encoding() == g.encoding) {
        if (t.dtype() != DType::kUInt8) break;
        return &g;
      }
    }
    return absl::UnimplementedError(
        absl::StrFormat("tensor '%s': GGUF has no type for encoding '%s' (%s); supported: %s", name,
                        t.encoding(), t.DebugString(), SupportedTypeNames()));
  }
  if (t.dtype() == DType::kBFloat16) {
    return FindType(blocks::GetBlockFormat(blocks::Format::kBf16).ggml_type);
  }
  for (const GgmlType& g : kTypes) {
    if (g.encoding[0] == '\0' && g.dtype == t.dtype()) return &g;
  }
  return absl::UnimplementedError(absl::StrFormat(
      "tensor '%s': GGUF has no type for dtype %s; supported: f32, f16, bf16, i8, i32, i64 and "
      "the quantized encodings",
      name, DTypeName(t.dtype())));
}

absl::StatusOr<uint32_t> AlignmentOf(const TensorDict& dict) {
  if (!dict.HasMetadata(kGgufAlignmentKey)) return kDefaultAlignment;
  absl::StatusOr<int64_t> a = dict.GetInt(kGgufAlignmentKey);
  if (!a.ok()) return a.status();
  if (*a <= 0 || *a > kMaxAlignment || (*a & (*a - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("GGUF %s is %d; expected a power of two from 1 to %d", kGgufAlignmentKey,
                        *a, kMaxAlignment));
  }
  return static_cast<uint32_t>(*a);
}

absl::Status WriteGgufTo(const TensorDict& dict, internal::Sink* sink) {
  EDGEQ_ASSIGN_OR_RETURN(uint32_t alignment, AlignmentOf(dict));
  std::string header("GGUF", 4);
  internal::PutU32(&header, 3);
  internal::PutU64(&header, dict.size());
  internal::PutU64(&header, dict.MetadataKeys().size());
  for (const std::string& key : dict.MetadataKeys()) {
    internal::EncodeString(key, &header);
    internal::EncodeValue(**dict.GetMetadata(key), &header);
  }
  std::vector<uint64_t> offsets;
  uint64_t offset = 0;
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    EDGEQ_ASSIGN_OR_RETURN(const GgmlType* type, TypeForTensor(name, t));
    const Shape& logical = t.logical_shape();
    if (logical.rank() > static_cast<int>(kMaxDims)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor '%s' has rank %d; GGUF allows at most %d dimensions", name,
                          logical.rank(), kMaxDims));
    }
    // The quantized-tensor invariant (the readers check the same at load).
    EDGEQ_RETURN_IF_ERROR(CheckQuantizedTensor(name, t));
    internal::EncodeString(name, &header);
    internal::PutU32(&header, static_cast<uint32_t>(logical.rank()));
    for (int i = logical.rank() - 1; i >= 0; --i) {
      internal::PutU64(&header, static_cast<uint64_t>(logical.dim(i)));
    }
    internal::PutU32(&header, type->id);
    offset = AlignUp(offset, alignment);
    internal::PutU64(&header, offset);
    offsets.push_back(offset);
    offset += t.size_bytes();
  }
  header.resize(AlignUp(header.size(), alignment), '\0');
  EDGEQ_RETURN_IF_ERROR(sink->Write(header));
  uint64_t pos = 0;
  size_t i = 0;
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    EDGEQ_RETURN_IF_ERROR(sink->WriteZeros(offsets[i] - pos));
    EDGEQ_RETURN_IF_ERROR(sink->Write(t.raw_data(), t.size_bytes()));
    pos = offsets[i] + t.size_bytes();
    ++i;
  }
  return absl::OkStatus();
}

// A tensor's entry in the GGUF header.
struct TensorInfo {
  std::string name;
  const GgmlType* type;
  Shape logical;
  Shape physical;
  uint64_t offset;
  uint64_t bytes;
};

// Reads tensor info #i (name, dimensions, type, offset) at r's position and checks it.
absl::StatusOr<TensorInfo> ReadTensorInfo(ByteReader& r, uint64_t i, uint32_t alignment) {
  TensorInfo info;
  EDGEQ_ASSIGN_OR_RETURN(info.name,
                         internal::DecodeString(&r, absl::StrFormat("tensor #%d name", i)));
  const std::string tw = absl::StrCat("tensor ", QuoteForError(info.name, 128));
  if (info.name.empty()) return r.Error(absl::StrFormat("tensor #%d has an empty name", i));
  if (info.name.size() > kMaxTensorNameBytes) {  // llama.cpp's limit is 63
    return r.Error(absl::StrFormat("%s: a name of %d bytes; expected at most %d", tw,
                                   info.name.size(), kMaxTensorNameBytes));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint32_t n_dims, r.U32(tw + " n_dims"));
  if (n_dims > kMaxDims) {
    return r.Error(
        absl::StrFormat("%s has %d dimensions; GGUF allows at most %d", tw, n_dims, kMaxDims));
  }
  std::vector<int64_t> dims(n_dims);
  for (uint32_t d = 0; d < n_dims; ++d) {
    EDGEQ_ASSIGN_OR_RETURN(uint64_t v, r.U64(tw + " dims"));
    if (v > static_cast<uint64_t>(Shape::kMaxElements)) {
      return r.Error(absl::StrFormat("%s: dims[%d] = %d is above the limit %d", tw, d, v,
                                     Shape::kMaxElements));
    }
    dims[n_dims - 1 - d] = static_cast<int64_t>(v);  // edgeq order: outermost first
  }
  absl::StatusOr<Shape> logical = Shape::Create(dims);
  if (!logical.ok()) return r.Error(absl::StrCat(tw, ": ", logical.status().message()));
  info.logical = *logical;
  EDGEQ_ASSIGN_OR_RETURN(uint32_t type_id, r.U32(tw + " type"));
  EDGEQ_ASSIGN_OR_RETURN(info.offset, r.U64(tw + " offset"));
  info.type = FindType(type_id);
  if (info.type == nullptr) {
    return absl::UnimplementedError(
        absl::StrFormat("GGUF: %s has GGML type %s (%d), which edgeq does not read (supported: %s)",
                        tw, GgmlTypeName(type_id), type_id, SupportedTypeNames()));
  }
  const int64_t epb = info.type->elements_per_block;
  if (info.type->encoding[0] != '\0') {
    if (n_dims == 0 || info.logical.dim(-1) % epb != 0) {
      return r.Error(
          absl::StrFormat("%s: %s needs a row length that is a multiple of %d, got shape %s", tw,
                          info.type->ggml_name, epb, info.logical.ToString()));
    }
    info.physical = info.logical.WithLastDim(info.logical.dim(-1) / epb * info.type->block_size);
  } else {
    info.physical = info.logical;
  }
  // Shape::Create bounded the element count by 2^48, so this cannot overflow.
  info.bytes = static_cast<uint64_t>(info.physical.num_elements()) * DTypeSize(info.type->dtype);
  if (info.offset % alignment != 0) {
    return r.Error(absl::StrFormat("%s: offset %d is not a multiple of the alignment %d", tw,
                                   info.offset, alignment));
  }
  return info;
}

}  // namespace

absl::StatusOr<TensorDict> ReadGgufFromBuffer(absl::Span<const uint8_t> data,
                                              std::shared_ptr<const void> owner) {
  ByteReader r(data, "GGUF");
  if (data.size() < 4 || std::memcmp(data.data(), "GGUF", 4) != 0) {
    return r.Error("not a GGUF file (it does not start with \"GGUF\")");
  }
  EDGEQ_RETURN_IF_ERROR(r.Skip(4, "magic"));
  EDGEQ_ASSIGN_OR_RETURN(uint32_t version, r.U32("version"));
  if (version == 1) {
    return absl::UnimplementedError(
        "GGUF version 1 (32-bit counts, from before August 2023) is not supported; edgeq reads "
        "versions 2 and 3: re-convert the model with a current llama.cpp");
  }
  if (version != 2 && version != 3) {
    if ((version & 0xFFFF) == 0 && version != 0) {
      return r.Error(absl::StrFormat(
          "version field 0x%08x looks byte-swapped: big-endian GGUF files are not supported",
          version));
    }
    return absl::UnimplementedError(absl::StrFormat(
        "GGUF version %d is not supported (edgeq reads versions 2 and 3)", version));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint64_t tensor_count, r.U64("tensor count"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t kv_count, r.U64("metadata count"));
  // A key/value takes at least 8 (key length) + 4 (type) + 1 bytes, a tensor info at least
  // 8 + 4 + 4 + 8: bound the counts by the file size before reserving anything.
  if (kv_count > r.remaining() / 13 || tensor_count > r.remaining() / 24) {
    return r.Error(absl::StrFormat(
        "%d tensors and %d metadata entries cannot fit in the %d bytes after the header",
        tensor_count, kv_count, r.remaining()));
  }
  TensorDict dict;
  for (uint64_t i = 0; i < kv_count; ++i) {
    EDGEQ_ASSIGN_OR_RETURN(std::string key,
                           internal::DecodeString(&r, absl::StrFormat("metadata key #%d", i)));
    if (dict.HasMetadata(key)) {
      return r.Error(absl::StrFormat("duplicate metadata key %s", QuoteForError(key, 128)));
    }
    EDGEQ_ASSIGN_OR_RETURN(MetadataValue value, internal::DecodeValue(&r, key));
    dict.SetMetadata(key, std::move(value));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint32_t alignment, AlignmentOf(dict));

  std::vector<TensorInfo> infos;
  infos.reserve(static_cast<size_t>(tensor_count));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    EDGEQ_ASSIGN_OR_RETURN(TensorInfo info, ReadTensorInfo(r, i, alignment));
    infos.push_back(std::move(info));
  }
  const uint64_t data_start = AlignUp(r.pos(), alignment);
  // A file without tensors (llama.cpp's vocabulary-only GGUFs) may end right after its
  // metadata, before the alignment padding.
  if (data_start > data.size() && !infos.empty()) {
    return r.Error(
        absl::StrFormat("truncated: the data section would start at byte %d, the "
                        "file has %d bytes",
                        data_start, data.size()));
  }
  const uint64_t data_size = data_start > data.size() ? 0 : data.size() - data_start;
  std::vector<const TensorInfo*> by_offset;
  for (const TensorInfo& info : infos) {
    if (info.offset > data_size || info.bytes > data_size - info.offset) {
      return r.Error(absl::StrFormat(
          "tensor %s (%s%s, %d bytes at data offset %d) runs past the end of the file "
          "(%d bytes of data): truncated?",
          QuoteForError(info.name, 128), info.type->ggml_name, info.logical.ToString(), info.bytes,
          info.offset, data_size));
    }
    if (dict.Contains(info.name)) {
      return r.Error(absl::StrFormat("duplicate tensor name %s", QuoteForError(info.name, 128)));
    }
    EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::View(info.type->dtype, info.physical,
                                                  data.data() + data_start + info.offset,
                                                  static_cast<size_t>(info.bytes), owner));
    if (info.type->encoding[0] != '\0') {
      t.SetQuantization(info.type->encoding, info.logical);
      if (absl::Status s = CheckQuantizedTensor(info.name, t); !s.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("GGUF: ", s.message()));
      }
    }
    EDGEQ_RETURN_IF_ERROR(dict.Set(info.name, std::move(t)));
    if (info.bytes > 0) by_offset.push_back(&info);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->offset < by_offset[i - 1]->offset + by_offset[i - 1]->bytes) {
      return r.Error(absl::StrFormat("tensors %s and %s overlap",
                                     QuoteForError(by_offset[i - 1]->name, 128),
                                     QuoteForError(by_offset[i]->name, 128)));
    }
  }
  return dict;
}

absl::StatusOr<TensorDict> ReadGguf(const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  absl::StatusOr<TensorDict> dict = ReadGgufFromBuffer(file->span(), file);
  if (!dict.ok()) {
    return absl::Status(dict.status().code(), absl::StrCat(path, ": ", dict.status().message()));
  }
  return dict;
}

absl::StatusOr<std::string> WriteGgufToString(const TensorDict& dict) {
  std::string out;
  internal::StringSink sink(&out);
  EDGEQ_RETURN_IF_ERROR(WriteGgufTo(dict, &sink));
  return out;
}

absl::Status WriteGguf(const TensorDict& dict, const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<internal::AtomicFileWriter> writer,
                         internal::AtomicFileWriter::Create(path));
  EDGEQ_RETURN_IF_ERROR(WriteGgufTo(dict, writer.get()));
  return writer->Commit();
}

}  // namespace checkpoint
}  // namespace edgeq
