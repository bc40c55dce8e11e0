#include "checkpoint/quantize_rules.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace checkpoint {
namespace {

absl::StatusOr<std::string> CheckEncoding(absl::string_view e, absl::string_view where) {
  std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(e));
  if (lower == "none" || lower == "f32") return std::string("f32");
  if (FindEncoding(lower).ok()) return lower;
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: unknown encoding '%s' (expected one of %s, f32, none)", where, e,
                      absl::StrJoin(EncodingRegistry::Global().Names(), ", ")));
}

int64_t BlockElements(const std::string& encoding) {
  if (encoding == "f32") return 1;
  absl::StatusOr<const QuantizationEncoding*> e = FindEncoding(encoding);
  return e.ok() ? (*e)->block_parameters().elements_per_block : 1;
}

}  // namespace

absl::StatusOr<std::vector<QuantizeRule>> DefaultQuantizeRules(absl::string_view encoding) {
  EDGEQ_ASSIGN_OR_RETURN(std::string e, CheckEncoding(encoding, "--encoding"));
  return std::vector<QuantizeRule>{{"*", e}};
}

absl::StatusOr<std::vector<QuantizeRule>> ParseQuantizeRules(absl::string_view text,
                                                             absl::string_view source) {
  std::vector<QuantizeRule> rules;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    const size_t hash = line.find('#');
    if (hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    const std::string where = absl::StrFormat("%s:%d", source, line_no);
    const size_t arrow = line.find("->");
    if (arrow == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: expected 'PATTERN -> ENCODING', got '%s'", where, line));
    }
    const absl::string_view pattern = absl::StripAsciiWhitespace(line.substr(0, arrow));
    const absl::string_view encoding = absl::StripAsciiWhitespace(line.substr(arrow + 2));
    if (pattern.empty() || encoding.empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: expected 'PATTERN -> ENCODING', got '%s'", where, line));
    }
    EDGEQ_ASSIGN_OR_RETURN(std::string e, CheckEncoding(encoding, where));
    rules.push_back({std::string(pattern), std::move(e)});
  }
  return rules;
}

absl::StatusOr<std::vector<QuantizeRule>> LoadQuantizeRules(const std::string& path) {
  std::ifstream file(path);
  if (!file) {
    return absl::NotFoundError(absl::StrFormat("rules file '%s' cannot be read", path));
  }
  std::stringstream buffer;
  buffer << file.rdbuf();
  return ParseQuantizeRules(buffer.str(), path);
}

QuantizeDecision DecideEncoding(const std::string& name, const Shape& shape, DType dtype,
                                bool already_quantized, const std::vector<QuantizeRule>& rules) {
  QuantizeDecision d;
  d.name = name;
  d.requested = "f32";
  for (const QuantizeRule& r : rules) {
    if (fnmatch(r.pattern.c_str(), name.c_str(), 0) == 0) {
      d.requested = r.encoding;
      break;
    }
  }
  if (already_quantized) {
    d.chosen = "kept";
    return d;
  }
  if (dtype != DType::kFloat32) {
    d.chosen = "kept";
    if (d.requested != "f32") d.note = absl::StrFormat("%s, not f32", DTypeName(dtype));
    return d;
  }
  if (shape.rank() < 2) {  // norms and other vectors stay f32, as the rules say
    d.chosen = "f32";
    return d;
  }
  // The requested encoding, then q8_0 and bf16 (each only if finer than what came before).
  std::vector<std::string> chain = {d.requested};
  if (d.requested != "q8_0" && d.requested != "bf16" && d.requested != "f32") {
    chain.push_back("q8_0");
  }
  if (d.requested != "bf16" && d.requested != "f32") chain.push_back("bf16");
  chain.push_back("f32");
  const int64_t k = shape.dim(-1);
  for (const std::string& candidate : chain) {
    if (k % BlockElements(candidate) == 0) {
      d.chosen = candidate;
      break;
    }
  }
  if (d.chosen != d.requested) {
    d.note = absl::StrFormat("k = %d is not a multiple of %d", k, BlockElements(d.requested));
  }
  return d;
}

absl::StatusOr<TensorDict> QuantizeDict(
    const TensorDict& dict, const std::vector<QuantizeRule>& rules,
    std::vector<QuantizeDecision>* decisions,
    const std::function<void(int, int, const std::string&)>& progress) {
  TensorDict out;
  const int total = static_cast<int>(dict.size());
  int done = 0;
  for (const std::string& name : dict.Keys()) {
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* t, dict.Get(name));
    QuantizeDecision d = DecideEncoding(name, t->is_quantized() ? t->logical_shape() : t->shape(),
                                        t->dtype(), t->is_quantized(), rules);
    if (d.chosen == "f32" || d.chosen == "kept") {
      EDGEQ_RETURN_IF_ERROR(out.Set(name, *t));
    } else {
      EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* e, FindEncoding(d.chosen));
      absl::StatusOr<Tensor> q = e->Quantize(*t);
      if (!q.ok()) {
        return absl::Status(q.status().code(),
                            absl::StrFormat("tensor '%s': %s", name, q.status().message()));
      }
      EDGEQ_RETURN_IF_ERROR(out.Set(name, *std::move(q)));
    }
    if (decisions != nullptr) decisions->push_back(std::move(d));
    if (progress) progress(++done, total, name);
  }
  for (const std::string& key : dict.MetadataKeys()) {
    EDGEQ_ASSIGN_OR_RETURN(const MetadataValue* v, dict.GetMetadata(key));
    out.SetMetadata(key, *v);
  }
  return out;
}

std::string QuantizeProgressLine(int done, int total, const std::string& name) {
  constexpr int kWidth = 30;
  const int filled = total <= 0 ? kWidth : std::clamp(done, 0, total) * kWidth / total;
  return absl::StrFormat("\rquantizing [%s%s] %d/%d %-40.40s%s", std::string(filled, '#'),
                         std::string(kWidth - filled, ' '), done, total, name,
                         done == total ? "\n" : "");
}

void PrintQuantizeProgress(int done, int total, const std::string& name) {
  static const bool terminal = isatty(STDERR_FILENO) == 1;
  if (terminal) absl::FPrintF(stderr, "%s", QuantizeProgressLine(done, total, name));
}

}  // namespace checkpoint
}  // namespace edgeq
