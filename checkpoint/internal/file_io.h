// File plumbing shared by the checkpoint readers and writers (not part of the public API).
#ifndef EDGEQ_CHECKPOINT_INTERNAL_FILE_IO_H_
#define EDGEQ_CHECKPOINT_INTERNAL_FILE_IO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace edgeq {
namespace checkpoint {
namespace internal {

// A read-only, private memory mapping of a whole file; unmapped when the last owner goes away.
class MappedFile {
 public:
  // NotFound / PermissionDenied / Internal naming the path and errno text.
  static absl::StatusOr<std::shared_ptr<const MappedFile>> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  absl::Span<const uint8_t> span() const { return absl::MakeConstSpan(data_, size_); }

 private:
  MappedFile(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  const uint8_t* data_;
  size_t size_;
};

// A destination for bytes (a file being written, or a string in memory).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual absl::Status Write(const void* data, size_t size) = 0;
  absl::Status Write(absl::string_view s) { return Write(s.data(), s.size()); }
  // Writes `n` zero bytes.
  absl::Status WriteZeros(size_t n);
  uint64_t bytes_written() const { return written_; }

 protected:
  uint64_t written_ = 0;
};

class StringSink : public Sink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  absl::Status Write(const void* data, size_t size) override;
  using Sink::Write;

 private:
  std::string* out_;
};

// Writes a file atomically: bytes go to a temporary file in the same directory, which Commit()
// fsyncs and renames over `path` (then fsyncs the directory). Until Commit() succeeds the old
// file at `path` is untouched; the destructor removes an uncommitted temporary file.
class AtomicFileWriter : public Sink {
 public:
  static absl::StatusOr<std::unique_ptr<AtomicFileWriter>> Create(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  absl::Status Write(const void* data, size_t size) override;
  using Sink::Write;
  absl::Status Commit();

 private:
  AtomicFileWriter(std::string path, std::string tmp_path, int fd)
      : path_(std::move(path)), tmp_path_(std::move(tmp_path)), fd_(fd) {}
  std::string path_;
  std::string tmp_path_;
  int fd_;
  bool committed_ = false;
};

// Bounds-checked little-endian cursor over untrusted bytes. Every read fails with
// InvalidArgument "<what>: <context>: truncated at byte N (need M more bytes, file has K)"
// instead of reading out of range.
class ByteReader {
 public:
  ByteReader(absl::Span<const uint8_t> data, std::string context)
      : data_(data), context_(std::move(context)) {}

  size_t pos() const { return pos_; }
  size_t size() const { return data_.size(); }
  size_t remaining() const { return data_.size() - pos_; }
  const uint8_t* at(size_t offset) const { return data_.data() + offset; }

  absl::Status Need(size_t n, absl::string_view what) const;
  absl::Status Skip(size_t n, absl::string_view what);
  absl::Status Seek(size_t pos, absl::string_view what);

  absl::StatusOr<uint8_t> U8(absl::string_view what);
  absl::StatusOr<uint16_t> U16(absl::string_view what);
  absl::StatusOr<uint32_t> U32(absl::string_view what);
  absl::StatusOr<uint64_t> U64(absl::string_view what);
  absl::StatusOr<int32_t> I32(absl::string_view what);
  absl::StatusOr<float> F32(absl::string_view what);
  absl::StatusOr<double> F64(absl::string_view what);
  // `n` raw bytes (a view into the data).
  absl::StatusOr<absl::string_view> Bytes(uint64_t n, absl::string_view what);

  absl::Status Error(absl::string_view message) const;

 private:
  absl::Span<const uint8_t> data_;
  std::string context_;
  size_t pos_ = 0;
};

// Appends little-endian values to a string (headers built in memory before writing).
void PutU8(std::string* out, uint8_t v);
void PutU16(std::string* out, uint16_t v);
void PutU32(std::string* out, uint32_t v);
void PutU64(std::string* out, uint64_t v);
void PutF32(std::string* out, float v);
void PutF64(std::string* out, double v);

inline uint64_t AlignUp(uint64_t x, uint64_t alignment) {
  return (x + alignment - 1) / alignment * alignment;
}

// Lower-case extension of a path without the dot ("max", "gguf", ...).
std::string Extension(absl::string_view path);

}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq

#endif  // EDGEQ_CHECKPOINT_INTERNAL_FILE_IO_H_
