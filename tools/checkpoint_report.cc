#include "tools/checkpoint_report.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "checkpoint/gguf.h"
#include "core/status_macros.h"
#include "llm/hf_import.h"
#include "quantization/encoding.h"
#include "tools/quantize_model.h"

namespace edgeq {
namespace tools {

absl::StatusOr<std::string> InspectCheckpoint(const std::string& path, bool verify) {
  checkpoint::LoadOptions options;
  options.verify_data = verify;
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(path, options));
  const checkpoint::TensorDict& d = c.dict;
  size_t name_width = 4;
  for (const std::string& k : d.Keys()) name_width = std::max(name_width, k.size());
  std::string out = absl::StrFormat("%s: %s, %d tensors, %d metadata keys, %d bytes\n", path,
                                    checkpoint::FormatName(c.format), d.size(),
                                    d.MetadataKeys().size(), c.file_bytes.size());
  absl::StrAppendFormat(&out, "%-*s  %-10s  %-18s  %12s  %12s\n", name_width, "name", "type",
                        "shape", "bytes", "offset");
  int64_t total_elements = 0;
  uint64_t total_bytes = 0;
  for (const std::string& k : d.Keys()) {
    const Tensor& t = **d.Get(k);
    const std::string type = t.is_quantized() ? t.encoding() : std::string(DTypeName(t.dtype()));
    const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
    std::string offset = "(copy)";
    if (p >= c.file_bytes.data() && p <= c.file_bytes.data() + c.file_bytes.size()) {
      offset = absl::StrCat(p - c.file_bytes.data());
    }
    absl::StrAppendFormat(&out, "%-*s  %-10s  %-18s  %12d  %12s\n", name_width, k, type,
                          t.logical_shape().ToString(), t.size_bytes(), offset);
    total_elements += t.logical_shape().num_elements();
    total_bytes += t.size_bytes();
  }
  absl::StrAppendFormat(&out, "total: %d tensors, %d parameters, %d bytes\n", d.size(),
                        total_elements, total_bytes);
  if (!d.MetadataKeys().empty()) out += "metadata:\n";
  for (const std::string& k : d.MetadataKeys()) {
    const checkpoint::MetadataValue& v = **d.GetMetadata(k);
    absl::StrAppendFormat(&out, "  %s (%s) = %s\n", k, v.TypeName(), v.DebugString());
  }
  if (verify) {
    // The readers refuse a quantized tensor whose bytes do not match its encoding and shape;
    // checked again here so that --verify states it for every format.
    int quantized = 0;
    for (const std::string& k : d.Keys()) {
      const Tensor& t = **d.Get(k);
      EDGEQ_RETURN_IF_ERROR(CheckQuantizedTensor(k, t));
      if (t.is_quantized()) ++quantized;
    }
    if (c.format == checkpoint::Format::kMax) {
      absl::StrAppendFormat(&out,
                            "verify: OK (header/table checksum, %d tensor checksums, %d quantized "
                            "tensor sizes)\n",
                            d.size(), quantized);
    } else {
      absl::StrAppendFormat(&out,
                            "verify: OK (structure and %d quantized tensor sizes checked; %s "
                            "files carry no checksums)\n",
                            quantized, checkpoint::FormatName(c.format));
    }
  }
  return out;
}

namespace {

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// `out` must not be a file the conversion reads: the input file, or for a Hugging Face
// directory any file in it (config.json, the index, the shards, the tokenizer files), whatever
// path or link names it. Checked before anything is read or written.
absl::Status CheckOutputIsNotAnInput(const std::string& in, const std::string& out) {
  struct stat o, i;
  if (::stat(out.c_str(), &o) != 0) return absl::OkStatus();  // a new file
  if (::stat(in.c_str(), &i) == 0 && SameFile(i, o)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("output '%s' is the input %s; choose another output path", out,
                        S_ISDIR(i.st_mode) ? "directory" : "file"));
  }
  if (!llm::IsHfCheckpointDir(in)) return absl::OkStatus();
  DIR* dir = ::opendir(in.c_str());
  if (dir == nullptr) return absl::OkStatus();  // the import reports it
  absl::Status status = absl::OkStatus();
  while (const struct dirent* e = ::readdir(dir)) {
    struct stat f;
    const std::string path = in + "/" + e->d_name;
    if (::stat(path.c_str(), &f) == 0 && S_ISREG(f.st_mode) && SameFile(f, o)) {
      status = absl::InvalidArgumentError(absl::StrFormat(
          "output '%s' is %s, a file of the input directory; choose another output path", out,
          path));
      break;
    }
  }
  ::closedir(dir);
  return status;
}

}  // namespace

absl::StatusOr<std::string> ConvertCheckpoint(const std::string& in, const std::string& out,
                                              const std::string& rules_path) {
  EDGEQ_RETURN_IF_ERROR(CheckOutputIsNotAnInput(in, out));
  if (!rules_path.empty()) {
    // Convert to a temporary f32 GGUF, then quantize it into `out`.
    EDGEQ_RETURN_IF_ERROR(checkpoint::FormatFromExtension(out).status());
    const std::string tmp = out + ".convert-tmp.gguf";
    EDGEQ_ASSIGN_OR_RETURN(std::string first, ConvertCheckpoint(in, tmp));
    QuantizeModelOptions options;
    options.rules_path = rules_path;
    absl::StatusOr<QuantizeModelResult> q = QuantizeModel(tmp, out, options);
    std::remove(tmp.c_str());
    if (!q.ok()) return q.status();
    return absl::StrFormat("%s; quantized by %s into %s: %d bytes of tensor data", first,
                           rules_path, out, q->output_bytes);
  }
  if (llm::IsHfCheckpointDir(in)) {
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::Format out_format, checkpoint::FormatFromExtension(out));
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict dict, llm::ImportHfCheckpoint(in));
    absl::Status s = checkpoint::WriteCheckpoint(dict, out);
    if (!s.ok()) {
      return absl::Status(s.code(),
                          absl::StrFormat("cannot write %s as %s: %s", in,
                                          checkpoint::FormatName(out_format), s.message()));
    }
    return absl::StrFormat(
        "%s (Hugging Face %s) -> %s (%s): %d tensors, %d bytes of data, %d metadata keys", in,
        *dict.GetString("general.architecture"), out, checkpoint::FormatName(out_format),
        dict.size(), dict.TotalBytes(), dict.MetadataKeys().size());
  }
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::Format out_format, checkpoint::FormatFromExtension(out));
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(in));
  absl::Status s = checkpoint::WriteCheckpoint(c.dict, out);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrFormat("cannot write %s as %s: %s", in,
                                                  checkpoint::FormatName(out_format), s.message()));
  }
  return absl::StrFormat("%s (%s) -> %s (%s): %d tensors, %d bytes of data, %d metadata keys", in,
                         checkpoint::FormatName(c.format), out, checkpoint::FormatName(out_format),
                         c.dict.size(), c.dict.TotalBytes(), c.dict.MetadataKeys().size());
}

}  // namespace tools
}  // namespace edgeq
