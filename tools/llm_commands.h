// The flags of `edgeq run`, `chat`, `perplexity`, `bench` and `tokenize`, parsed and checked
// without opening a model or reading a file, so that tests and the CLI-argument fuzzer
// (tests/fuzz/cli_args_fuzzer.cc) reach every flag check. Each Parse*Flags takes the arguments
// after the command name and returns InvalidArgument with a one-line message naming the flag,
// its value (quoted and cut, see QuoteForError) and what is allowed.
#ifndef EDGEQ_TOOLS_LLM_COMMANDS_H_
#define EDGEQ_TOOLS_LLM_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "tools/llm_cli.h"

namespace edgeq {
namespace tools {

struct RunFlags {
  LlmArgs args;
  std::string model, prompt;
  int64_t n_predict = -1;  // in [-1, INT32_MAX]
  int threads = 1;         // in [1, MaxThreads()]
  int64_t ctx = 0;         // in [0, 2^20]
  llm::SamplerOptions sampler;
  llm::KvCacheType cache_type = llm::KvCacheType::kF32;
};
absl::StatusOr<RunFlags> ParseRunFlags(const std::vector<std::string>& raw);

struct ChatFlags {
  LlmArgs args;
  std::string model;
  int64_t n_predict = -1;
  int threads = 1;
  int64_t ctx = 0;
  llm::SamplerOptions sampler;
  llm::KvCacheType cache_type = llm::KvCacheType::kF32;
};
absl::StatusOr<ChatFlags> ParseChatFlags(const std::vector<std::string>& raw);

struct PerplexityFlags {
  LlmArgs args;
  std::string model, text_file;
  int64_t n_ctx = 512;      // in [2, 2^20]
  int threads = 1;
  int64_t max_chunks = -1;  // in [-1, INT32_MAX]
  llm::KvCacheType cache_type = llm::KvCacheType::kF32;
};
absl::StatusOr<PerplexityFlags> ParsePerplexityFlags(const std::vector<std::string>& raw);

struct BenchFlags {
  LlmArgs args;
  std::string model, format;
  int64_t n_prompt = 512, n_gen = 128, reps = 5, batch = 16;
  std::vector<int> threads;  // each in [1, MaxThreads()]
  llm::KvCacheType cache_type = llm::KvCacheType::kF32;
};
absl::StatusOr<BenchFlags> ParseBenchFlags(const std::vector<std::string>& raw);

absl::StatusOr<LlmArgs> ParseTokenizeFlags(const std::vector<std::string>& raw);

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_LLM_COMMANDS_H_
