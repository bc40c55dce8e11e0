#include "checkpoint/max_format.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/internal/metadata_codec.h"
#include "checkpoint/stored_layouts.h"
#include "core/status_macros.h"
#include "quantization/encoding.h"
#include "xxhash.h"

namespace edgeq {
namespace checkpoint {

namespace {

using internal::AlignUp;
using internal::ByteReader;
using internal::PutU32;
using internal::PutU64;
using internal::PutU8;

constexpr size_t kHeaderSize = 64;
constexpr size_t kChecksumOffset = 56;  // the last 8 bytes of the header
// Smallest possible tensor entry: name length, 4 type bytes, encoding length, offset, length,
// checksum.
constexpr uint64_t kMinTensorEntry = 4 + 4 + 4 + 8 + 8 + 8;
constexpr uint64_t kMinMetadataEntry = 4 + 4;
constexpr uint32_t kMaxNameLength = 1 << 16;

uint64_t TableChecksum(const uint8_t* header, absl::string_view table) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header, kChecksumOffset);
  XXH3_64bits_update(&state, table.data(), table.size());
  return XXH3_64bits_digest(&state);
}

struct Entry {
  const std::string* name;
  const Tensor* tensor;
  uint64_t offset;
  uint64_t checksum;
};

absl::Status WriteMax(const TensorDict& dict, bool check_quantized, internal::Sink* sink) {
  std::vector<Entry> entries;
  // Stored layouts (stored_layouts.h) are written back as Load read them: all their bytes, u8.
  std::vector<Tensor> stored;
  stored.reserve(dict.size());
  uint64_t data_size = 0;
  for (const std::string& name : dict.Keys()) {
    const Tensor* t = *dict.Get(name);
    if (std::optional<Tensor> s = StoredLayoutBytes(dict, name, *t)) {
      stored.push_back(*std::move(s));
      t = &stored.back();
    }
    if (name.size() > kMaxNameLength) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor name '%s...' is longer than %d bytes", name.substr(0, 40), kMaxNameLength));
    }
    // A quantized tensor whose bytes do not match its encoding and logical shape is not written:
    // every reader would refuse the file.
    if (check_quantized) EDGEQ_RETURN_IF_ERROR(CheckQuantizedTensor(name, *t));
    data_size = AlignUp(data_size, kMaxDataAlignment);
    entries.push_back({&name, t, data_size, XXH3_64bits(t->raw_data(), t->size_bytes())});
    data_size += t->size_bytes();
  }

  std::string table;
  for (const Entry& e : entries) {
    const Tensor& t = *e.tensor;
    PutU32(&table, static_cast<uint32_t>(e.name->size()));
    table += *e.name;
    PutU8(&table, static_cast<uint8_t>(t.dtype()));
    PutU8(&table, static_cast<uint8_t>(t.rank()));
    PutU8(&table, static_cast<uint8_t>(t.is_quantized() ? t.logical_shape().rank() : 0));
    PutU8(&table, 0);
    PutU32(&table, static_cast<uint32_t>(t.encoding().size()));
    table += t.encoding();
    for (int64_t d : t.shape().dims()) PutU64(&table, static_cast<uint64_t>(d));
    if (t.is_quantized()) {
      for (int64_t d : t.logical_shape().dims()) PutU64(&table, static_cast<uint64_t>(d));
    }
    PutU64(&table, e.offset);
    PutU64(&table, t.size_bytes());
    PutU64(&table, e.checksum);
  }
  for (const std::string& key : dict.MetadataKeys()) {
    PutU32(&table, static_cast<uint32_t>(key.size()));
    table += key;
    internal::EncodeValue(**dict.GetMetadata(key), &table);
  }

  const uint64_t data_offset = AlignUp(kHeaderSize + table.size(), kMaxDataAlignment);
  std::string header;
  header.append(kMaxMagic, sizeof(kMaxMagic));
  PutU32(&header, kMaxFormatVersion);
  PutU32(&header, 0);  // flags
  PutU64(&header, entries.size());
  PutU64(&header, dict.MetadataKeys().size());
  PutU64(&header, table.size());
  PutU64(&header, data_offset);
  PutU64(&header, data_size);
  PutU64(&header, TableChecksum(reinterpret_cast<const uint8_t*>(header.data()), table));

  EDGEQ_RETURN_IF_ERROR(sink->Write(header));
  EDGEQ_RETURN_IF_ERROR(sink->Write(table));
  EDGEQ_RETURN_IF_ERROR(sink->WriteZeros(data_offset - kHeaderSize - table.size()));
  uint64_t pos = 0;
  for (const Entry& e : entries) {
    EDGEQ_RETURN_IF_ERROR(sink->WriteZeros(e.offset - pos));
    EDGEQ_RETURN_IF_ERROR(sink->Write(e.tensor->raw_data(), e.tensor->size_bytes()));
    pos = e.offset + e.tensor->size_bytes();
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> ReadShape(ByteReader* r, int rank, absl::string_view what) {
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    EDGEQ_ASSIGN_OR_RETURN(uint64_t d, r->U64(what));
    if (d > static_cast<uint64_t>(Shape::kMaxElements)) {
      return r->Error(absl::StrFormat("%s: dimension %d is %d, above the limit %d", what, i, d,
                                      Shape::kMaxElements));
    }
    dims[i] = static_cast<int64_t>(d);
  }
  absl::StatusOr<Shape> shape = Shape::Create(dims);
  if (!shape.ok()) return r->Error(absl::StrCat(what, ": ", shape.status().message()));
  return shape;
}

}  // namespace

absl::StatusOr<std::string> SaveToString(const TensorDict& dict) {
  std::string out;
  internal::StringSink sink(&out);
  EDGEQ_RETURN_IF_ERROR(WriteMax(dict, /*check_quantized=*/true, &sink));
  return out;
}

namespace internal {
absl::StatusOr<std::string> SaveToStringUnchecked(const TensorDict& dict) {
  std::string out;
  StringSink sink(&out);
  EDGEQ_RETURN_IF_ERROR(WriteMax(dict, /*check_quantized=*/false, &sink));
  return out;
}
}  // namespace internal

absl::Status Save(const TensorDict& dict, const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<internal::AtomicFileWriter> writer,
                         internal::AtomicFileWriter::Create(path));
  EDGEQ_RETURN_IF_ERROR(WriteMax(dict, /*check_quantized=*/true, writer.get()));
  return writer->Commit();
}

namespace {

// A tensor's bytes in the data section (the overlap check).
struct Range {
  uint64_t begin, end;
  std::string name;
};

// Reads tensor entry #i of the table at t's position, checks it against the data section
// (`base`, `data_size` bytes) and adds the tensor (a view owned by `owner`) to `dict`.
absl::Status ReadTensorEntry(ByteReader& t, uint64_t i, const uint8_t* base, uint64_t data_size,
                             const std::shared_ptr<const void>& owner, const LoadOptions& options,
                             TensorDict* dict, std::vector<Range>* ranges) {
  const std::string what = absl::StrFormat("tensor #%d", i);
  EDGEQ_ASSIGN_OR_RETURN(uint32_t name_len, t.U32(what));
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view name, t.Bytes(name_len, what + " name"));
  if (name.empty()) return t.Error(what + " has an empty name");
  const std::string tw = absl::StrCat("tensor '", name, "'");
  EDGEQ_ASSIGN_OR_RETURN(uint8_t dtype_raw, t.U8(tw));
  EDGEQ_ASSIGN_OR_RETURN(uint8_t rank, t.U8(tw));
  EDGEQ_ASSIGN_OR_RETURN(uint8_t logical_rank, t.U8(tw));
  EDGEQ_ASSIGN_OR_RETURN(uint8_t reserved, t.U8(tw));
  absl::StatusOr<DType> dtype = DTypeFromInt(dtype_raw);
  if (!dtype.ok()) return t.Error(absl::StrCat(tw, ": ", dtype.status().message()));
  if (rank > Shape::kMaxRank || logical_rank > Shape::kMaxRank || reserved != 0) {
    return t.Error(absl::StrFormat("%s: rank %d / logical rank %d above %d, or reserved byte %d",
                                   tw, rank, logical_rank, Shape::kMaxRank, reserved));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint32_t enc_len, t.U32(tw));
  EDGEQ_ASSIGN_OR_RETURN(absl::string_view encoding, t.Bytes(enc_len, tw + " encoding"));
  if (encoding.empty() != (logical_rank == 0)) {
    return t.Error(
        absl::StrFormat("%s: encoding '%s' with logical rank %d (a quantized tensor needs both)",
                        tw, encoding, logical_rank));
  }
  EDGEQ_ASSIGN_OR_RETURN(Shape shape, ReadShape(&t, rank, tw + " shape"));
  Shape logical;
  if (logical_rank > 0) {
    EDGEQ_ASSIGN_OR_RETURN(logical, ReadShape(&t, logical_rank, tw + " logical shape"));
  }
  EDGEQ_ASSIGN_OR_RETURN(uint64_t offset, t.U64(tw + " offset"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t length, t.U64(tw + " length"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t sum, t.U64(tw + " checksum"));
  const uint64_t expected = static_cast<uint64_t>(shape.num_elements()) * DTypeSize(*dtype);
  if (length != expected) {
    return t.Error(absl::StrFormat("%s: length %d does not match %s%s (%d bytes)", tw, length,
                                   DTypeName(*dtype), shape.ToString(), expected));
  }
  if (offset % kMaxDataAlignment != 0) {
    return t.Error(absl::StrFormat("%s: data offset %d is not a multiple of %d", tw, offset,
                                   kMaxDataAlignment));
  }
  if (offset > data_size || length > data_size - offset) {
    return t.Error(
        absl::StrFormat("%s: bytes [%d, +%d) run past the end of the data section (%d bytes)", tw,
                        offset, length, data_size));
  }
  if (dict->Contains(name)) return t.Error(absl::StrFormat("duplicate tensor name '%s'", name));
  if (options.verify_data) {
    const uint64_t got = XXH3_64bits(base + offset, static_cast<size_t>(length));
    if (got != sum) {
      return absl::DataLossError(absl::StrFormat(
          ".max: %s: data checksum mismatch (stored %016x, computed %016x)", tw, sum, got));
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(Tensor tensor, Tensor::View(*dtype, shape, base + offset,
                                                     static_cast<size_t>(length), owner));
  if (!encoding.empty()) {
    tensor.SetQuantization(std::string(encoding), logical);
    if (absl::Status s = CheckQuantizedTensor(name, tensor); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(".max: ", s.message()));
    }
  }
  ranges->push_back({offset, offset + length, std::string(name)});
  return dict->Set(name, std::move(tensor));
}

}  // namespace

absl::StatusOr<TensorDict> LoadFromBuffer(absl::Span<const uint8_t> data,
                                          std::shared_ptr<const void> owner,
                                          const LoadOptions& options) {
  ByteReader r(data, ".max");
  if (data.size() < sizeof(kMaxMagic) ||
      std::memcmp(data.data(), kMaxMagic, sizeof(kMaxMagic)) != 0) {
    return r.Error("not an edgeq checkpoint (the file does not start with \"EDGEQMAX\")");
  }
  EDGEQ_RETURN_IF_ERROR(r.Need(kHeaderSize, "header"));
  EDGEQ_RETURN_IF_ERROR(r.Skip(sizeof(kMaxMagic), "magic"));
  EDGEQ_ASSIGN_OR_RETURN(uint32_t version, r.U32("version"));
  if (version > kMaxFormatVersion) {
    return absl::FailedPreconditionError(absl::StrFormat(
        ".max: format version %d is newer than this edgeq reads (up to %d); use a newer edgeq",
        version, kMaxFormatVersion));
  }
  if (version == 0) return r.Error("format version 0 is not valid (versions start at 1)");
  EDGEQ_ASSIGN_OR_RETURN(uint32_t flags, r.U32("flags"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t tensor_count, r.U64("tensor count"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t metadata_count, r.U64("metadata count"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t table_size, r.U64("table size"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t data_offset, r.U64("data offset"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t data_size, r.U64("data size"));
  EDGEQ_ASSIGN_OR_RETURN(uint64_t checksum, r.U64("header checksum"));

  // The table must lie inside the file before it is hashed.
  if (table_size > data.size() - kHeaderSize) {
    return r.Error(absl::StrFormat(
        "truncated: the tensor table needs %d bytes after the header, the file has %d", table_size,
        data.size() - kHeaderSize));
  }
  const absl::string_view table(reinterpret_cast<const char*>(data.data() + kHeaderSize),
                                static_cast<size_t>(table_size));
  const uint64_t actual = TableChecksum(data.data(), table);
  if (actual != checksum) {
    return absl::DataLossError(absl::StrFormat(
        ".max: header/table checksum mismatch (stored %016x, computed %016x): the file is "
        "corrupt",
        checksum, actual));
  }
  if (flags != 0) return r.Error(absl::StrFormat("unknown flags 0x%x (expected 0)", flags));
  if (data_offset != AlignUp(kHeaderSize + table_size, kMaxDataAlignment)) {
    return r.Error(absl::StrFormat("data offset %d is not the 64-aligned end of the table (%d)",
                                   data_offset,
                                   AlignUp(kHeaderSize + table_size, kMaxDataAlignment)));
  }
  if (data_offset > data.size() || data_size != data.size() - data_offset) {
    return r.Error(absl::StrFormat(
        "truncated or padded: header says %d bytes of data at offset %d, the file has %d bytes",
        data_size, data_offset, data.size()));
  }
  if (tensor_count > table_size / kMinTensorEntry ||
      metadata_count > table_size / kMinMetadataEntry) {
    return r.Error(
        absl::StrFormat("%d tensors and %d metadata entries cannot fit in a %d-byte table",
                        tensor_count, metadata_count, table_size));
  }

  ByteReader t(absl::MakeConstSpan(data.data(), kHeaderSize + table_size), ".max tensor table");
  EDGEQ_RETURN_IF_ERROR(t.Seek(kHeaderSize, "table"));
  const uint8_t* base = data.data() + data_offset;
  TensorDict dict;
  std::vector<Range> ranges;
  ranges.reserve(static_cast<size_t>(tensor_count));
  for (uint64_t i = 0; i < tensor_count; ++i) {
    EDGEQ_RETURN_IF_ERROR(ReadTensorEntry(t, i, base, data_size, owner, options, &dict, &ranges));
  }
  // Overlapping tensors (empty ones occupy no bytes).
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin < b.begin; });
  uint64_t end = 0;
  const std::string* prev = nullptr;
  for (const Range& rg : ranges) {
    if (rg.begin == rg.end) continue;
    if (prev != nullptr && rg.begin < end) {
      return t.Error(absl::StrFormat("tensors '%s' and '%s' overlap", *prev, rg.name));
    }
    end = rg.end;
    prev = &rg.name;
  }
  for (uint64_t i = 0; i < metadata_count; ++i) {
    const std::string what = absl::StrFormat("metadata #%d", i);
    EDGEQ_ASSIGN_OR_RETURN(uint32_t key_len, t.U32(what));
    EDGEQ_ASSIGN_OR_RETURN(absl::string_view key, t.Bytes(key_len, what + " key"));
    if (key.empty()) return t.Error(what + " has an empty key");
    if (dict.HasMetadata(key)) return t.Error(absl::StrFormat("duplicate metadata key '%s'", key));
    EDGEQ_ASSIGN_OR_RETURN(MetadataValue value, internal::DecodeValue(&t, key));
    dict.SetMetadata(key, std::move(value));
  }
  if (t.remaining() != 0) {
    return t.Error(absl::StrFormat("%d unexpected bytes at the end of the table", t.remaining()));
  }
  // Tensors written with `edgeq convert --repack` (stored_layouts.h).
  EDGEQ_RETURN_IF_ERROR(ResolveStoredLayouts(owner, &dict));
  return dict;
}

absl::StatusOr<TensorDict> Load(const std::string& path, const LoadOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  absl::StatusOr<TensorDict> dict = LoadFromBuffer(file->span(), file, options);
  if (!dict.ok()) {
    return absl::Status(dict.status().code(), absl::StrCat(path, ": ", dict.status().message()));
  }
  return dict;
}

absl::Status Verify(const std::string& path) {
  LoadOptions options;
  options.verify_data = true;
  return Load(path, options).status();
}

}  // namespace checkpoint
}  // namespace edgeq
