#include "checkpoint/formats.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/gguf.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/safetensors.h"
#include "core/status_macros.h"

namespace edgeq {
namespace checkpoint {

absl::string_view FormatName(Format format) {
  switch (format) {
    case Format::kMax:
      return "max";
    case Format::kGguf:
      return "gguf";
    case Format::kLlama2c:
      return "llama2c";
    case Format::kSafetensors:
      return "safetensors";
  }
  return "?";
}

absl::StatusOr<Format> FormatFromExtension(absl::string_view path) {
  const std::string ext = internal::Extension(path);
  if (ext == "max") return Format::kMax;
  if (ext == "gguf") return Format::kGguf;
  if (ext == "safetensors") return Format::kSafetensors;
  if (ext == "bin") return Format::kLlama2c;
  return absl::InvalidArgumentError(absl::StrFormat(
      "'%s': unknown checkpoint extension '%s' (expected .max, .gguf, .safetensors or .bin for "
      "a llama2.c model)",
      path, ext));
}

absl::StatusOr<Format> DetectFormat(absl::string_view path, absl::Span<const uint8_t> head) {
  if (head.size() >= sizeof(kMaxMagic) &&
      std::memcmp(head.data(), kMaxMagic, sizeof(kMaxMagic)) == 0) {
    return Format::kMax;
  }
  if (head.size() >= 4 && std::memcmp(head.data(), "GGUF", 4) == 0) return Format::kGguf;
  return FormatFromExtension(path);
}

absl::StatusOr<OpenedCheckpoint> OpenCheckpoint(const std::string& path,
                                                const LoadOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  EDGEQ_ASSIGN_OR_RETURN(Format format, DetectFormat(path, file->span()));
  absl::StatusOr<TensorDict> dict;
  switch (format) {
    case Format::kMax:
      dict = LoadFromBuffer(file->span(), file, options);
      break;
    case Format::kGguf:
      dict = ReadGgufFromBuffer(file->span(), file);
      break;
    case Format::kLlama2c:
      dict = ReadLlama2cFromBuffer(file->span(), file);
      break;
    case Format::kSafetensors:
      dict = ReadSafetensorsFromBuffer(file->span(), file);
      break;
  }
  if (!dict.ok()) {
    return absl::Status(dict.status().code(), absl::StrCat(path, ": ", dict.status().message()));
  }
  OpenedCheckpoint c{format, *std::move(dict), file, file->span()};
  return c;
}

absl::Status WriteCheckpoint(const TensorDict& dict, const std::string& path) {
  EDGEQ_ASSIGN_OR_RETURN(Format format, FormatFromExtension(path));
  switch (format) {
    case Format::kMax:
      return Save(dict, path);
    case Format::kGguf:
      return WriteGguf(dict, path);
    case Format::kLlama2c:
      return WriteLlama2c(dict, path);
    case Format::kSafetensors:
      return WriteSafetensors(dict, path);
  }
  return absl::InternalError("unreachable");
}

}  // namespace checkpoint
}  // namespace edgeq
