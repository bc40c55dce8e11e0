#include "tools/quantize_model.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>

#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tools {
namespace {

// True if both paths name one existing file (hard links and symlinks included).
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

absl::StatusOr<QuantizeModelResult> QuantizeModel(const std::string& in, const std::string& out,
                                                  const QuantizeModelOptions& options) {
  if (in == out || SameFile(in, out)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("output '%s' is the input file; quantize never overwrites its input", out));
  }
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::Format out_format, checkpoint::FormatFromExtension(out));
  std::vector<checkpoint::QuantizeRule> rules;
  if (!options.rules_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(rules, checkpoint::LoadQuantizeRules(options.rules_path));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(rules, checkpoint::DefaultQuantizeRules(options.encoding));
  }
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(in));
  QuantizeModelResult result;
  result.input_bytes = c.dict.TotalBytes();
  EDGEQ_ASSIGN_OR_RETURN(
      checkpoint::TensorDict q,
      checkpoint::QuantizeDict(c.dict, rules, &result.decisions, options.progress));
  result.output_bytes = q.TotalBytes();
  absl::Status s = checkpoint::WriteCheckpoint(q, out);
  if (!s.ok()) {
    return absl::Status(s.code(),
                        absl::StrFormat("cannot write the quantized %s as %s (%s): %s", in, out,
                                        checkpoint::FormatName(out_format), s.message()));
  }
  struct stat st;
  if (::stat(out.c_str(), &st) == 0) result.output_file_bytes = st.st_size;
  return result;
}

std::string QuantizeModelReport(const QuantizeModelResult& result) {
  size_t width = 4;
  for (const auto& d : result.decisions) width = std::max(width, d.name.size());
  std::string s =
      absl::StrFormat("%-*s  %-9s  %-9s  %s\n", width, "name", "requested", "chosen", "note");
  std::map<std::string, int> counts;
  for (const auto& d : result.decisions) {
    absl::StrAppendFormat(&s, "%-*s  %-9s  %-9s  %s\n", width, d.name, d.requested, d.chosen,
                          d.note);
    ++counts[d.chosen];
  }
  s += "tensors:";
  for (const auto& [encoding, n] : counts) absl::StrAppendFormat(&s, " %s %d", encoding, n);
  absl::StrAppendFormat(&s, "\nweights: %d -> %d bytes (%.2fx smaller); file: %d bytes\n",
                        result.input_bytes, result.output_bytes,
                        result.output_bytes == 0
                            ? 0.0
                            : static_cast<double>(result.input_bytes) / result.output_bytes,
                        result.output_file_bytes);
  return s;
}

}  // namespace tools
}  // namespace edgeq
