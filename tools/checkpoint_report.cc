#include "tools/checkpoint_report.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "checkpoint/gguf.h"
#include "checkpoint/stored_layouts.h"
#include "convert/hf_import.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "tools/quantize_model.h"

namespace edgeq {
namespace tools {

namespace {

// NaN and Inf values of one tensor (decoded row by row if quantized).
struct NonFinite {
  int64_t nan = 0, inf = 0;
  int64_t first = -1;  // flat index of the first one
  void Add(float v, int64_t index) {
    if (std::isfinite(v)) return;
    (std::isnan(v) ? nan : inf) += 1;
    if (first < 0) first = index;
  }
};

// Decodes every value of `t` and counts the non-finite ones; false in `*decoded` for tensors
// that hold no floats (integer dtypes).
absl::StatusOr<NonFinite> CountNonFinite(const std::string& name, const Tensor& t, bool* decoded) {
  NonFinite r;
  *decoded = true;
  const int64_t n = t.logical_shape().num_elements();
  if (t.is_quantized()) {
    absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(t.encoding());
    if (!enc.ok()) {
      return absl::UnimplementedError(absl::StrFormat("tensor %s: no decoder for encoding '%s'",
                                                      QuoteForError(name), t.encoding()));
    }
    EDGEQ_RETURN_IF_ERROR(CheckQuantizedTensor(name, t));
    const Shape& logical = t.logical_shape();
    const int64_t k = logical.rank() == 0 ? 1 : logical.dim(logical.rank() - 1);
    if (k <= 0 || n == 0) return r;
    const int64_t rows = n / k;
    const size_t row_bytes = t.size_bytes() / static_cast<size_t>(rows);
    std::vector<float> row(static_cast<size_t>(k));
    const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < rows; ++i) {
      (*enc)->DequantizeRow(p + static_cast<size_t>(i) * row_bytes, row.data(), k);
      for (int64_t j = 0; j < k; ++j) r.Add(row[static_cast<size_t>(j)], i * k + j);
    }
    return r;
  }
  const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
  switch (t.dtype()) {
    case DType::kFloat32:
      for (int64_t i = 0; i < n; ++i) {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        r.Add(v, i);
      }
      break;
    case DType::kFloat16:
    case DType::kBFloat16:
      for (int64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, p + 2 * i, 2);
        r.Add(t.dtype() == DType::kFloat16 ? blocks::Fp16ToFloat(h) : blocks::Bf16ToFloat(h), i);
      }
      break;
    default:
      *decoded = false;
  }
  return r;
}

// --values: every tensor decoded; InvalidArgument naming the first tensors with NaN or Inf
// values (count and first index), else a line for the report.
absl::StatusOr<std::string> CheckValues(const checkpoint::TensorDict& d) {
  int64_t tensors = 0, values = 0, bad_tensors = 0;
  std::string bad;
  int64_t stored_layouts = 0;
  for (const std::string& k : d.Keys()) {
    const Tensor& t = **d.Get(k);
    // A stored kernel layout (edgeq convert --repack) holds no GGML blocks to decode.
    if (checkpoint::FindStoredLayout(t.raw_data()).has_value()) {
      ++stored_layouts;
      continue;
    }
    bool decoded = false;
    EDGEQ_ASSIGN_OR_RETURN(NonFinite nf, CountNonFinite(k, t, &decoded));
    if (!decoded) continue;
    ++tensors;
    values += t.logical_shape().num_elements();
    if (nf.first < 0) continue;
    if (++bad_tensors <= 3) {
      absl::StrAppendFormat(&bad, "%s%s (%d NaN, %d Inf, first at index %d)",
                            bad.empty() ? "" : ", ", QuoteForError(k, 128), nf.nan, nf.inf,
                            nf.first);
    }
  }
  if (bad_tensors > 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("values: %d of %d tensors hold NaN or Inf: %s%s", bad_tensors, tensors, bad,
                        bad_tensors > 3 ? ", ..." : ""));
  }
  return absl::StrFormat(
      "values: OK (%d tensors, %d values decoded, all finite%s)\n", tensors, values,
      stored_layouts == 0
          ? ""
          : absl::StrFormat("; %d in stored kernel layouts not decoded", stored_layouts));
}

}  // namespace

absl::StatusOr<std::string> InspectCheckpoint(const std::string& path, bool verify,
                                              bool check_values) {
  checkpoint::LoadOptions options;
  options.verify_data = verify;
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(path, options));
  const checkpoint::TensorDict& d = c.dict;
  size_t name_width = 4;
  for (const std::string& k : d.Keys()) name_width = std::max(name_width, k.size());
  std::string out = absl::StrFormat("%s: %s, %d tensors, %d metadata keys, %d bytes\n", path,
                                    checkpoint::FormatName(c.format), d.size(),
                                    d.MetadataKeys().size(), c.file_bytes.size());
  // A stored kernel layout (edgeq convert --repack) shows as its encoding and the layout, e.g.
  // "q4_k@q4_k_avx2_gemv".
  std::vector<std::string> types;
  size_t type_width = 10;
  for (const std::string& k : d.Keys()) {
    const Tensor& t = **d.Get(k);
    std::string type = t.is_quantized() ? t.encoding() : std::string(DTypeName(t.dtype()));
    if (std::optional<checkpoint::StoredLayoutTag> tag =
            checkpoint::FindStoredLayout(t.raw_data())) {
      type = absl::StrCat(type, "@", tag->layout);
    }
    type_width = std::max(type_width, type.size());
    types.push_back(std::move(type));
  }
  absl::StrAppendFormat(&out, "%-*s  %-*s  %-18s  %12s  %12s\n", name_width, "name", type_width,
                        "type", "shape", "bytes", "offset");
  int64_t total_elements = 0;
  uint64_t total_bytes = 0;
  size_t row = 0;
  for (const std::string& k : d.Keys()) {
    const Tensor& t = **d.Get(k);
    const std::string& type = types[row++];
    const uint8_t* p = static_cast<const uint8_t*>(t.raw_data());
    std::string offset = "(copy)";
    if (p >= c.file_bytes.data() && p <= c.file_bytes.data() + c.file_bytes.size()) {
      offset = absl::StrCat(p - c.file_bytes.data());
    }
    absl::StrAppendFormat(&out, "%-*s  %-*s  %-18s  %12d  %12s\n", name_width, k, type_width, type,
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
  if (check_values) {
    EDGEQ_ASSIGN_OR_RETURN(std::string line, CheckValues(d));
    out += line;
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
  if (!convert::IsHfCheckpointDir(in)) return absl::OkStatus();
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
  if (convert::IsHfCheckpointDir(in)) {
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::Format out_format, checkpoint::FormatFromExtension(out));
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict dict, convert::ImportHfCheckpoint(in));
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
