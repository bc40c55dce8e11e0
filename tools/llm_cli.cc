#include "tools/llm_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "examples/tinystories/tokenizer.h"
#include "llm/tokenizer.h"
#include "runtime/kernels/cpu_features.h"

namespace edgeq {
namespace tools {
namespace {

std::string Canonical(const OptionSpec& spec) {
  for (const std::string& n : spec.names) {
    if (absl::StartsWith(n, "--")) return n.substr(2);
  }
  return spec.names[0].substr(1);
}

// The llama2.c/SentencePiece tokenizer of examples/tinystories.
// A llama2.c tokenizer file (--tokenizer), encoded as run.c does.
class Llama2cFileTokenizer : public TextTokenizer {
 public:
  Llama2cFileTokenizer(tinystories::Tokenizer tok, int bos, int eos, bool add_bos)
      : tok_(std::move(tok)), bos_(bos), eos_(eos), add_bos_(add_bos) {}
  absl::StatusOr<std::vector<int>> Encode(absl::string_view text, bool add_bos,
                                          bool /*parse_special*/) const override {
    std::vector<int> ids = tok_.Encode(text, /*bos=*/false, /*eos=*/false);
    if (add_bos) ids.insert(ids.begin(), bos_);
    return ids;
  }
  std::string Decode(int prev, int token) const override { return tok_.Decode(prev, token); }
  int bos() const override { return bos_; }
  int eos() const override { return eos_; }
  bool add_bos() const override { return add_bos_; }
  std::string PieceText(int token) const override {
    return token >= 0 && token < tok_.vocab_size() ? tok_.piece(token) : "";
  }

 private:
  tinystories::Tokenizer tok_;
  int bos_, eos_;
  bool add_bos_;
};

// The model's own vocabulary, through llm::Tokenizer (llama.cpp's tokenizers).
class VocabTokenizer : public TextTokenizer {
 public:
  explicit VocabTokenizer(llm::Tokenizer tok) : tok_(std::move(tok)) {}
  absl::StatusOr<std::vector<int>> Encode(absl::string_view text, bool add_bos,
                                          bool parse_special) const override {
    EDGEQ_ASSIGN_OR_RETURN(
        std::vector<int32_t> ids,
        tok_.Encode(text, {.add_special = false, .parse_special = parse_special}));
    if (add_bos && tok_.bos_id() >= 0) ids.insert(ids.begin(), tok_.bos_id());
    return std::vector<int>(ids.begin(), ids.end());
  }
  std::string Decode(int prev, int token) const override {
    std::string piece = tok_.TokenToPiece(token, /*special=*/false);
    // As llama.cpp's detokenizer: the space prefix SPM adds to the text is not printed.
    if (prev == tok_.bos_id() && tok_.add_space_prefix() && !piece.empty() && piece[0] == ' ') {
      piece.erase(0, 1);
    }
    return piece;
  }
  int bos() const override { return tok_.bos_id(); }
  int eos() const override { return tok_.eos_id(); }
  bool add_bos() const override { return tok_.add_bos(); }
  std::vector<int> stop_tokens() const override {
    std::vector<int> ids(tok_.eog_ids().begin(), tok_.eog_ids().end());
    if (ids.empty() && tok_.eos_id() >= 0) ids.push_back(tok_.eos_id());
    return ids;
  }
  std::string PieceText(int token) const override {
    return tok_.TokenToPiece(token, /*special=*/true);
  }

 private:
  llm::Tokenizer tok_;
};

}  // namespace

std::string LlmArgs::Get(absl::string_view name, absl::string_view default_value) const {
  auto it = values.find(std::string(name));
  return it == values.end() ? std::string(default_value) : it->second;
}

absl::StatusOr<int64_t> LlmArgs::GetInt(absl::string_view name, int64_t default_value, int64_t lo,
                                        int64_t hi) const {
  auto it = values.find(std::string(name));
  if (it == values.end()) return default_value;
  const std::optional<int64_t> v = ParseDecimalInt64(it->second);
  if (!v.has_value() || *v < lo || *v > hi) {
    return absl::InvalidArgumentError(absl::StrFormat("--%s %s: expected an integer in [%d, %d]",
                                                      name, QuoteForError(it->second), lo, hi));
  }
  return *v;
}

absl::StatusOr<float> LlmArgs::GetFloat(absl::string_view name, float default_value) const {
  auto it = values.find(std::string(name));
  if (it == values.end()) return default_value;
  float v;
  if (!absl::SimpleAtof(it->second, &v) || !std::isfinite(v)) {
    return absl::InvalidArgumentError(absl::StrFormat("--%s %s: expected a finite number", name,
                                                      QuoteForError(it->second)));
  }
  return v;
}

absl::StatusOr<std::vector<int>> LlmArgs::GetIntList(absl::string_view name,
                                                     const std::vector<int>& default_value, int lo,
                                                     int hi) const {
  auto it = values.find(std::string(name));
  if (it == values.end()) return default_value;
  std::vector<int> out;
  for (absl::string_view part : absl::StrSplit(it->second, ',')) {
    const std::optional<int64_t> v = ParseDecimalInt64(part);
    if (!v.has_value() || *v < lo || *v > hi || out.size() >= 64) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--%s %s: expected a comma-separated list of at most 64 integers in [%d, %d]", name,
          QuoteForError(it->second), lo, hi));
    }
    out.push_back(static_cast<int>(*v));
  }
  return out;
}

int MaxThreads() {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int64_t cpus = online > 0 ? online : 1;
  return static_cast<int>(std::min<int64_t>(4 * cpus, kMaxThreadsCeiling));
}

absl::StatusOr<int> GetThreads(const LlmArgs& args) {
  const int max = MaxThreads();
  auto it = args.values.find("threads");
  if (it == args.values.end()) return kernels::DefaultThreadCount();
  const std::optional<int64_t> v = ParseDecimalInt64(it->second);
  if (!v.has_value() || *v < 0 || *v > max) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--threads %s: expected an integer in [0, %d] (0: the default; at most 4 x the %d "
        "online CPUs, at most %d)",
        QuoteForError(it->second), max, std::max<long>(sysconf(_SC_NPROCESSORS_ONLN), 1),
        kMaxThreadsCeiling));
  }
  return *v == 0 ? kernels::DefaultThreadCount() : static_cast<int>(*v);
}

absl::StatusOr<LlmArgs> ParseLlmArgs(const std::vector<std::string>& raw,
                                     const std::vector<OptionSpec>& specs) {
  LlmArgs args;
  bool options_done = false;
  for (size_t i = 0; i < raw.size(); ++i) {
    const std::string& a = raw[i];
    if (options_done || a.size() < 2 || a[0] != '-' || (a[1] >= '0' && a[1] <= '9')) {
      args.positional.push_back(a);
      continue;
    }
    if (a == "--") {
      options_done = true;
      continue;
    }
    std::string name = a, value;
    bool has_inline_value = false;
    if (absl::StartsWith(a, "--")) {
      const size_t eq = a.find('=');
      if (eq != std::string::npos) {
        name = a.substr(0, eq);
        value = a.substr(eq + 1);
        has_inline_value = true;
      }
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) spec = &s;
    }
    if (spec == nullptr) {
      std::vector<std::string> known;
      for (const OptionSpec& s : specs) known.push_back(absl::StrJoin(s.names, "/"));
      return absl::InvalidArgumentError(
          absl::StrFormat("unknown option '%s' (expected %s)", name, absl::StrJoin(known, ", ")));
    }
    if (!spec->takes_value) {
      if (has_inline_value) {
        return absl::InvalidArgumentError(absl::StrFormat("option %s takes no value", name));
      }
      args.values[Canonical(*spec)] = "true";
      continue;
    }
    if (!has_inline_value) {
      if (i + 1 >= raw.size()) {
        return absl::InvalidArgumentError(absl::StrFormat("option %s needs a value", name));
      }
      value = raw[++i];
    }
    args.values[Canonical(*spec)] = value;
  }
  return args;
}

std::vector<OptionSpec> SamplerOptionSpecs() {
  return {{{"--temp"}},
          {{"--top-k"}},
          {{"--top-p"}},
          {{"--min-p"}},
          {{"--repeat-penalty"}},
          {{"--repeat-last-n"}},
          {{"--presence-penalty"}},
          {{"--frequency-penalty"}},
          {{"-s", "--seed"}}};
}

std::vector<OptionSpec> KvCacheOptionSpecs() {
  return {{{"-ctk", "--cache-type-k"}}, {{"-ctv", "--cache-type-v"}}};
}

absl::StatusOr<llm::KvCacheType> ParseKvCacheType(const LlmArgs& args) {
  llm::KvCacheType types[2];
  const char* names[2] = {"cache-type-k", "cache-type-v"};
  for (int i = 0; i < 2; ++i) {
    const std::string v = args.Get(names[i], "f32");
    if (v == "f32") {
      types[i] = llm::KvCacheType::kF32;
    } else if (v == "q8_0") {
      types[i] = llm::KvCacheType::kQ8_0;
    } else {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--%s: unsupported KV cache type '%s'; expected f32 or q8_0", names[i], v));
    }
  }
  if (args.Has("cache-type-k") && args.Has("cache-type-v") && types[0] != types[1]) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--cache-type-k is %s but --cache-type-v is %s; edgeq keeps K and V in one type",
        args.Get("cache-type-k"), args.Get("cache-type-v")));
  }
  // One of them given: both take it.
  return args.Has("cache-type-k") ? types[0] : types[1];
}

absl::StatusOr<llm::SamplerOptions> ParseSamplerOptions(const LlmArgs& args) {
  llm::SamplerOptions so;
  EDGEQ_ASSIGN_OR_RETURN(so.temperature, args.GetFloat("temp", so.temperature));
  // <= 0: off, as llama.cpp takes it.
  EDGEQ_ASSIGN_OR_RETURN(int64_t top_k, args.GetInt("top-k", so.top_k));
  so.top_k = static_cast<int>(std::max<int64_t>(top_k, 0));
  EDGEQ_ASSIGN_OR_RETURN(so.top_p, args.GetFloat("top-p", so.top_p));
  EDGEQ_ASSIGN_OR_RETURN(so.min_p, args.GetFloat("min-p", so.min_p));
  EDGEQ_ASSIGN_OR_RETURN(so.repeat_penalty, args.GetFloat("repeat-penalty", so.repeat_penalty));
  EDGEQ_ASSIGN_OR_RETURN(int64_t last_n, args.GetInt("repeat-last-n", so.penalty_last_n, -1));
  so.penalty_last_n = static_cast<int>(last_n);
  EDGEQ_ASSIGN_OR_RETURN(so.presence_penalty,
                         args.GetFloat("presence-penalty", so.presence_penalty));
  EDGEQ_ASSIGN_OR_RETURN(so.frequency_penalty,
                         args.GetFloat("frequency-penalty", so.frequency_penalty));
  EDGEQ_ASSIGN_OR_RETURN(int64_t seed, args.GetInt("seed", -1, -1, 0xFFFFFFFFll));
  so.seed = seed < 0 ? llm::kRandomSeed : static_cast<uint32_t>(seed);
  return so;
}

absl::StatusOr<std::unique_ptr<TextTokenizer>> OpenTokenizer(const checkpoint::TensorDict& dict,
                                                             const std::string& model_path,
                                                             const std::string& tokenizer_path,
                                                             int vocab_size) {
  if (tokenizer_path.empty() && dict.HasMetadata("tokenizer.ggml.model")) {
    absl::StatusOr<llm::Tokenizer> vocab = llm::Tokenizer::FromGguf(dict);
    if (!vocab.ok()) {
      return absl::Status(vocab.status().code(), absl::StrFormat("'%s': vocabulary: %s", model_path,
                                                                 vocab.status().message()));
    }
    if (vocab_size > 0 && vocab->n_tokens() != vocab_size) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "'%s': its vocabulary has %d tokens, but the model's embedding has %d rows", model_path,
          vocab->n_tokens(), vocab_size));
    }
    return std::unique_ptr<TextTokenizer>(new VocabTokenizer(*std::move(vocab)));
  }
  // A llama2.c tokenizer file: special ids from the model's metadata where it has them.
  EDGEQ_ASSIGN_OR_RETURN(
      tinystories::Tokenizer tok,
      tinystories::Tokenizer::ForModel(dict, model_path, tokenizer_path, vocab_size));
  auto get_int = [&](const char* key, int dflt) {
    absl::StatusOr<int64_t> v = dict.GetInt(key);
    return v.ok() ? static_cast<int>(*v) : dflt;
  };
  const int bos = get_int("tokenizer.ggml.bos_token_id", tinystories::kBosId);
  const int eos = get_int("tokenizer.ggml.eos_token_id", tinystories::kEosId);
  bool add_bos = true;
  if (dict.HasMetadata("tokenizer.ggml.add_bos_token")) {
    add_bos = (*dict.GetMetadata("tokenizer.ggml.add_bos_token"))->bool_value();
  }
  return std::unique_ptr<TextTokenizer>(
      new Llama2cFileTokenizer(std::move(tok), bos, eos, add_bos));
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
