// tinystories: the Quantize-TinyStories pipeline. Imports a Llama 2 checkpoint (llama2.c .bin,
// GGUF or edgeq .max), quantizes its weights per a rule set, optionally saves the result as .max
// (with the tokenizer) and loads it back, then generates a story with the edgeq graph runtime.
// The story goes to stdout alone; progress, sizes and speeds go to stderr.
//
//   bazel run //examples/tinystories -- --prompt="Once upon a time" --out=/tmp/s.max
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "checkpoint/formats.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/max_format.h"
#include "checkpoint/quantize_rules.h"
#include "core/status_macros.h"
#include "examples/tinystories/generate.h"
#include "examples/tinystories/sampler.h"
#include "llm/model.h"
#include "runtime/kernels/cpu_features.h"
#include "tests/util/reference_data.h"
#include "tokenizer/llama2c.h"

ABSL_FLAG(std::string, model, "",
          "model file: llama2.c .bin, .gguf or edgeq .max (default: stories260K.bin)");
ABSL_FLAG(std::string, tokenizer, "",
          "llama2.c tokenizer .bin (default: the model's own vocabulary if it carries one, "
          "tok512.bin for the default model)");
ABSL_FLAG(std::string, prompt, "", "prompt text (may be empty)");
ABSL_FLAG(int, steps, 256, "positions to run, prompt included (as llama2.c's -n); 0 = context");
ABSL_FLAG(float, temperature, 1.0f, "sampling temperature; 0 = greedy");
ABSL_FLAG(float, topp, 0.9f, "top-p (nucleus) threshold in [0, 1]");
ABSL_FLAG(uint64_t, seed, 0, "random seed (> 0); 0 = time-based");
ABSL_FLAG(std::string, encoding, "q4_0",
          "encoding of the default rule for every matrix (q4_0, q8_0, q4_k, q5_k, q6_k, bf16) or "
          "none (keep f32)");
ABSL_FLAG(std::string, rules, "",
          "file of 'PATTERN -> ENCODING' lines (first match wins); replaces the default rule");
ABSL_FLAG(int, threads, 0, "threads (0 = the fastest core cluster's cores)");
ABSL_FLAG(std::string, out, "",
          "save the quantized model (with its tokenizer) to this .max file, then run from the "
          "saved file");
ABSL_FLAG(bool, embed_tokenizer, true,
          "with --out: store the vocabulary in the .max (about 0.6 MB for 32000 pieces), so that "
          "the file runs without --tokenizer");
ABSL_FLAG(std::string, perplexity_file, "",
          "instead of generating, print the teacher-forced perplexity of this text file");
ABSL_FLAG(bool, quiet, false, "no progress, sizes or speeds on stderr");

namespace edgeq {
namespace tinystories {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The default model: the real stories260K from ../shared (@edgeq_refdata, in this binary's
// runfiles when built by Bazel), or an error saying how to name a model.
absl::StatusOr<std::string> DefaultModelPath(const std::string& name) {
  absl::StatusOr<std::string> path = edgeq::testing::ReferenceDataPath("models/" + name);
  if (path.ok()) return path;
  return absl::NotFoundError(absl::StrFormat(
      "no --model given, and the default model is unavailable (%s). Pass --model=PATH "
      "(a llama2.c .bin, GGUF or .max), or run tools/demo.sh, which makes a random-weight model "
      "when ../shared is absent",
      path.status().message()));
}

// Bytes the tensors would take as f32 (quantized ones by their logical shape).
int64_t F32Bytes(const checkpoint::TensorDict& dict) {
  int64_t bytes = 0;
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    bytes += 4 * (t.is_quantized() ? t.logical_shape() : t.shape()).num_elements();
  }
  return bytes;
}

absl::Status Run() {
  const bool quiet = absl::GetFlag(FLAGS_quiet);
  std::string model_path = absl::GetFlag(FLAGS_model);
  std::string tok_path = absl::GetFlag(FLAGS_tokenizer);
  if (model_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(model_path, DefaultModelPath("stories260K.bin"));
    if (tok_path.empty()) {
      EDGEQ_ASSIGN_OR_RETURN(tok_path, DefaultModelPath("tok512.bin"));
    }
  }
  const std::string out_path = absl::GetFlag(FLAGS_out);
  if (!out_path.empty() &&
      (out_path.size() < 4 || out_path.substr(out_path.size() - 4) != ".max")) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--out=%s: expected a path ending in .max", out_path));
  }
  int threads = absl::GetFlag(FLAGS_threads);
  if (threads < 0 || threads > 256) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--threads=%d: expected 0 (default) to 256", threads));
  }
  if (threads == 0) threads = kernels::DefaultThreadCount();
  // Rules and sampler options first, so that bad flags fail before any work.
  std::vector<checkpoint::QuantizeRule> rules;
  if (!absl::GetFlag(FLAGS_rules).empty()) {
    EDGEQ_ASSIGN_OR_RETURN(rules, checkpoint::LoadQuantizeRules(absl::GetFlag(FLAGS_rules)));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(rules, checkpoint::DefaultQuantizeRules(absl::GetFlag(FLAGS_encoding)));
  }
  SamplerOptions sopt;
  sopt.temperature = absl::GetFlag(FLAGS_temperature);
  sopt.topp = absl::GetFlag(FLAGS_topp);
  sopt.seed = absl::GetFlag(FLAGS_seed);
  if (sopt.seed == 0) sopt.seed = static_cast<uint64_t>(std::time(nullptr));

  // Import.
  double t0 = Now();
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint opened,
                         checkpoint::OpenCheckpoint(model_path));
  absl::StatusOr<checkpoint::Llama2cConfig> config =
      checkpoint::Llama2cConfigFromMetadata(opened.dict);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("'%s' is not a Llama 2 model: %s", model_path, config.status().message()));
  }
  EDGEQ_ASSIGN_OR_RETURN(
      tokenizer::Llama2cTokenizer tokenizer,
      tokenizer::Llama2cTokenizer::ForModel(opened.dict, model_path, tok_path, config->vocab_size));
  if (!quiet) {
    absl::FPrintF(stderr,
                  "model: %s (%s; dim %d, hidden %d, %d layers, %d heads, %d kv heads, vocab %d, "
                  "context %d)\nimported in %.1f ms\n",
                  model_path, checkpoint::FormatName(opened.format), config->dim,
                  config->hidden_dim, config->n_layers, config->n_heads, config->n_kv_heads,
                  config->vocab_size, config->seq_len, (Now() - t0) * 1e3);
  }

  // Quantize.
  std::vector<checkpoint::QuantizeDecision> decisions;
  t0 = Now();
  EDGEQ_ASSIGN_OR_RETURN(
      checkpoint::TensorDict weights,
      checkpoint::QuantizeDict(opened.dict, rules, &decisions,
                               quiet ? std::function<void(int, int, const std::string&)>()
                                     : checkpoint::PrintQuantizeProgress));
  const double quant_s = Now() - t0;
  if (!quiet) {
    for (const checkpoint::QuantizeDecision& d : decisions) {
      if (!d.note.empty()) {
        absl::FPrintF(stderr, "note: %s: %s -> %s (%s)\n", d.name, d.requested, d.chosen, d.note);
      }
    }
    const double f32_bytes = static_cast<double>(F32Bytes(weights));
    const double bytes = static_cast<double>(weights.TotalBytes());
    absl::FPrintF(stderr, "size: f32 %.3f MB -> %.3f MB (%.2fx smaller) in %.1f ms\n",
                  f32_bytes / 1e6, bytes / 1e6, f32_bytes / std::max(bytes, 1.0), quant_s * 1e3);
  }

  // Save and load back.
  if (!out_path.empty()) {
    if (absl::GetFlag(FLAGS_embed_tokenizer)) tokenizer.ToMetadata(weights);
    t0 = Now();
    EDGEQ_RETURN_IF_ERROR(checkpoint::Save(weights, out_path));
    const double save_s = Now() - t0;
    t0 = Now();
    EDGEQ_ASSIGN_OR_RETURN(weights, checkpoint::Load(out_path));
    const double load_s = Now() - t0;
    std::ifstream f(out_path, std::ios::binary | std::ios::ate);
    if (!quiet) {
      absl::FPrintF(stderr, "saved %s (%.3f MB) in %.1f ms; loaded back (mmap) in %.2f ms\n",
                    out_path, static_cast<double>(f.tellg()) / 1e6, save_s * 1e3, load_s * 1e3);
    }
  }

  t0 = Now();
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<llm::Model> model,
                         llm::Model::Load(weights, {.num_threads = threads}));
  if (!quiet) {
    absl::FPrintF(stderr, "graph built and loaded in %.1f ms; threads %d; kernels: %s\n",
                  (Now() - t0) * 1e3, threads, absl::StrJoin(model->MatmulKernels(), ", "));
  }

  if (!absl::GetFlag(FLAGS_perplexity_file).empty()) {
    std::ifstream file(absl::GetFlag(FLAGS_perplexity_file));
    if (!file) {
      return absl::NotFoundError(absl::StrFormat("--perplexity_file=%s cannot be read",
                                                 absl::GetFlag(FLAGS_perplexity_file)));
    }
    std::stringstream text;
    text << file.rdbuf();
    EDGEQ_ASSIGN_OR_RETURN(double ppl, Perplexity(*model, tokenizer, text.str()));
    absl::PrintF("%.4f\n", ppl);
    return absl::OkStatus();
  }
  EDGEQ_ASSIGN_OR_RETURN(Sampler sampler, Sampler::Create(config->vocab_size, sopt));
  // run.c prints the prompt pieces too; everything is streamed as it is produced.
  EDGEQ_ASSIGN_OR_RETURN(GenerateResult r,
                         Generate(*model, tokenizer, sampler, absl::GetFlag(FLAGS_prompt),
                                  absl::GetFlag(FLAGS_steps), [](const std::string& piece) {
                                    std::fwrite(piece.data(), 1, piece.size(), stdout);
                                    std::fflush(stdout);
                                  }));
  std::fputs("\n", stdout);
  std::fflush(stdout);
  if (!quiet) {
    absl::FPrintF(stderr, "prefill: %d tokens, %.1f tok/s\n", r.prompt_steps,
                  r.prompt_steps / std::max(r.prefill_seconds, 1e-9));
    absl::FPrintF(stderr, "decode: %d tokens, %.1f tok/s\n", r.generated_steps,
                  r.generated_steps / std::max(r.decode_seconds, 1e-9));
  }
  return absl::OkStatus();
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Quantize a TinyStories Llama 2 model, save and reload it, and generate a story.\n"
      "  tinystories [--model=PATH.bin|.gguf|.max] [--tokenizer=PATH] [--prompt=TEXT]\n"
      "              [--steps=N] [--temperature=T] [--topp=P] [--seed=S]\n"
      "              [--encoding=q4_0|q8_0|q4_k|q5_k|q6_k|bf16|none] [--rules=FILE]\n"
      "              [--threads=N] [--out=PATH.max [--noembed_tokenizer]]\n"
      "              [--perplexity_file=TEXT] [--quiet]\n"
      "With no arguments: the real stories260K + tok512 from ../shared/models, every matrix Q4_0.");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    absl::FPrintF(stderr, "error: unexpected argument '%s' (flags are --name=value; see --help)\n",
                  rest[1]);
    return 2;
  }
  absl::Status s = edgeq::tinystories::Run();
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.message());
    return 1;
  }
  return 0;
}
