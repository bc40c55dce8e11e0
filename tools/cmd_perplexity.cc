// `edgeq perplexity MODEL -f FILE [-c CTX]`: perplexity as llama.cpp's llama-perplexity computes
// it: the text is tokenized with BOS, cut into chunks of CTX tokens (at least two), the first
// token of each chunk is replaced by BOS, and each chunk's second half is scored (the token at
// position j + 1 from the logits at j, for j from CTX/2 to CTX - 2).
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "checkpoint/formats.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "llm/model.h"
#include "llm/open.h"
#include "llm/perplexity.h"
#include "runtime/kernels/cpu_features.h"
#include "tools/command.h"
#include "tools/llm_cli.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kPerplexityUsage[] =
    "MODEL -f FILE [-c CTX] [-t THREADS] [--chunks N] [-ub N] [-ctk TYPE] [--isa NAME]\n"
    "    [--tokenizer FILE]\n"
    "  -f, --file FILE      text to score (at most 32 MiB)\n"
    "  -c, --ctx-size N     chunk length in tokens (default 512; the text must hold two chunks)\n"
    "  --chunks N           score at most N chunks (default: all)\n"
    "  -t, --threads N      (default: the fastest cluster's cores; at most 4 x the online CPUs,\n"
    "                       at most 256)\n" EDGEQ_UBATCH_USAGE EDGEQ_KV_CACHE_USAGE EDGEQ_ISA_USAGE
    "Prints [chunk]running-perplexity per chunk and 'Final estimate: PPL = X +/- Y' (stdout).";

absl::Status Perplexity(const Args& raw_args) {
  EDGEQ_ASSIGN_OR_RETURN(const PerplexityFlags flags, ParsePerplexityFlags(raw_args.raw));
  const LlmArgs& args = flags.args;
  const std::string& path = flags.model;
  const int64_t n_ctx = flags.n_ctx;
  const int64_t max_chunks = flags.max_chunks;
  EDGEQ_ASSIGN_OR_RETURN(const std::string text,
                         ReadFileBounded(flags.text_file, kMaxTextFileBytes, "perplexity text"));

  llm::OpenOptions oo;
  oo.tokenizer_path = args.Get("tokenizer");
  llm::ModelOptions& mo = oo.model;
  mo.num_threads = flags.threads > 0 ? flags.threads : kernels::DefaultThreadCount();
  mo.context_length = static_cast<int>(n_ctx);
  mo.kv_cache_type = flags.cache_type;
  mo.isa_cap = flags.isa_cap;
  mo.prefill_block = flags.ubatch;
  EDGEQ_ASSIGN_OR_RETURN(llm::OpenedModel opened, llm::Open(path, oo));
  llm::Model& model = *opened.model;
  const std::unique_ptr<TextTokenizer>& tok = opened.tokenizer;
  EDGEQ_ASSIGN_OR_RETURN(const std::vector<int> tokens, tok->Encode(text, tok->add_bos()));
  if (static_cast<int64_t>(tokens.size()) < 2 * n_ctx) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s tokenizes to %d tokens; a context of %d needs at least %d (-c)",
                        QuoteForError(flags.text_file, 256), tokens.size(), n_ctx, 2 * n_ctx));
  }
  int64_t n_chunk = static_cast<int64_t>(tokens.size()) / n_ctx;
  if (max_chunks >= 0) n_chunk = std::min(n_chunk, max_chunks);
  absl::FPrintF(stderr,
                "model: %s (%s)\nperplexity: %d tokens, %d chunks of %d, %d threads, %s KV cache, "
                "ubatch %d\n",
                path, model.config().ToString(), tokens.size(), n_chunk, n_ctx, mo.num_threads,
                llm::KvCacheTypeName(model.kv_cache_type()), model.ubatch_size());
  llm::PerplexityOptions po;
  po.n_ctx = static_cast<int>(n_ctx);
  po.max_chunks = static_cast<int>(n_chunk);
  po.bos = tok->add_bos() ? tok->bos() : -1;
  po.on_chunk = [](int c, double running) {
    absl::FPrintF(stdout, "[%d]%.4f,", c + 1, running);
    std::fflush(stdout);
  };
  EDGEQ_ASSIGN_OR_RETURN(llm::PerplexityResult r, llm::Perplexity(model, tokens, po));
  absl::FPrintF(stdout, "\n");
  absl::FPrintF(stdout, "Final estimate: PPL = %.4f +/- %.5f\n", r.ppl, r.error);
  absl::FPrintF(stderr, "memory: %s\n", MemoryReport(model));
  return absl::OkStatus();
}

int PerplexityCommand(const Args& args) {
  absl::Status s = Perplexity(args);
  return s.ok() ? 0 : LlmFail(args.command, s);
}

}  // namespace

EDGEQ_REGISTER_COMMAND(perplexity, "perplexity", kPerplexityUsage,
                       "Perplexity of a text file under a model (llama-perplexity's method)",
                       PerplexityCommand);

}  // namespace tools
}  // namespace edgeq
