#include "examples/tinystories/rules.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "examples/tinystories/internal/quant.h"

namespace edgeq {
namespace tinystories {
namespace {

absl::StatusOr<std::string> CheckEncoding(absl::string_view e, absl::string_view where) {
  std::string lower = absl::AsciiStrToLower(e);
  if (lower == "none") lower = "f32";
  if (lower == "f32" || internal::IsKnownEncoding(lower)) return lower;
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: unknown encoding '%s' (expected one of q4_0, q8_0, bf16, f32, none)", where, e));
}

}  // namespace

absl::StatusOr<std::vector<Rule>> DefaultRules(absl::string_view encoding) {
  EDGEQ_ASSIGN_OR_RETURN(std::string e, CheckEncoding(encoding, "--encoding"));
  return std::vector<Rule>{{"*", e}};
}

absl::StatusOr<std::vector<Rule>> ParseRules(absl::string_view text, absl::string_view source) {
  std::vector<Rule> rules;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    const size_t hash = line.find('#');
    if (hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    std::vector<absl::string_view> parts;
    const size_t arrow = line.find("->");
    if (arrow != absl::string_view::npos) {
      parts = {absl::StripAsciiWhitespace(line.substr(0, arrow)),
               absl::StripAsciiWhitespace(line.substr(arrow + 2))};
    } else {
      parts = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    }
    const std::string where = absl::StrFormat("%s:%d", source, line_no);
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: expected 'PATTERN -> ENCODING', got '%s'", where, line));
    }
    EDGEQ_ASSIGN_OR_RETURN(std::string e, CheckEncoding(parts[1], where));
    rules.push_back({std::string(parts[0]), e});
  }
  return rules;
}

absl::StatusOr<std::vector<Rule>> LoadRules(const std::string& path) {
  std::ifstream file(path);
  if (!file) return absl::NotFoundError(absl::StrFormat("rules file '%s' cannot be opened", path));
  std::stringstream buffer;
  buffer << file.rdbuf();
  return ParseRules(buffer.str(), path);
}

EncodingDecision Decide(const std::string& name, const Shape& shape,
                        const std::vector<Rule>& rules) {
  EncodingDecision d;
  d.name = name;
  d.requested = "f32";
  for (const Rule& r : rules) {
    if (fnmatch(r.pattern.c_str(), name.c_str(), 0) == 0) {
      d.requested = r.encoding;
      break;
    }
  }
  if (shape.rank() < 2) {  // norms stay f32
    d.requested = d.chosen = "f32";
    return d;
  }
  const int64_t k = shape.dim(-1);
  static const char* kChain[] = {"q4_0", "q8_0", "bf16", "f32"};
  int start = 0;
  while (start < 4 && d.requested != kChain[start]) ++start;
  for (int i = start; i < 4; ++i) {
    const int epb = i == 3 ? 1 : internal::ElementsPerBlock(kChain[i]);
    if (k % epb == 0) {
      d.chosen = kChain[i];
      break;
    }
  }
  if (d.chosen != d.requested) {
    d.note = absl::StrFormat("K = %d is not a multiple of %d", k,
                             internal::ElementsPerBlock(d.requested));
  }
  return d;
}

absl::StatusOr<LlamaWeights> QuantizeWeights(const LlamaWeights& f32,
                                             const std::vector<Rule>& rules,
                                             std::vector<EncodingDecision>* decisions,
                                             const std::function<void(int, int)>& progress) {
  EDGEQ_RETURN_IF_ERROR(f32.Validate());
  LlamaWeights out;
  out.config = f32.config;
  const int total = static_cast<int>(f32.tensors.size());
  int done = 0;
  for (const auto& [name, t] : f32.tensors) {
    if (t.is_quantized() || t.dtype() != DType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "QuantizeWeights: '%s' is %s; the input must be f32", name, t.DebugString()));
    }
    EncodingDecision d = Decide(name, t.shape(), rules);
    if (d.chosen == "f32") {
      out.tensors[name] = t;
    } else {
      EDGEQ_ASSIGN_OR_RETURN(out.tensors[name], internal::Quantize(t, d.chosen));
    }
    if (decisions != nullptr) decisions->push_back(std::move(d));
    if (progress) progress(++done, total);
  }
  return out;
}

}  // namespace tinystories
}  // namespace edgeq
