// `edgeq embed MODEL -p TEXT [--pooling mean|last|cls|none] [--embd-normalize N]`: embeddings of
// each line of TEXT, printed as llama-embedding prints them: with a decoder model one text at a
// time (llm/embed.h), with an encoder (bert, nomic-bert: llm/embed_encoder.h) all texts in one
// batch, each its own sequence.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "checkpoint/formats.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "llm/arch/bert.h"
#include "llm/embed.h"
#include "llm/embed_encoder.h"
#include "llm/model.h"
#include "llm/open.h"
#include "runtime/kernels/cpu_features.h"
#include "tools/command.h"
#include "tools/llm_cli.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kEmbedUsage[] =
    "MODEL -p TEXT|-f FILE [--pooling mean|last|cls|none] [--embd-normalize|--normalize N]\n"
    "    [--embd-output-format json|array] [-t THREADS] [-c CTX] [-ub N] [--tokenizer FILE]\n"
    "  -p, --prompt TEXT        one text per line, each embedded as its own sequence\n"
    "  -f, --file FILE          the texts from a file (at most 32 MiB)\n"
    "  --pooling P              mean, last (Qwen3-Embedding), cls (first token), none (one\n"
    "                           vector per token); default: an encoder file's pooling_type, else\n"
    "                           mean\n"
    "  --embd-normalize N       2 euclidean (default), -1 none, 0 max-abs int16, 1 taxicab, >2\n"
    "                           p-norm (also --normalize N)\n"
    "  --embd-output-format F   json (OpenAI-style list) or array; default: llama-embedding's "
    "text\n"
    "The embeddings are the hidden states after the output norm (decoders) or the last layer\n"
    "(encoders: bert, nomic-bert, whose texts run as one batch), as llama-embedding's (stdout).";

double Cosine(const float* a, const float* b, int n) {
  double ab = 0, aa = 0, bb = 0;
  for (int i = 0; i < n; ++i) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa == 0 || bb == 0 ? 0.0 : ab / (std::sqrt(aa) * std::sqrt(bb));
}

// One value as llama-embedding prints it ("%6.0f " for int16-normalized, else "%9.6f ").
void PrintValue(float x, int normalize) {
  if (normalize == 0) {
    absl::FPrintF(stdout, "%6.0f ", x);
  } else {
    absl::FPrintF(stdout, "%9.6f ", x);
  }
}

// llama-embedding's default text output.
void PrintText(const std::vector<std::vector<float>>& emb, const std::vector<std::string>& texts,
               int dim, bool none, int normalize) {
  absl::FPrintF(stdout, "\n");
  int j = 0;
  for (const std::vector<float>& v : emb) {
    for (size_t r = 0; r < v.size() / dim; ++r, ++j) {
      const float* e = v.data() + r * dim;
      absl::FPrintF(stdout, "embedding %d: ", j);
      const int shown = none ? std::min(3, dim) : texts.size() > 1 ? std::min(16, dim) : dim;
      for (int i = 0; i < shown; ++i) PrintValue(e[i], normalize);
      if (none) {
        absl::FPrintF(stdout, " ... ");
        for (int i = dim - 3; i < dim; ++i) PrintValue(e[i], normalize);
      }
      absl::FPrintF(stdout, "\n");
    }
  }
  if (none || texts.size() <= 1) return;
  absl::FPrintF(stdout, "\ncosine similarity matrix:\n\n");
  for (const std::string& t : texts) absl::FPrintF(stdout, "%6.6s ", t);
  absl::FPrintF(stdout, "\n");
  for (size_t a = 0; a < emb.size(); ++a) {
    for (size_t b = 0; b < emb.size(); ++b) {
      absl::FPrintF(stdout, "%6.2f ", Cosine(emb[a].data(), emb[b].data(), dim));
    }
    absl::FPrintF(stdout, "%1.10s\n", texts[a]);
  }
}

// llama-embedding's --embd-output-format json / array.
void PrintJson(const std::vector<std::vector<float>>& emb, int dim, bool array, int normalize) {
  std::fputs(array ? "[" : "{\n  \"object\": \"list\",\n  \"data\": [\n", stdout);
  std::vector<const float*> rows;
  for (const std::vector<float>& v : emb) {
    for (size_t r = 0; r < v.size() / dim; ++r) rows.push_back(v.data() + r * dim);
  }
  for (size_t j = 0; j < rows.size(); ++j) {
    if (!array) {
      absl::FPrintF(stdout,
                    "    {\n      \"object\": \"embedding\",\n      \"index\": %d,\n      "
                    "\"embedding\": ",
                    j);
    }
    std::fputs("[", stdout);
    for (int i = 0; i < dim; ++i) {
      if (normalize == 0) {
        absl::FPrintF(stdout, "%1.0f", rows[j][i]);
      } else {
        absl::FPrintF(stdout, "%1.7f", rows[j][i]);
      }
      if (i + 1 < dim) std::fputs(",", stdout);
    }
    std::fputs(array ? "]" : "]\n    }", stdout);
    if (j + 1 < rows.size()) std::fputs(array ? "," : ",\n", stdout);
  }
  std::fputs(array ? "]\n" : "\n  ]\n}\n", stdout);
}

// The embeddings of `texts` with a decoder model (opened by llm::Open), one text at a time.
absl::StatusOr<std::vector<std::vector<float>>> EmbedWithDecoder(
    const LlmArgs& args, checkpoint::OpenedCheckpoint file, const std::string& path,
    const std::vector<std::string>& texts, const std::string& pooling_name, int normalize,
    int threads, int* dim) {
  EDGEQ_ASSIGN_OR_RETURN(const llm::Pooling pooling,
                         llm::ParsePooling(pooling_name.empty() ? "mean" : pooling_name));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t ctx, args.GetInt("ctx-size", 0, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(const int ubatch, GetUbatch(args));
  llm::OpenOptions oo;
  oo.tokenizer_path = args.Get("tokenizer");
  oo.model.num_threads = threads;
  oo.model.context_length = static_cast<int>(ctx);
  oo.model.prefill_block = ubatch;
  // An f32 cache: an embedding is one pass whose rows no later step reads back, so a smaller
  // cache saves little, and llama-embedding's values are matched to 1e-5 (tools/embed_test.sh).
  oo.model.kv_cache_type = llm::KvCacheType::kF32;
  EDGEQ_ASSIGN_OR_RETURN(llm::OpenedModel m, llm::Open(path, std::move(file), oo));
  const TextTokenizer& tok = *m.tokenizer;
  std::vector<std::vector<float>> emb;
  for (const std::string& t : texts) {
    EDGEQ_ASSIGN_OR_RETURN(const std::vector<int> ids, tok.Encode(t, tok.add_bos(), true));
    if (ids.empty()) return absl::InvalidArgumentError("a text encodes to no tokens");
    EDGEQ_ASSIGN_OR_RETURN(std::vector<float> v, llm::Embed(*m.model, ids, pooling, normalize));
    emb.push_back(std::move(v));
  }
  *dim = m.config.embedding_length;
  return emb;
}

// The embeddings of `texts` with an encoder (bert, nomic-bert), all in one batch.
absl::StatusOr<std::vector<std::vector<float>>> EmbedWithEncoder(
    const LlmArgs& args, const std::string& path, const std::vector<std::string>& texts,
    const std::string& pooling_name, int normalize, int threads, int* dim,
    llm::Pooling* pooling_used) {
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<llm::Encoder> enc,
                         llm::Encoder::Load(path, {.num_threads = threads}));
  llm::Pooling pooling = enc->default_pooling();
  if (!pooling_name.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(pooling, llm::ParsePooling(pooling_name));
  }
  if (args.Has("tokenizer")) {
    return absl::InvalidArgumentError(
        "--tokenizer is for decoder models; an encoder tokenizes with its file's vocabulary");
  }
  EDGEQ_ASSIGN_OR_RETURN(const std::vector<std::vector<int>> seqs, enc->Tokenize(texts));
  *dim = static_cast<int>(enc->config().dim);
  *pooling_used = pooling;
  return enc->EmbedBatch(seqs, pooling, normalize);
}

absl::Status Embed(const Args& raw_args) {
  std::vector<OptionSpec> specs = {{{"-p", "--prompt"}},
                                   {{"-f", "--file"}},
                                   {{"--pooling"}},
                                   {{"--embd-normalize", "--normalize"}},
                                   {{"--embd-output-format"}},
                                   {{"-t", "--threads"}},
                                   {{"-c", "--ctx-size"}},
                                   {{"--tokenizer"}}};
  for (const OptionSpec& s : UbatchOptionSpecs()) specs.push_back(s);
  EDGEQ_ASSIGN_OR_RETURN(const LlmArgs args, ParseLlmArgs(raw_args.raw, specs));
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "expected one MODEL argument, got %d (usage: edgeq embed MODEL -p TEXT ...)",
        args.positional.size()));
  }
  if (args.Has("prompt") == args.Has("file")) {
    return absl::InvalidArgumentError(args.Has("prompt")
                                          ? "-p TEXT and -f FILE both given; expected one"
                                          : "no text given (-p TEXT or -f FILE)");
  }
  std::string text = args.Get("prompt");
  if (args.Has("file")) {
    EDGEQ_ASSIGN_OR_RETURN(text, ReadFileBounded(args.Get("file"), kMaxTextFileBytes, "text file"));
  }
  const std::string pooling_name = args.Get("pooling");
  if (!pooling_name.empty()) EDGEQ_RETURN_IF_ERROR(llm::ParsePooling(pooling_name).status());
  EDGEQ_ASSIGN_OR_RETURN(const int64_t normalize, args.GetInt("embd-normalize", 2, -1, 1000));
  const std::string format = args.Get("embd-output-format");
  if (!format.empty() && format != "json" && format != "array") {
    return absl::InvalidArgumentError(
        absl::StrFormat("--embd-output-format %s; expected json or array", QuoteForError(format)));
  }
  EDGEQ_ASSIGN_OR_RETURN(int threads, GetThreads(args));
  if (threads <= 0) threads = kernels::DefaultThreadCount();
  const std::string& path = args.positional[0];
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint file, checkpoint::OpenCheckpoint(path));
  std::vector<std::string> texts = absl::StrSplit(text, '\n');
  if (!texts.empty() && texts.back().empty() && texts.size() > 1) texts.pop_back();
  const absl::StatusOr<std::string> arch = file.dict.GetString("general.architecture");
  int dim = 0;
  llm::Pooling pooling = llm::Pooling::kMean;
  std::vector<std::vector<float>> emb;
  if (arch.ok() && llm::arch::IsEncoderArchitecture(*arch)) {
    EDGEQ_ASSIGN_OR_RETURN(
        emb, EmbedWithEncoder(args, path, texts, pooling_name, static_cast<int>(normalize), threads,
                              &dim, &pooling));
  } else {
    if (!pooling_name.empty()) pooling = *llm::ParsePooling(pooling_name);
    EDGEQ_ASSIGN_OR_RETURN(emb, EmbedWithDecoder(args, std::move(file), path, texts, pooling_name,
                                                 static_cast<int>(normalize), threads, &dim));
  }
  if (format.empty()) {
    PrintText(emb, texts, dim, pooling == llm::Pooling::kNone, static_cast<int>(normalize));
  } else {
    PrintJson(emb, dim, format == "array", static_cast<int>(normalize));
  }
  return absl::OkStatus();
}

int EmbedCommand(const Args& args) {
  absl::Status s = Embed(args);
  return s.ok() ? 0 : LlmFail(args.command, s);
}

}  // namespace

EDGEQ_REGISTER_COMMAND(embed, "embed", kEmbedUsage,
                       "Embeddings of texts (decoders, bert, nomic-bert; llama-embedding's output)",
                       EmbedCommand);

}  // namespace tools
}  // namespace edgeq
