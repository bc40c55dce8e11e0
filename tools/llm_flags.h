// The options of `edgeq run`, `chat`, `perplexity`, `bench` and `tokenize`, llama.cpp-style
// (`-p TEXT`, `--temp 0.7`, `--temp=0.7`), parsed and checked without opening a model or
// reading a file, so that tests and the CLI-argument fuzzer (tests/fuzz/cli_args_fuzzer.cc)
// reach every flag check. Errors are InvalidArgument with a one-line message naming the flag,
// its value (quoted and cut, see QuoteForError) and what is allowed.
#ifndef EDGEQ_TOOLS_LLM_FLAGS_H_
#define EDGEQ_TOOLS_LLM_FLAGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "runtime/kernels/isa.h"

namespace edgeq {
namespace tools {

struct OptionSpec {
  std::vector<std::string> names;  // e.g. {"-p", "--prompt"}; the first long one is canonical
  bool takes_value = true;
};

struct LlmArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;  // canonical name (without dashes) -> value

  bool Has(absl::string_view name) const { return values.count(std::string(name)) > 0; }
  std::string Get(absl::string_view name, absl::string_view default_value = "") const;
  // The value as a strict decimal integer (ParseDecimalInt64: 64-bit, no "+", no leading zeros)
  // in [lo, hi]; the default range is int's, so that the value never narrows silently.
  // InvalidArgument naming the option, the value (quoted, cut) and the range otherwise.
  absl::StatusOr<int64_t> GetInt(absl::string_view name, int64_t default_value,
                                 int64_t lo = INT32_MIN, int64_t hi = INT32_MAX) const;
  // A finite float; InvalidArgument naming the option and the value otherwise.
  absl::StatusOr<float> GetFloat(absl::string_view name, float default_value) const;
  // "1,2,4" -> {1, 2, 4} (each in [lo, hi], strict decimal).
  absl::StatusOr<std::vector<int>> GetIntList(absl::string_view name,
                                              const std::vector<int>& default_value, int lo,
                                              int hi) const;
};

// Parses `raw` (the arguments after the command). InvalidArgument naming an unknown option
// (listing the known ones) or an option missing its value.
absl::StatusOr<LlmArgs> ParseLlmArgs(const std::vector<std::string>& raw,
                                     const std::vector<OptionSpec>& specs);

// The sampling options `edgeq run` and `edgeq chat` share: --temp, --top-k, --top-p, --min-p,
// --repeat-penalty, --repeat-last-n, --presence-penalty, --frequency-penalty, -s/--seed.
std::vector<OptionSpec> SamplerOptionSpecs();
// Their values over llama.cpp's defaults; InvalidArgument naming an option whose value is not a
// number.
absl::StatusOr<llm::SamplerOptions> ParseSamplerOptions(const LlmArgs& args);

// The most threads -t/--threads may ask for: 4 x the online CPUs, at most kMaxThreadsCeiling
// (more only oversubscribe the cores, and each thread reserves a stack: -t 1024 once hung in
// pthreadpool_create when the address space ran out).
inline constexpr int kMaxThreadsCeiling = 256;
int MaxThreads();
// -t/--threads of run, chat and perplexity in [0, MaxThreads()] (0 or absent: 0, which the
// command turns into kernels::DefaultThreadCount()); InvalidArgument naming the option, the
// value and the range otherwise.
absl::StatusOr<int> GetThreads(const LlmArgs& args);

// The KV cache options of run, chat, perplexity and bench, as llama.cpp spells them:
// -ctk/--cache-type-k and -ctv/--cache-type-v, each f16 (default: llm::kDefaultKvCacheType), f32
// or q8_0.
std::vector<OptionSpec> KvCacheOptionSpecs();
// Usage lines for them.
#define EDGEQ_KV_CACHE_USAGE                                                                    \
  "  -ctk, --cache-type-k TYPE  KV cache type: f16 (default, as llama.cpp's), f32 (twice the\n" \
  "                             memory and the bytes a step reads) or q8_0 (1.88x less than\n"  \
  "                             f16; -ctv, --cache-type-v, must be the same)\n"
// The cache type they ask for. InvalidArgument naming the option and its value for a type other
// than f32, f16 or q8_0, or for K and V of different types.
absl::StatusOr<llm::KvCacheType> ParseKvCacheType(const LlmArgs& args);

// -ub/--ubatch-size N of run, chat, perplexity and bench (bench also takes its older -b/--batch):
// the most prompt tokens per prefill graph run, in [1, llm::kMaxUbatchSize] (1: token by token).
std::vector<OptionSpec> UbatchOptionSpecs();
#define EDGEQ_UBATCH_USAGE                                                                    \
  "  -ub, --ubatch-size N     prompt tokens per prefill graph run (default 512, llama.cpp's " \
  "ubatch;\n"                                                                                 \
  "                           1: one at a time; at most 4096)\n"
// The value, or without the flag llm::ModelOptions' default (the one prefill rule,
// llm/prefill_plan.h). InvalidArgument naming the flag, the value and the range otherwise.
absl::StatusOr<int> GetUbatch(const LlmArgs& args);

// --isa NAME of run, chat, perplexity and bench: the highest instruction-set level the kernels
// may use (kernels::Isa: generic, avx2, avxvnni, avx512vnni, neon, dotprod, i8mm, best), e.g.
// `--isa avx2` to run an AVX2-only machine's kernels on a newer CPU.
std::vector<OptionSpec> IsaOptionSpecs();
#define EDGEQ_ISA_USAGE                                                                   \
  "  --isa NAME               highest kernel instruction set: generic, avx2, avxvnni,\n"  \
  "                           avx512vnni (x86-64), neon, dotprod, i8mm (ARM64) or best\n" \
  "                           (default); e.g. avx2 runs the kernels of an AVX2-only CPU\n"
// kernels::Isa::kBest without the flag. InvalidArgument naming the flag and the value for an
// unknown name or a level this CPU cannot run (listing the ones it can).
absl::StatusOr<kernels::Isa> GetIsaCap(const LlmArgs& args);

// Constrained output (`edgeq run`): --grammar GBNF, --grammar-file FILE, -j/--json-schema JSON,
// as llama.cpp spells them; at most one of them.
std::vector<OptionSpec> GrammarOptionSpecs();
struct GrammarFlag {
  enum class Kind { kNone, kGbnf, kGbnfFile, kJsonSchema };
  Kind kind = Kind::kNone;
  std::string value;  // the text, or the file's path for kGbnfFile
};
// InvalidArgument naming both flags when more than one is given, or an empty value.
absl::StatusOr<GrammarFlag> ParseGrammarFlag(const LlmArgs& args);

// Each command's flags. Parse*Flags take the arguments after the command name.

// What `run` and `chat` share: a model, how much to generate and how (-n, -t, -c, the sampler,
// the KV cache type, a grammar, -ub, --isa).
struct GenerationFlags {
  LlmArgs args;
  std::string model;
  int64_t n_predict = -1;  // in [-1, INT32_MAX]
  int threads = 0;         // in [0, MaxThreads()]; 0: kernels::DefaultThreadCount()
  int64_t ctx = 0;         // in [0, 2^20]
  llm::SamplerOptions sampler;
  llm::KvCacheType cache_type = llm::kDefaultKvCacheType;
  GrammarFlag grammar;  // run: the whole output; chat: each reply is a sentence of it
  int ubatch = 0;       // GetUbatch
  kernels::Isa isa_cap = kernels::Isa::kBest;  // GetIsaCap
};

struct RunFlags : GenerationFlags {
  std::string prompt;
  std::string prompt_cache;  // --prompt-cache FILE (llm/state_file.h LoadPromptCache)
};
absl::StatusOr<RunFlags> ParseRunFlags(const std::vector<std::string>& raw);

struct ChatFlags : GenerationFlags {};
absl::StatusOr<ChatFlags> ParseChatFlags(const std::vector<std::string>& raw);

struct PerplexityFlags {
  LlmArgs args;
  std::string model, text_file;
  int64_t n_ctx = 512;      // in [2, 2^20]
  int threads = 0;          // as RunFlags::threads
  int64_t max_chunks = -1;  // in [-1, INT32_MAX]
  llm::KvCacheType cache_type = llm::kDefaultKvCacheType;
  int ubatch = 0;                              // GetUbatch
  kernels::Isa isa_cap = kernels::Isa::kBest;  // GetIsaCap
};
absl::StatusOr<PerplexityFlags> ParsePerplexityFlags(const std::vector<std::string>& raw);

struct BenchFlags {
  LlmArgs args;
  std::string model, format;
  int64_t n_prompt = 512, n_gen = 128, reps = 5;
  int ubatch = 0;            // GetUbatch
  std::vector<int> threads;  // each in [1, MaxThreads()]
  std::vector<int> depths;   // -d/--n-depth: KV cache positions filled before each test
  llm::KvCacheType cache_type = llm::kDefaultKvCacheType;
  kernels::Isa isa_cap = kernels::Isa::kBest;  // GetIsaCap
};
absl::StatusOr<BenchFlags> ParseBenchFlags(const std::vector<std::string>& raw);

absl::StatusOr<LlmArgs> ParseTokenizeFlags(const std::vector<std::string>& raw);

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_LLM_FLAGS_H_
