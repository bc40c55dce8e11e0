#include "tools/llm_flags.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace tools {
namespace {

std::string Canonical(const OptionSpec& spec) {
  for (const std::string& n : spec.names) {
    if (absl::StartsWith(n, "--")) return n.substr(2);
  }
  return spec.names[0].substr(1);
}

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
    return absl::InvalidArgumentError(
        absl::StrFormat("--%s %s: expected a finite number", name, QuoteForError(it->second)));
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
  if (it == args.values.end()) return 0;
  const std::optional<int64_t> v = ParseDecimalInt64(it->second);
  if (!v.has_value() || *v < 0 || *v > max) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--threads %s: expected an integer in [0, %d] (0: the default; at most 4 x the %d "
        "online CPUs, at most %d)",
        QuoteForError(it->second), max, std::max<long>(sysconf(_SC_NPROCESSORS_ONLN), 1),
        kMaxThreadsCeiling));
  }
  return static_cast<int>(*v);
}

std::vector<OptionSpec> UbatchOptionSpecs() { return {{{"-ub", "--ubatch-size"}}}; }

absl::StatusOr<int> GetUbatch(const LlmArgs& args) {
  EDGEQ_ASSIGN_OR_RETURN(
      const int64_t ub,
      args.GetInt("ubatch-size", llm::ModelOptions().prefill_block, 1, llm::kMaxUbatchSize));
  return static_cast<int>(ub);
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
      return absl::InvalidArgumentError(absl::StrFormat(
          "unknown option %s (expected %s)", QuoteForError(name), absl::StrJoin(known, ", ")));
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
    const std::string v = args.Get(names[i], llm::KvCacheTypeName(llm::kDefaultKvCacheType));
    bool known = false;
    for (llm::KvCacheType t :
         {llm::KvCacheType::kF32, llm::KvCacheType::kF16, llm::KvCacheType::kQ8_0}) {
      if (v == llm::KvCacheTypeName(t)) {
        types[i] = t;
        known = true;
      }
    }
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrFormat("--%s: unsupported KV cache type %s; expected f32, f16 or q8_0", names[i],
                          QuoteForError(v)));
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

std::vector<OptionSpec> IsaOptionSpecs() { return {{{"--isa"}}}; }

absl::StatusOr<kernels::Isa> GetIsaCap(const LlmArgs& args) {
  if (!args.Has("isa")) return kernels::Isa::kBest;
  const std::string name = args.Get("isa");
  std::vector<std::string> supported;
  for (kernels::Isa isa : kernels::kAllIsas) {
    if (kernels::IsaSupported(isa)) supported.emplace_back(kernels::IsaName(isa));
  }
  supported.emplace_back("best");
  const absl::StatusOr<kernels::Isa> isa = kernels::IsaFromName(name);
  if (!isa.ok() || (*isa != kernels::Isa::kBest && !kernels::IsaSupported(*isa))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--isa %s: %s; expected one this CPU runs: %s", QuoteForError(name),
                        isa.ok() ? "this CPU cannot run it" : "unknown instruction set",
                        absl::StrJoin(supported, ", ")));
  }
  return *isa;
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

std::vector<OptionSpec> GrammarOptionSpecs() {
  return {{{"--grammar"}}, {{"--grammar-file"}}, {{"-j", "--json-schema"}}};
}

absl::StatusOr<GrammarFlag> ParseGrammarFlag(const LlmArgs& args) {
  GrammarFlag g;
  const std::pair<const char*, GrammarFlag::Kind> kinds[] = {
      {"grammar", GrammarFlag::Kind::kGbnf},
      {"grammar-file", GrammarFlag::Kind::kGbnfFile},
      {"json-schema", GrammarFlag::Kind::kJsonSchema},
  };
  std::string first;
  for (const auto& [name, kind] : kinds) {
    if (!args.Has(name)) continue;
    if (!first.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--%s and --%s both given; expected at most one of --grammar, --grammar-file, "
          "--json-schema",
          first, name));
    }
    first = name;
    g.kind = kind;
    g.value = args.Get(name);
    if (g.value.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "--%s is empty; expected %s", name,
          kind == GrammarFlag::Kind::kGbnfFile ? "a file name" : "a grammar or a JSON schema"));
    }
  }
  return g;
}

namespace {

// The options of GenerationFlags, after a command's own.
std::vector<OptionSpec> WithGenerationSpecs(std::vector<OptionSpec> specs) {
  const std::vector<OptionSpec> own = {{{"-n", "--n-predict"}},
                                       {{"-t", "--threads"}},
                                       {{"-c", "--ctx-size"}},
                                       {{"--ignore-eos"}, false}};
  for (const std::vector<OptionSpec>& group :
       {own, SamplerOptionSpecs(), IsaOptionSpecs(), KvCacheOptionSpecs(), GrammarOptionSpecs(),
        UbatchOptionSpecs()}) {
    specs.insert(specs.end(), group.begin(), group.end());
  }
  return specs;
}

// Parses `raw` against `specs` into f->args, checks for one MODEL argument (`usage` names the
// command's form) and reads GenerationFlags' values.
absl::Status ParseGenerationFlags(const std::vector<std::string>& raw,
                                  const std::vector<OptionSpec>& specs, absl::string_view usage,
                                  GenerationFlags* f) {
  EDGEQ_ASSIGN_OR_RETURN(f->args, ParseLlmArgs(raw, specs));
  const LlmArgs& args = f->args;
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "expected one MODEL argument, got %d (usage: %s)", args.positional.size(), usage));
  }
  f->model = args.positional[0];
  EDGEQ_ASSIGN_OR_RETURN(f->n_predict, args.GetInt("n-predict", -1, -1));
  EDGEQ_ASSIGN_OR_RETURN(f->threads, GetThreads(args));
  EDGEQ_ASSIGN_OR_RETURN(f->ctx, args.GetInt("ctx-size", 0, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(f->sampler, ParseSamplerOptions(args));
  EDGEQ_ASSIGN_OR_RETURN(f->isa_cap, GetIsaCap(args));
  EDGEQ_ASSIGN_OR_RETURN(f->cache_type, ParseKvCacheType(args));
  EDGEQ_ASSIGN_OR_RETURN(f->grammar, ParseGrammarFlag(args));
  EDGEQ_ASSIGN_OR_RETURN(f->ubatch, GetUbatch(args));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RunFlags> ParseRunFlags(const std::vector<std::string>& raw) {
  RunFlags f;
  EDGEQ_RETURN_IF_ERROR(ParseGenerationFlags(
      raw,
      WithGenerationSpecs(
          {{{"-p", "--prompt"}}, {{"-f", "--file"}}, {{"--tokenizer"}}, {{"--prompt-cache"}}}),
      "edgeq run MODEL -p TEXT [-n N] ...", &f));
  const LlmArgs& args = f.args;
  if (args.Has("prompt") == args.Has("file")) {
    return absl::InvalidArgumentError(args.Has("prompt")
                                          ? "-p TEXT and -f FILE both given; expected one"
                                          : "no prompt given (-p TEXT or -f FILE)");
  }
  f.prompt = args.Get("prompt");
  f.prompt_cache = args.Get("prompt-cache");
  if (args.Has("prompt-cache") && f.prompt_cache.empty()) {
    return absl::InvalidArgumentError("--prompt-cache is empty; expected a file name");
  }
  return f;
}

absl::StatusOr<ChatFlags> ParseChatFlags(const std::vector<std::string>& raw) {
  ChatFlags f;
  EDGEQ_RETURN_IF_ERROR(ParseGenerationFlags(
      raw, WithGenerationSpecs({{{"--system"}}, {{"--template"}}, {{"--verbose-prompt"}, false}}),
      "edgeq chat MODEL [--system TEXT] [--template NAME] ...", &f));
  return f;
}

absl::StatusOr<PerplexityFlags> ParsePerplexityFlags(const std::vector<std::string>& raw) {
  std::vector<OptionSpec> specs = {{{"-f", "--file"}},
                                   {{"-c", "--ctx-size"}},
                                   {{"-t", "--threads"}},
                                   {{"--chunks"}},
                                   {{"--tokenizer"}}};
  for (const OptionSpec& s : IsaOptionSpecs()) specs.push_back(s);
  for (const OptionSpec& s : KvCacheOptionSpecs()) specs.push_back(s);
  for (const OptionSpec& s : UbatchOptionSpecs()) specs.push_back(s);
  PerplexityFlags f;
  EDGEQ_ASSIGN_OR_RETURN(f.args, ParseLlmArgs(raw, specs));
  const LlmArgs& args = f.args;
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "expected one MODEL argument, got %d (usage: edgeq perplexity MODEL -f FILE [-c CTX])",
        args.positional.size()));
  }
  if (!args.Has("file")) return absl::InvalidArgumentError("no text file given (-f FILE)");
  f.model = args.positional[0];
  f.text_file = args.Get("file");
  EDGEQ_ASSIGN_OR_RETURN(f.n_ctx, args.GetInt("ctx-size", 512, 2, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(f.threads, GetThreads(args));
  EDGEQ_ASSIGN_OR_RETURN(f.max_chunks, args.GetInt("chunks", -1, -1));
  EDGEQ_ASSIGN_OR_RETURN(f.isa_cap, GetIsaCap(args));
  EDGEQ_ASSIGN_OR_RETURN(f.cache_type, ParseKvCacheType(args));
  EDGEQ_ASSIGN_OR_RETURN(f.ubatch, GetUbatch(args));
  return f;
}

absl::StatusOr<BenchFlags> ParseBenchFlags(const std::vector<std::string>& raw) {
  std::vector<OptionSpec> specs = {{{"-p", "--n-prompt"}},
                                   {{"-n", "--n-gen"}},
                                   {{"-r", "--repetitions"}},
                                   {{"-t", "--threads"}},
                                   {{"-ub", "--ubatch-size", "-b", "--batch"}},
                                   {{"-d", "--n-depth"}},
                                   {{"-o", "--output"}},
                                   {{"--profile"}, false},
                                   {{"--roofline"}, false}};
  for (const OptionSpec& s : IsaOptionSpecs()) specs.push_back(s);
  for (const OptionSpec& s : KvCacheOptionSpecs()) specs.push_back(s);
  BenchFlags f;
  EDGEQ_ASSIGN_OR_RETURN(f.args, ParseLlmArgs(raw, specs));
  const LlmArgs& args = f.args;
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "expected one MODEL argument, got %d (usage: edgeq bench MODEL [-p 512] [-n 128] ...)",
        args.positional.size()));
  }
  f.model = args.positional[0];
  EDGEQ_ASSIGN_OR_RETURN(f.n_prompt, args.GetInt("n-prompt", 512, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(f.n_gen, args.GetInt("n-gen", 128, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(f.reps, args.GetInt("repetitions", 5, 1, 1000));
  EDGEQ_ASSIGN_OR_RETURN(f.threads, args.GetIntList("threads", {1, 2}, 1, MaxThreads()));
  EDGEQ_ASSIGN_OR_RETURN(f.ubatch, GetUbatch(args));
  EDGEQ_ASSIGN_OR_RETURN(f.depths, args.GetIntList("n-depth", {0}, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(f.isa_cap, GetIsaCap(args));
  EDGEQ_ASSIGN_OR_RETURN(f.cache_type, ParseKvCacheType(args));
  f.format = args.Get("output", "md");
  if (f.format != "md" && f.format != "csv" && f.format != "json") {
    return absl::InvalidArgumentError(
        absl::StrFormat("-o %s: expected md, csv or json", QuoteForError(f.format)));
  }
  if (f.n_prompt == 0 && f.n_gen == 0) {
    return absl::InvalidArgumentError("nothing to measure: -p and -n are both 0");
  }
  return f;
}

absl::StatusOr<LlmArgs> ParseTokenizeFlags(const std::vector<std::string>& raw) {
  const std::vector<OptionSpec> specs = {{{"--ids"}, /*takes_value=*/false},
                                         {{"--no-bos"}, false},
                                         {{"--parse-special"}, false},
                                         {{"--tokenizer"}}};
  EDGEQ_ASSIGN_OR_RETURN(LlmArgs args, ParseLlmArgs(raw, specs));
  if (args.positional.size() != 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "expected MODEL and TEXT, got %d arguments (usage: edgeq tokenize MODEL TEXT [--ids])",
        args.positional.size()));
  }
  return args;
}

}  // namespace tools
}  // namespace edgeq
