#include "tools/raw_codec.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace tools {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrFormat("cannot open input file '%s': %s", path, std::strerror(errno)));
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(absl::StrFormat("error reading '%s'", path));
  return data;
}

// Refuses an output that is the input file (same path or same inode).
absl::Status CheckNotInput(const std::string& in_path, const std::string& out_path) {
  struct stat in_st, out_st;
  if (in_path == out_path ||
      (stat(in_path.c_str(), &in_st) == 0 && stat(out_path.c_str(), &out_st) == 0 &&
       in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "output '%s' is the input file; refusing to overwrite the input", out_path));
  }
  return absl::OkStatus();
}

// Writes `size` bytes to `path` through a temporary file in the same directory and rename().
absl::Status WriteFileAtomically(const std::string& path, const void* data, size_t size) {
  const std::string tmp = absl::StrFormat("%s.tmp.%d", path, static_cast<int>(getpid()));
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot create '%s': %s", tmp, std::strerror(errno)));
  }
  const bool written = size == 0 || std::fwrite(data, 1, size, f) == size;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed) {
    std::remove(tmp.c_str());
    return absl::DataLossError(absl::StrFormat("error writing '%s'", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(
        absl::StrFormat("cannot rename '%s' to '%s': %s", tmp, path, std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> EncodeRawFile(absl::string_view encoding, const std::string& in_path,
                                          const std::string& out_path) {
  EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* enc, FindEncoding(encoding));
  EDGEQ_RETURN_IF_ERROR(CheckNotInput(in_path, out_path));
  EDGEQ_ASSIGN_OR_RETURN(const std::string data, ReadFile(in_path));
  if (data.empty() || data.size() % sizeof(float) != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "input '%s' has %d bytes, not a whole (positive) number of 4-byte float32 values", in_path,
        data.size()));
  }
  const int64_t n = static_cast<int64_t>(data.size() / sizeof(float));
  const BlockParameters bp = enc->block_parameters();
  if (n % bp.elements_per_block != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "input '%s' holds %d values; encoding '%s' needs a multiple of %d (whole blocks)", in_path,
        n, enc->name(), bp.elements_per_block));
  }
  EDGEQ_ASSIGN_OR_RETURN(Tensor x, Tensor::Create(DType::kFloat32, Shape{n}));
  std::memcpy(x.raw_mutable_data(), data.data(), data.size());  // little-endian hosts only
  absl::StatusOr<Tensor> q = enc->Quantize(x);
  if (!q.ok()) {
    return absl::Status(q.status().code(),
                        absl::StrFormat("input '%s': %s", in_path, q.status().message()));
  }
  EDGEQ_RETURN_IF_ERROR(WriteFileAtomically(out_path, q->raw_data(), q->size_bytes()));
  return absl::StrFormat("encoded %d values (%d bytes) of '%s' with %s into %d bytes in '%s'", n,
                         data.size(), in_path, enc->name(), q->size_bytes(), out_path);
}

absl::StatusOr<std::string> DecodeRawFile(absl::string_view encoding, const std::string& in_path,
                                          const std::string& out_path) {
  EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* enc, FindEncoding(encoding));
  EDGEQ_RETURN_IF_ERROR(CheckNotInput(in_path, out_path));
  EDGEQ_ASSIGN_OR_RETURN(const std::string data, ReadFile(in_path));
  const BlockParameters bp = enc->block_parameters();
  if (data.empty() || static_cast<int64_t>(data.size()) % bp.block_size != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "input '%s' has %d bytes, not a whole (positive) number of %d-byte %s blocks", in_path,
        data.size(), bp.block_size, enc->name()));
  }
  const int64_t bytes = static_cast<int64_t>(data.size());
  EDGEQ_ASSIGN_OR_RETURN(Tensor q, Tensor::Create(DType::kUInt8, Shape{bytes}));
  std::memcpy(q.raw_mutable_data(), data.data(), data.size());
  EDGEQ_ASSIGN_OR_RETURN(Tensor y, enc->Dequantize(q));
  EDGEQ_RETURN_IF_ERROR(WriteFileAtomically(out_path, y.raw_data(), y.size_bytes()));
  return absl::StrFormat("decoded %d bytes of '%s' (%s) into %d values (%d bytes) in '%s'", bytes,
                         in_path, enc->name(), y.num_elements(), y.size_bytes(), out_path);
}

std::string EncodingsTable() {
  std::string out = absl::StrFormat("%-10s %18s %15s %14s\n", "encoding", "values_per_block",
                                    "bytes_per_block", "bits_per_value");
  for (const std::string& name : EncodingRegistry::Global().Names()) {
    absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(name);
    if (!enc.ok()) continue;
    const BlockParameters bp = (*enc)->block_parameters();
    absl::StrAppendFormat(&out, "%-10s %18d %15d %14.4g\n", name, bp.elements_per_block,
                          bp.block_size, 8.0 * bp.block_size / bp.elements_per_block);
  }
  return out;
}

}  // namespace tools
}  // namespace edgeq
