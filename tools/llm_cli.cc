#include "tools/llm_cli.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "grammar/json_schema.h"

namespace edgeq {
namespace tools {
absl::StatusOr<std::shared_ptr<const grammar::Grammar>> LoadGrammar(const GrammarFlag& flag) {
  std::string text = flag.value;
  const char* name = "--grammar";
  switch (flag.kind) {
    case GrammarFlag::Kind::kNone:
      return std::shared_ptr<const grammar::Grammar>();
    case GrammarFlag::Kind::kGbnf:
      break;
    case GrammarFlag::Kind::kGbnfFile: {
      name = "--grammar-file";
      EDGEQ_ASSIGN_OR_RETURN(
          text, ReadFileBounded(flag.value, grammar::Limits().max_input_bytes, "grammar file"));
      break;
    }
    case GrammarFlag::Kind::kJsonSchema: {
      name = "--json-schema";
      absl::StatusOr<std::string> gbnf = grammar::JsonSchemaToGbnf(flag.value);
      if (!gbnf.ok()) {
        return absl::Status(gbnf.status().code(),
                            absl::StrCat(name, ": ", gbnf.status().message()));
      }
      text = *std::move(gbnf);
      break;
    }
  }
  absl::StatusOr<std::shared_ptr<const grammar::Grammar>> g = grammar::ParseGbnf(text);
  if (!g.ok()) {
    std::string where = name;
    if (flag.kind == GrammarFlag::Kind::kGbnfFile) where = flag.value;
    return absl::Status(g.status().code(), absl::StrCat(where, ": ", g.status().message()));
  }
  return *std::move(g);
}

absl::Status ConstrainSampler(std::shared_ptr<const grammar::Grammar> grammar,
                              const TextTokenizer& tok, int vocab_size, llm::Sampler* sampler) {
  if (grammar == nullptr) return absl::OkStatus();
  std::vector<std::string> pieces(vocab_size);
  for (int i = 0; i < vocab_size; ++i) pieces[i] = tok.TokenBytes(i);
  std::vector<int> eog = tok.stop_tokens();
  for (int id : eog) {
    if (id >= 0 && id < vocab_size) pieces[id].clear();
  }
  return sampler->SetGrammar(std::move(grammar),
                             std::make_shared<const llm::GrammarVocab>(std::move(pieces), eog));
}

int LlmFail(absl::string_view command, const absl::Status& status) {
  std::string message(status.message());
  std::replace(message.begin(), message.end(), '\n', ' ');
  absl::FPrintF(stderr, "edgeq %s: error: %s\n", command, message);
  return 1;
}

uint64_t ParameterCount(const checkpoint::TensorDict& dict) {
  uint64_t n = 0;
  for (const std::string& name : dict.Keys()) {
    n += static_cast<uint64_t>((*dict.Get(name))->logical_shape().num_elements());
  }
  return n;
}

std::string ParamsLabel(uint64_t params) {
  if (params >= 1000000000ull) return absl::StrFormat("%.2fB", params / 1e9);
  if (params >= 1000000ull) return absl::StrFormat("%.2fM", params / 1e6);
  return absl::StrFormat("%.2fK", params / 1e3);
}

std::string WeightTypeLabel(const checkpoint::TensorDict& dict) {
  // The type holding most of the matrix weights, upper-case as llama.cpp prints it.
  std::map<std::string, uint64_t> by_type;
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    if (t.logical_shape().rank() < 2) continue;
    const std::string type = t.is_quantized() ? t.encoding() : std::string(DTypeName(t.dtype()));
    by_type[type] += static_cast<uint64_t>(t.logical_shape().num_elements());
  }
  if (by_type.empty()) return "?";
  auto best = std::max_element(by_type.begin(), by_type.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string label = best->first;
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return by_type.size() > 1 ? absl::StrCat(label, " (mixed)") : label;
}

std::string MemoryReport(const llm::Model& model) {
  const std::vector<int> blocks = model.loaded_block_sizes();
  return absl::StrFormat(
      "KV cache %.2f MiB (%s), activations %.2f MiB (ubatch %d; prefill blocks built: %s)",
      model.kv_cache_bytes() / 1048576.0, llm::KvCacheTypeName(model.kv_cache_type()),
      model.activation_bytes() / 1048576.0, model.ubatch_size(),
      blocks.empty() ? "none" : absl::StrJoin(blocks, ", "));
}

uint64_t PeakRssBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "VmHWM:")) {
      uint64_t kb = 0;
      std::string v(absl::StripAsciiWhitespace(line.substr(6)));
      if (absl::EndsWith(v, " kB")) v.resize(v.size() - 3);
      if (absl::SimpleAtoi(v, &kb)) return kb * 1024;
    }
  }
  return 0;
}

}  // namespace tools
}  // namespace edgeq
