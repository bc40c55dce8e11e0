// `edgeq run MODEL -p TEXT -n N [...]`: generate text, streamed to stdout as it comes.
#include <algorithm>
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
#include "llm/sampler.h"
#include "llm/session.h"
#include "llm/state_file.h"
#include "runtime/kernels/cpu_features.h"
#include "tools/command.h"
#include "tools/llm_cli.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kRunUsage[] =
    "MODEL -p TEXT|-f FILE [-n N] [--temp T] [--top-k K] [--top-p P] [--min-p P] "
    "[--repeat-penalty R] [--repeat-last-n N] [--presence-penalty P] [--frequency-penalty F] "
    "[-s SEED] [-t THREADS] [-c CTX] [-ub N] [-ctk TYPE] [--isa NAME] [--tokenizer FILE] "
    "[--ignore-eos]\n"
    "    [--grammar GBNF | --grammar-file FILE | -j JSON_SCHEMA] [--prompt-cache FILE]\n"
    "  -p, --prompt TEXT        prompt (BOS added as the vocabulary says)\n"
    "  -f, --file FILE          the prompt from a file (at most 32 MiB)\n"
    "  -n, --n-predict N        tokens to generate (default -1: until EOS or the context ends)\n"
    "  --temp T                 temperature (default 0.8; 0 = greedy)\n"
    "  --top-k K                (default 40; 0 = off)   --top-p P (default 0.95; 1 = off)\n"
    "  --min-p P                (default 0.05; 0 = off)\n"
    "  --repeat-penalty R       (default 1 = off) over the last --repeat-last-n N tokens (64)\n"
    "  --presence-penalty P, --frequency-penalty F   (default 0 = off)\n"
    "  -s, --seed SEED          (default: from the clock)\n"
    "  -t, --threads N          (default: the fastest cluster's cores; at most 4 x the online\n"
    "                           CPUs, at most 256)\n"
    "  -c, --ctx-size N         KV cache positions (default: prompt + N rounded up to 64, or\n"
    "                           without -n the model's context, at most 4096)\n"
    "  --grammar GBNF           constrain the output to a GBNF grammar (llama.cpp's format)\n"
    "  --grammar-file FILE      the grammar from a file (at most 1 MiB)\n"
    "  -j, --json-schema JSON   constrain the output to JSON valid under this schema\n"
    "  --prompt-cache FILE      reuse the state saved in FILE when its tokens begin the prompt;\n"
    "                           else run the prompt and save its state there (llama.cpp's)\n"
    "  --tokenizer FILE         a llama2.c tokenizer.bin for a model without a "
    "vocabulary\n" EDGEQ_UBATCH_USAGE EDGEQ_KV_CACHE_USAGE EDGEQ_ISA_USAGE
    "Sampler order: penalties, top-k, top-p, min-p, temperature, draw (llama.cpp's).\n"
    "The text goes to stdout; the load and speed report to stderr.";

// --prompt-cache FILE: the session takes the file's state when its tokens begin the prompt, then
// runs the rest of the prompt and, if there was a rest, saves the state (without the sampler's)
// to FILE.
struct CacheUse {
  int reused = 0;      // prompt tokens taken from FILE
  double seconds = 0;  // the rest of the prompt's prefill
};
absl::StatusOr<CacheUse> UsePromptCache(const std::string& path, llm::Model& model,
                                        llm::Session& session, llm::Sampler& sampler,
                                        const std::vector<int>& ids) {
  if (path.empty()) return CacheUse();
  EDGEQ_ASSIGN_OR_RETURN(const int reused, llm::LoadPromptCache(path, model, session, ids));
  for (int i = 0; i < reused; ++i) sampler.Accept(ids[i]);
  absl::FPrintF(stderr, "prompt cache: %d of %d prompt tokens reused from %s\n", reused, ids.size(),
                path);
  if (reused == static_cast<int>(ids.size())) return CacheUse{reused, 0.0};
  EDGEQ_ASSIGN_OR_RETURN(
      llm::GenerateResult p,
      session.Generate(absl::MakeConstSpan(ids).subspan(reused), {.max_tokens = 0}));
  EDGEQ_RETURN_IF_ERROR(llm::SaveSessionStateFile(path, model, session, nullptr));
  return CacheUse{reused, p.prefill_seconds};
}

absl::Status Run(const Args& raw_args) {
  EDGEQ_ASSIGN_OR_RETURN(RunFlags flags, ParseRunFlags(raw_args.raw));
  const LlmArgs& args = flags.args;
  const std::string& path = flags.model;
  int64_t n_predict = flags.n_predict;
  int64_t ctx = flags.ctx;
  const llm::SamplerOptions& so = flags.sampler;
  if (args.Has("file")) {
    EDGEQ_ASSIGN_OR_RETURN(flags.prompt,
                           ReadFileBounded(args.Get("file"), kMaxTextFileBytes, "prompt file"));
  }

  // The grammar first: a bad one is refused before the model is read.
  EDGEQ_ASSIGN_OR_RETURN(std::shared_ptr<const grammar::Grammar> grammar,
                         LoadGrammar(flags.grammar));

  llm::OpenOptions oo;
  oo.tokenizer_path = args.Get("tokenizer");
  EDGEQ_ASSIGN_OR_RETURN(llm::OpenedModel opened, llm::OpenFile(path, oo));
  const llm::ModelConfig* config = &opened.config;
  const std::unique_ptr<TextTokenizer>& tok = opened.tokenizer;
  const std::string& prompt = flags.prompt;
  EDGEQ_ASSIGN_OR_RETURN(const std::vector<int> ids,
                         tok->Encode(prompt, tok->add_bos(), /*parse_special=*/true));
  if (ids.empty()) return absl::InvalidArgumentError("the prompt encodes to no tokens");
  // Without -c, a run of known length gets a cache of prompt + n rounded up to 64 positions (a
  // decode step attends over the whole cache), at most the model's context.
  if (ctx == 0 && n_predict >= 0) {
    const int64_t want = (static_cast<int64_t>(ids.size()) + n_predict + 63) / 64 * 64;
    ctx = std::min<int64_t>(want, config->context_length);
  }
  if (ctx != 0 && static_cast<int64_t>(ids.size()) > ctx) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the prompt is %d tokens long, but the context holds %d (-c)", ids.size(), ctx));
  }
  llm::ModelOptions mo;
  mo.num_threads = flags.threads > 0 ? flags.threads : kernels::DefaultThreadCount();
  mo.context_length = static_cast<int>(ctx);
  mo.kv_cache_type = flags.cache_type;
  mo.isa_cap = flags.isa_cap;
  mo.prefill_block = flags.ubatch;
  EDGEQ_RETURN_IF_ERROR(opened.LoadModel(mo));
  llm::Model& model = *opened.model;
  EDGEQ_ASSIGN_OR_RETURN(llm::Sampler sampler, llm::Sampler::Create(model.config().vocab_size, so));
  EDGEQ_RETURN_IF_ERROR(ConstrainSampler(grammar, *tok, model.config().vocab_size, &sampler));
  absl::FPrintF(stderr,
                "model: %s (%s)\nsampler: %s\nprompt: %d tokens, context %d (%s KV cache, "
                "%.2f MiB), %d threads, ubatch %d\n",
                path, model.config().ToString(), so.ToString(), ids.size(), model.context_length(),
                llm::KvCacheTypeName(model.kv_cache_type()), model.kv_cache_bytes() / 1048576.0,
                mo.num_threads, model.ubatch_size());
  if (static_cast<int>(ids.size()) > model.context_length()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the prompt is %d tokens long, but the context holds %d (-c)", ids.size(),
                        model.context_length()));
  }
  llm::GenerateOptions go;
  go.max_tokens = static_cast<int>(n_predict);
  if (!args.Has("ignore-eos")) go.stop_tokens = tok->stop_tokens();
  absl::FPrintF(stdout, "%s", prompt);
  std::fflush(stdout);
  int prev = ids.back();
  llm::Session session(model, sampler);
  EDGEQ_ASSIGN_OR_RETURN(const CacheUse cache,
                         UsePromptCache(flags.prompt_cache, model, session, sampler, ids));
  const bool cached = !flags.prompt_cache.empty();
  EDGEQ_ASSIGN_OR_RETURN(llm::GenerateResult r,
                         session.Generate(cached ? std::vector<int>() : ids, go, [&](int token) {
                           const std::string piece = tok->Decode(prev, token);
                           std::fwrite(piece.data(), 1, piece.size(), stdout);
                           std::fflush(stdout);
                           prev = token;
                           return true;
                         }));
  absl::FPrintF(stdout, "\n");
  r.prefill_seconds += cache.seconds;
  const size_t run = ids.size() - cache.reused;  // prompt tokens run (the rest came from FILE)
  const int generated = static_cast<int>(r.tokens.size());
  absl::FPrintF(stderr,
                "prefill: %d tokens in %.1f ms (%.2f tokens/s); decode: %d tokens in %.1f ms "
                "(%.2f tokens/s); stop: %s\n",
                run, r.prefill_seconds * 1e3, run / std::max(r.prefill_seconds, 1e-9), generated,
                r.decode_seconds * 1e3, generated / std::max(r.decode_seconds, 1e-9),
                llm::StopReasonName(r.reason));
  absl::FPrintF(stderr, "memory: %s\n", MemoryReport(model));
  return absl::OkStatus();
}

int RunCommand(const Args& args) {
  absl::Status s = Run(args);
  return s.ok() ? 0 : LlmFail(args.command, s);
}

}  // namespace

EDGEQ_REGISTER_COMMAND(run, "run", kRunUsage,
                       "Generate text from a prompt with a GGUF (or .max, .bin) Llama-family "
                       "model, streaming tokens to stdout",
                       RunCommand);

}  // namespace tools
}  // namespace edgeq
