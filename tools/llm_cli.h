// Shared parts of `edgeq run`, `edgeq perplexity` and `edgeq bench`: llama.cpp-style options
// (`-p TEXT`, `--temp 0.7`, `--temp=0.7`), opening a model with its vocabulary, and the text
// tokenizer a model carries.
#ifndef EDGEQ_TOOLS_LLM_CLI_H_
#define EDGEQ_TOOLS_LLM_CLI_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/formats.h"
#include "checkpoint/tensor_dict.h"
#include "llm/model.h"
#include "llm/sampler.h"

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
// -t/--threads of run, chat and perplexity: 0 or absent = kernels::DefaultThreadCount(), else
// in [1, MaxThreads()]; InvalidArgument naming the option, the value and the range otherwise.
absl::StatusOr<int> GetThreads(const LlmArgs& args);

// The KV cache options of run, chat, perplexity and bench, as llama.cpp spells them:
// -ctk/--cache-type-k and -ctv/--cache-type-v, each f32 (default) or q8_0.
std::vector<OptionSpec> KvCacheOptionSpecs();
// Usage lines for them.
#define EDGEQ_KV_CACHE_USAGE                                                               \
  "  -ctk, --cache-type-k TYPE  KV cache type: f32 (default) or q8_0 (3.76x less memory; " \
  "-ctv,\n"                                                                                \
  "                             --cache-type-v, must be the same)\n"
// The cache type they ask for. InvalidArgument naming the option and its value for a type other
// than f32 or q8_0 (f16 included: edgeq keeps f32 or q8_0), or for K and V of different types.
absl::StatusOr<llm::KvCacheType> ParseKvCacheType(const LlmArgs& args);

// A text tokenizer for a model: the vocabulary the model carries (tokenizer.ggml.*: SPM, BPE
// or WordPiece through llm::Tokenizer, as llama.cpp tokenizes), or a llama2.c tokenizer file
// (--tokenizer, encoded as llama2.c's run.c does).
class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;
  // Ids of `text`, with BOS first if `add_bos`. `parse_special`: control tokens written in the
  // text ("<|im_end|>") become their ids. Errors only for pathological input.
  virtual absl::StatusOr<std::vector<int>> Encode(absl::string_view text, bool add_bos,
                                                  bool parse_special = false) const = 0;
  // The bytes of `token` after `prev` (streaming; a UTF-8 character may span two tokens).
  virtual std::string Decode(int prev, int token) const = 0;
  virtual int bos() const = 0;
  virtual int eos() const = 0;
  virtual bool add_bos() const = 0;
  // The tokens that end generation (EOS, and end-of-turn tokens of chat vocabularies).
  virtual std::vector<int> stop_tokens() const { return {eos()}; }
  // The bytes `token` stands for, control tokens included (llama-tokenize's pieces).
  virtual std::string PieceText(int token) const = 0;
};

// The tokenizer for `dict` (whose model has `vocab_size` tokens): `tokenizer_path` (a llama2.c
// tokenizer file) if given, else the model's own vocabulary (llm::Tokenizer::FromGguf). Its
// errors name the unsupported tokenizer.ggml.model or pre-tokenizer; InvalidArgument naming the
// model if it carries no vocabulary, or one whose size is not the model's (vocab_size > 0;
// 0 skips that check, e.g. for a vocabulary-only GGUF).
absl::StatusOr<std::unique_ptr<TextTokenizer>> OpenTokenizer(const checkpoint::TensorDict& dict,
                                                             const std::string& model_path,
                                                             const std::string& tokenizer_path,
                                                             int vocab_size);

// Prints "edgeq COMMAND: error: MESSAGE" (one line) to stderr and returns 1.
int LlmFail(absl::string_view command, const absl::Status& status);

// "135.0M" style parameter count and the dominant weight type ("F32", "Q4_0", "Q8_0 (mixed)").
std::string ParamsLabel(uint64_t params);
std::string WeightTypeLabel(const checkpoint::TensorDict& dict);
uint64_t ParameterCount(const checkpoint::TensorDict& dict);

// Peak resident set size of this process (VmHWM from /proc/self/status) in bytes; 0 if unknown.
uint64_t PeakRssBytes();

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_LLM_CLI_H_
