#include "checkpoint/formats.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/gguf.h"
#include "checkpoint/internal/file_io.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/stored_layouts.h"
#include "core/status_macros.h"
#include "sdk/selection.h"

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

namespace {

// The selective build (--define=edgeq_formats=gguf; sdk/selection.h): a format it leaves out is
// refused before its reader or writer is reached, and `kKept*` folds the call away at compile
// time, so that the linker drops that format's code.
constexpr bool kKeptMax = selection::Selected(selection::kFormats, "max");
constexpr bool kKeptGguf = selection::Selected(selection::kFormats, "gguf");
constexpr bool kKeptLlama2c = selection::Selected(selection::kFormats, "llama2c");
constexpr bool kKeptSafetensors = selection::Selected(selection::kFormats, "safetensors");

absl::Status CheckInBuild(Format format) {
  const absl::string_view name = FormatName(format);
  if (selection::Selected(selection::kFormats, {name.data(), name.size()})) {
    return absl::OkStatus();
  }
  return absl::UnimplementedError(absl::StrCat(
      "checkpoint format '", name,
      "' is not in this build (built with: ", selection::BuiltWith(selection::kFormats), ")"));
}

}  // namespace

absl::StatusOr<OpenedCheckpoint> OpenCheckpoint(const std::string& path,
                                                const LoadOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const internal::MappedFile> file,
                         internal::MappedFile::Open(path));
  EDGEQ_ASSIGN_OR_RETURN(Format format, DetectFormat(path, file->span()));
  const absl::Status in_build = CheckInBuild(format);
  if (!in_build.ok())
    return absl::Status(in_build.code(), absl::StrCat(path, ": ", in_build.message()));
  absl::StatusOr<TensorDict> dict;
  switch (format) {
    case Format::kMax:
      if (kKeptMax) dict = LoadFromBuffer(file->span(), file, options);
      break;
    case Format::kGguf:
      if (kKeptGguf) dict = ReadGgufFromBuffer(file->span(), file);
      break;
    case Format::kLlama2c:
      if (kKeptLlama2c) dict = ReadLlama2cFromBuffer(file->span(), file);
      break;
    case Format::kSafetensors:
      if (kKeptSafetensors) dict = ReadSafetensorsFromBuffer(file->span(), file);
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
  EDGEQ_RETURN_IF_ERROR(CheckInBuild(format));
  // Weights in kernel layouts (stored_layouts.h) are not GGML blocks: only .max keeps them.
  if (format != Format::kMax && dict.HasMetadata(kRepackIsaKey)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the checkpoint holds weights in kernel layouts (edgeq convert --repack), which only .max "
        "keeps; convert the file it was made from to ",
        FormatName(format)));
  }
  switch (format) {
    case Format::kMax:
      return kKeptMax ? Save(dict, path) : absl::OkStatus();
    case Format::kGguf:
      return kKeptGguf ? WriteGguf(dict, path) : absl::OkStatus();
    case Format::kLlama2c:
      return kKeptLlama2c ? WriteLlama2c(dict, path) : absl::OkStatus();
    case Format::kSafetensors:
      return kKeptSafetensors ? WriteSafetensors(dict, path) : absl::OkStatus();
  }
  return absl::InternalError("unreachable");
}

}  // namespace checkpoint
}  // namespace edgeq
