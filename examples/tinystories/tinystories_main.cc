// tinystories: import a Llama 2 checkpoint (llama2.c .bin or GGUF), quantize its weights per a
// rule set, and generate a story. The story goes to stdout; progress, sizes and speeds to stderr.
//
//   bazel run //examples/tinystories:tinystories -- --prompt="Once upon a time" --steps=256
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "examples/tinystories/generate.h"
#include "examples/tinystories/gguf_import.h"
#include "examples/tinystories/llama.h"
#include "examples/tinystories/rules.h"
#include "examples/tinystories/sampler.h"
#include "examples/tinystories/tokenizer.h"

ABSL_FLAG(std::string, model, "", "model file: llama2.c .bin or .gguf (default: stories260K)");
ABSL_FLAG(std::string, tokenizer, "",
          "llama2.c tokenizer .bin (default: tok512.bin for the default model; a GGUF's own "
          "vocabulary otherwise)");
ABSL_FLAG(std::string, prompt, "", "prompt text (may be empty)");
ABSL_FLAG(int, steps, 256, "positions to run, prompt included (as llama2.c's -n); 0 = context");
ABSL_FLAG(float, temperature, 1.0f, "sampling temperature; 0 = greedy");
ABSL_FLAG(float, topp, 0.9f, "top-p (nucleus) threshold in [0, 1]");
ABSL_FLAG(uint64_t, seed, 0, "random seed (> 0); 0 = time-based");
ABSL_FLAG(std::string, encoding, "q4_0",
          "encoding of the default rule for every matrix (q4_0, q8_0, bf16) or none (keep f32)");
ABSL_FLAG(std::string, rules, "",
          "file of 'PATTERN -> ENCODING' lines (first match wins); replaces the default rule");
ABSL_FLAG(int, threads, 1, "worker threads for the matrix products");
ABSL_FLAG(std::string, out, "", "write the quantized model to this .max file");
ABSL_FLAG(std::string, perplexity_file, "",
          "instead of generating, print the teacher-forced perplexity of this text file");
ABSL_FLAG(bool, quiet, false, "no progress, sizes or speeds on stderr");

namespace edgeq {
namespace tinystories {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Default data files: the workspace when run with `bazel run`, else runfiles, else the cwd.
std::string DefaultPath(const std::string& name, const char* argv0) {
  const std::string rel = "tests/testdata/" + name;
  std::vector<std::string> candidates;
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"))
    candidates.push_back(std::string(ws) + "/" + rel);
  if (const char* rf = std::getenv("RUNFILES_DIR"))
    candidates.push_back(std::string(rf) + "/edgeq/" + rel);
  candidates.push_back(std::string(argv0) + ".runfiles/edgeq/" + rel);
  candidates.push_back(rel);
  for (const std::string& c : candidates) {
    if (access(c.c_str(), R_OK) == 0) return c;
  }
  return rel;
}

absl::Status Run(const char* argv0) {
  const bool quiet = absl::GetFlag(FLAGS_quiet);
  std::string model_path = absl::GetFlag(FLAGS_model);
  std::string tok_path = absl::GetFlag(FLAGS_tokenizer);
  if (model_path.empty()) {
    model_path = DefaultPath("stories260K.bin", argv0);
    if (tok_path.empty()) tok_path = DefaultPath("tok512.bin", argv0);
  }
  if (!absl::GetFlag(FLAGS_out).empty()) {
    return absl::UnimplementedError(
        "--out: saving .max needs //checkpoint's .max writer, which this build does not have yet");
  }
  // Rules first, so a bad rule fails before any work.
  std::vector<Rule> rules;
  if (!absl::GetFlag(FLAGS_rules).empty()) {
    EDGEQ_ASSIGN_OR_RETURN(rules, LoadRules(absl::GetFlag(FLAGS_rules)));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(rules, DefaultRules(absl::GetFlag(FLAGS_encoding)));
  }
  SamplerOptions sopt;
  sopt.temperature = absl::GetFlag(FLAGS_temperature);
  sopt.topp = absl::GetFlag(FLAGS_topp);
  sopt.seed = absl::GetFlag(FLAGS_seed);
  if (sopt.seed == 0) sopt.seed = static_cast<uint64_t>(std::time(nullptr));

  const double t0 = Now();
  LlamaWeights weights;
  std::optional<Tokenizer> tokenizer;
  if (absl::EndsWith(model_path, ".gguf")) {
    EDGEQ_ASSIGN_OR_RETURN(GgufModel g, LoadGgufLlama(model_path));
    weights = std::move(g.weights);
    tokenizer = std::move(g.tokenizer);
  } else if (absl::EndsWith(model_path, ".max")) {
    return absl::UnimplementedError(absl::StrFormat(
        "'%s': loading .max needs //checkpoint's .max reader, which this build does not have yet",
        model_path));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(weights, LoadLlama2cBin(model_path));
  }
  if (!tok_path.empty()) {
    EDGEQ_ASSIGN_OR_RETURN(Tokenizer t, Tokenizer::Load(tok_path, weights.config.vocab_size));
    tokenizer = std::move(t);
  }
  if (!tokenizer.has_value()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "no tokenizer: '%s' carries no vocabulary; pass --tokenizer=PATH", model_path));
  }
  if (tokenizer->vocab_size() != weights.config.vocab_size) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tokenizer has %d pieces but the model's vocabulary is %d (mismatched tokenizer)",
        tokenizer->vocab_size(), weights.config.vocab_size));
  }
  const double load_s = Now() - t0;
  if (!quiet) {
    absl::FPrintF(stderr, "model: %s (%s)\nloaded in %.1f ms\n", model_path,
                  weights.config.ToString(), load_s * 1e3);
  }
  // Quantize.
  const int64_t f32_bytes = weights.SizeBytes();
  std::vector<EncodingDecision> decisions;
  const double tq = Now();
  EDGEQ_ASSIGN_OR_RETURN(
      LlamaWeights quantized, QuantizeWeights(weights, rules, &decisions, [&](int done, int total) {
        if (quiet) return;
        const int width = 30, filled = done * width / total;
        absl::FPrintF(stderr, "\rquantizing [%s%s] %d/%d", std::string(filled, '#'),
                      std::string(width - filled, ' '), done, total);
        if (done == total) absl::FPrintF(stderr, "\n");
      }));
  const double quant_s = Now() - tq;
  if (!quiet) {
    for (const EncodingDecision& d : decisions) {
      if (!d.note.empty()) {
        absl::FPrintF(stderr, "note: %s: %s -> %s (%s)\n", d.name, d.requested, d.chosen, d.note);
      }
    }
    absl::FPrintF(stderr, "size: f32 %.3f MB -> quantized %.3f MB (%.2fx) in %.1f ms\n",
                  f32_bytes / 1e6, quantized.SizeBytes() / 1e6,
                  static_cast<double>(f32_bytes) / quantized.SizeBytes(), quant_s * 1e3);
  }
  LlamaOptions lopt;
  lopt.num_threads = absl::GetFlag(FLAGS_threads);
  EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<LlamaModel> model, LlamaModel::Create(quantized, lopt));
  if (!absl::GetFlag(FLAGS_perplexity_file).empty()) {
    std::ifstream file(absl::GetFlag(FLAGS_perplexity_file));
    if (!file) {
      return absl::NotFoundError(
          absl::StrFormat("cannot open '%s'", absl::GetFlag(FLAGS_perplexity_file)));
    }
    std::stringstream text;
    text << file.rdbuf();
    EDGEQ_ASSIGN_OR_RETURN(double ppl, Perplexity(*model, *tokenizer, text.str()));
    absl::PrintF("%.4f\n", ppl);
    return absl::OkStatus();
  }
  EDGEQ_ASSIGN_OR_RETURN(Sampler sampler, Sampler::Create(weights.config.vocab_size, sopt));
  const std::string prompt = absl::GetFlag(FLAGS_prompt);
  // run.c prints the prompt pieces too; stream everything as it is produced.
  EDGEQ_ASSIGN_OR_RETURN(GenerateResult r,
                         Generate(*model, *tokenizer, sampler, prompt, absl::GetFlag(FLAGS_steps),
                                  [](const std::string& piece) {
                                    std::fwrite(piece.data(), 1, piece.size(), stdout);
                                    std::fflush(stdout);
                                  }));
  std::fputs("\n", stdout);
  std::fflush(stdout);
  if (!quiet) {
    std::string kernels;
    for (const std::string& k : model->KernelNames()) kernels += (kernels.empty() ? "" : ", ") + k;
    absl::FPrintF(stderr, "kernels: %s; threads: %d\n", kernels, lopt.num_threads);
    if (r.prompt_steps > 0) {
      absl::FPrintF(stderr, "prefill: %d tokens, %.1f tok/s\n", r.prompt_steps,
                    r.prompt_steps / std::max(r.prefill_seconds, 1e-9));
    }
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
      "Quantize a TinyStories Llama 2 model and generate a story.\n"
      "  tinystories [--model=PATH.bin|.gguf] [--tokenizer=PATH] [--prompt=TEXT] [--steps=N]\n"
      "              [--temperature=T] [--topp=P] [--seed=S] [--encoding=q4_0|q8_0|bf16|none]\n"
      "              [--rules=FILE] [--threads=N] [--out=PATH.max]\n"
      "With no arguments: stories260K + tok512 from tests/testdata, Q4_0.");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    absl::FPrintF(stderr, "error: unexpected argument '%s' (flags are --name=value)\n", rest[1]);
    return 2;
  }
  absl::Status s = edgeq::tinystories::Run(argv[0]);
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.ToString());
    return 1;
  }
  return 0;
}
