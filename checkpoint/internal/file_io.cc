#include "checkpoint/internal/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "edgeq's checkpoint readers assume a little-endian host");

namespace edgeq {
namespace checkpoint {
namespace internal {

namespace {

absl::Status ErrnoStatus(int err, absl::string_view what, absl::string_view path) {
  const std::string msg = absl::StrFormat("%s '%s': %s", what, path, std::strerror(err));
  switch (err) {
    case ENOENT:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
      return absl::PermissionDeniedError(msg);
    default:
      return absl::InternalError(msg);
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<const MappedFile>> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "cannot open", path);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus(err, "cannot stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrFormat("'%s' is not a regular file", path));
  }
  const size_t size = static_cast<size_t>(st.st_size);
  const uint8_t* data = nullptr;
  if (size > 0) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      return ErrnoStatus(err, "cannot mmap", path);
    }
    data = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
  return std::shared_ptr<const MappedFile>(new MappedFile(data, size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

absl::StatusOr<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Create(
    const std::string& path) {
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(&tmp[0]);
  if (fd < 0) return ErrnoStatus(errno, "cannot create a temporary file next to", path);
  ::fchmod(fd, 0644);
  return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(path, tmp, fd));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(tmp_path_.c_str());
  }
}

absl::Status AtomicFileWriter::Write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(errno, "cannot write", tmp_path_);
    }
    p += n;
    size -= static_cast<size_t>(n);
    written_ += static_cast<uint64_t>(n);
  }
  return absl::OkStatus();
}

absl::Status Sink::WriteZeros(size_t n) {
  static const char kZeros[256] = {};
  while (n > 0) {
    const size_t k = n < sizeof(kZeros) ? n : sizeof(kZeros);
    absl::Status s = Write(kZeros, k);
    if (!s.ok()) return s;
    n -= k;
  }
  return absl::OkStatus();
}

absl::Status StringSink::Write(const void* data, size_t size) {
  out_->append(static_cast<const char*>(data), size);
  written_ += size;
  return absl::OkStatus();
}

absl::Status AtomicFileWriter::Commit() {
  if (committed_) return absl::FailedPreconditionError("AtomicFileWriter: already committed");
  if (::fsync(fd_) != 0) return ErrnoStatus(errno, "cannot fsync", tmp_path_);
  if (::close(fd_) != 0) {
    fd_ = -1;
    return ErrnoStatus(errno, "cannot close", tmp_path_);
  }
  fd_ = -1;
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) {
    return ErrnoStatus(errno, absl::StrCat("cannot rename ", tmp_path_, " to"), path_);
  }
  committed_ = true;
  // Make the rename itself durable.
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return absl::OkStatus();
}

absl::Status ByteReader::Error(absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(context_, ": ", message));
}

absl::Status ByteReader::Need(size_t n, absl::string_view what) const {
  if (n > remaining()) {
    return Error(absl::StrFormat("%s: truncated at byte %d (need %d bytes, %d left of %d)", what,
                                 pos_, n, remaining(), data_.size()));
  }
  return absl::OkStatus();
}

absl::Status ByteReader::Skip(size_t n, absl::string_view what) {
  absl::Status s = Need(n, what);
  if (s.ok()) pos_ += n;
  return s;
}

absl::Status ByteReader::Seek(size_t pos, absl::string_view what) {
  if (pos > data_.size()) {
    return Error(absl::StrFormat("%s: offset %d is past the end of the data (%d bytes)", what, pos,
                                 data_.size()));
  }
  pos_ = pos;
  return absl::OkStatus();
}

namespace {
template <typename T>
absl::StatusOr<T> ReadLe(ByteReader* r, absl::string_view what) {
  absl::Status s = r->Need(sizeof(T), what);
  if (!s.ok()) return s;
  T v;
  std::memcpy(&v, r->at(r->pos()), sizeof(T));
  (void)r->Skip(sizeof(T), what);
  return v;
}
}  // namespace

absl::StatusOr<uint8_t> ByteReader::U8(absl::string_view what) {
  return ReadLe<uint8_t>(this, what);
}
absl::StatusOr<uint16_t> ByteReader::U16(absl::string_view what) {
  return ReadLe<uint16_t>(this, what);
}
absl::StatusOr<uint32_t> ByteReader::U32(absl::string_view what) {
  return ReadLe<uint32_t>(this, what);
}
absl::StatusOr<uint64_t> ByteReader::U64(absl::string_view what) {
  return ReadLe<uint64_t>(this, what);
}
absl::StatusOr<int32_t> ByteReader::I32(absl::string_view what) {
  return ReadLe<int32_t>(this, what);
}
absl::StatusOr<float> ByteReader::F32(absl::string_view what) { return ReadLe<float>(this, what); }
absl::StatusOr<double> ByteReader::F64(absl::string_view what) {
  return ReadLe<double>(this, what);
}

absl::StatusOr<absl::string_view> ByteReader::Bytes(uint64_t n, absl::string_view what) {
  if (n > remaining()) {
    return Error(absl::StrFormat("%s: length %d at byte %d exceeds the %d bytes left", what, n,
                                 pos_, remaining()));
  }
  absl::string_view v(reinterpret_cast<const char*>(at(pos_)), static_cast<size_t>(n));
  pos_ += static_cast<size_t>(n);
  return v;
}

void PutU8(std::string* out, uint8_t v) { out->push_back(static_cast<char>(v)); }
void PutU16(std::string* out, uint16_t v) { out->append(reinterpret_cast<const char*>(&v), 2); }
void PutU32(std::string* out, uint32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void PutU64(std::string* out, uint64_t v) { out->append(reinterpret_cast<const char*>(&v), 8); }
void PutF32(std::string* out, float v) { out->append(reinterpret_cast<const char*>(&v), 4); }
void PutF64(std::string* out, double v) { out->append(reinterpret_cast<const char*>(&v), 8); }

std::string Extension(absl::string_view path) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == absl::string_view::npos || (slash != absl::string_view::npos && dot < slash)) {
    return "";
  }
  return absl::AsciiStrToLower(path.substr(dot + 1));
}

}  // namespace internal
}  // namespace checkpoint
}  // namespace edgeq
