// `generate`: the smallest TinyStories runner. It loads a .max the pipeline wrote (weights,
// hyperparameters and, by default, the vocabulary), or a llama2.c tokenizer given with
// --tokenizer, and prints a story to stdout. No flag library and no text formatting library: the
// binary carries only what generation needs (see README.md in this directory for its size).
//
//   generate MODEL.max [--tokenizer=tok.bin] [--prompt=TEXT] [--steps=N] [--temperature=T]
//            [--topp=P] [--seed=S] [--threads=N]
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "checkpoint/max_format.h"
#include "checkpoint/tensor_dict.h"
#include "examples/tinystories/generate.h"
#include "examples/tinystories/sampler.h"
#include "llm/model.h"
#include "tokenizer/llama2c.h"

namespace {

constexpr char kUsage[] =
    "Usage: generate MODEL.max [--tokenizer=tok.bin] [--prompt=TEXT] [--steps=N]\n"
    "                [--temperature=T] [--topp=P] [--seed=S] [--threads=N]\n"
    "Prints a story from a .max written by the tinystories pipeline (--out). The vocabulary\n"
    "comes from the .max unless --tokenizer names a llama2.c tokenizer file.\n"
    "Defaults: --steps=256 (positions, prompt included) --temperature=1 --topp=0.9 --seed=time\n"
    "--threads=1.\n";

struct Options {
  std::string model, tokenizer, prompt;
  int steps = 256, threads = 1;
  float temperature = 1.0f, topp = 0.9f;
  unsigned long long seed = 0;
};

int Usage(const char* error) {
  if (error == nullptr) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::fprintf(stderr, "generate: %s\n\n%s", error, kUsage);
  return 2;
}

// Parses "--name=value" into a number; false (with a message naming the flag) if it is not one.
bool ParseNumber(const char* flag, const char* value, double lo, double hi, double* out) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value, &end);
  if (errno != 0 || end == value || *end != '\0' || !(v >= lo && v <= hi)) {
    std::fprintf(stderr, "generate: --%s=%s: expected a number in [%g, %g]\n", flag, value, lo, hi);
    return false;
  }
  *out = v;
  return true;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "generate: %.*s\n", static_cast<int>(status.message().size()),
               status.message().data());
  return 1;
}

int Run(const Options& o) {
  absl::StatusOr<edgeq::checkpoint::TensorDict> dict = edgeq::checkpoint::Load(o.model);
  if (!dict.ok()) return Fail(dict.status());
  absl::StatusOr<std::unique_ptr<edgeq::llm::Model>> model =
      edgeq::llm::Model::Load(*dict, {.num_threads = o.threads});
  if (!model.ok()) return Fail(model.status());
  const int vocab = (*model)->config().vocab_size;
  absl::StatusOr<edgeq::tokenizer::Llama2cTokenizer> tokenizer =
      edgeq::tokenizer::Llama2cTokenizer::ForModel(*dict, o.model, o.tokenizer, vocab);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  edgeq::tinystories::SamplerOptions so;
  so.temperature = o.temperature;
  so.topp = o.topp;
  so.seed = o.seed != 0 ? o.seed : static_cast<unsigned long long>(std::time(nullptr));
  absl::StatusOr<edgeq::tinystories::Sampler> sampler =
      edgeq::tinystories::Sampler::Create(vocab, so);
  if (!sampler.ok()) return Fail(sampler.status());
  absl::StatusOr<edgeq::tinystories::GenerateResult> r = edgeq::tinystories::Generate(
      **model, *tokenizer, *sampler, o.prompt, o.steps, [](const std::string& piece) {
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
      });
  if (!r.ok()) return Fail(r.status());
  std::fputc('\n', stdout);
  if (r->generated_steps > 1 && r->decode_seconds > 0) {
    std::fprintf(stderr, "decode: %.1f tokens/s\n", r->generated_steps / r->decode_seconds);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0) return Usage(nullptr);
    if (std::strncmp(a, "--", 2) != 0) {
      if (!o.model.empty()) return Usage("more than one model path given");
      o.model = a;
      continue;
    }
    const char* eq = std::strchr(a, '=');
    if (eq == nullptr) return Usage((std::string("flag without a value: ") + a).c_str());
    const std::string name(a + 2, eq - a - 2);
    const char* value = eq + 1;
    double v = 0;
    if (name == "tokenizer") {
      o.tokenizer = value;
    } else if (name == "prompt") {
      o.prompt = value;
    } else if (name == "steps") {
      if (!ParseNumber("steps", value, 0, 1 << 20, &v)) return 2;
      o.steps = static_cast<int>(v);
    } else if (name == "threads") {
      if (!ParseNumber("threads", value, 1, 256, &v)) return 2;
      o.threads = static_cast<int>(v);
    } else if (name == "temperature") {
      if (!ParseNumber("temperature", value, 0, 100, &v)) return 2;
      o.temperature = static_cast<float>(v);
    } else if (name == "topp") {
      if (!ParseNumber("topp", value, 0, 1, &v)) return 2;
      o.topp = static_cast<float>(v);
    } else if (name == "seed") {
      if (!ParseNumber("seed", value, 1, 1.8e19, &v)) return 2;
      o.seed = static_cast<unsigned long long>(v);
    } else {
      return Usage(("unknown flag --" + name +
                    " (expected --tokenizer, --prompt, --steps, --temperature, --topp, --seed, "
                    "--threads)")
                       .c_str());
    }
  }
  if (o.model.empty()) return Usage("no model given");
  return Run(o);
}
