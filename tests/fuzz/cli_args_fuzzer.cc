// libFuzzer target over the command-line arguments of the LLM commands, without loading a
// model: the first byte picks the parser (run, chat, perplexity, bench, tokenize, or the
// dispatcher's --name=value flags of tools/command.h), the rest is split at NUL bytes into
// arguments. Whatever the parsers do must hold:
//   - an error is InvalidArgument with a non-empty one-line message of bounded length (values
//     quoted and cut, never a whole attacker-sized argument);
//   - accepted values are in the ranges the flags state (no narrowing surprise later);
//   - accepted sampler options build a Sampler (or are refused by it) and sampling over logits
//     with NaN, +-inf, huge and tiny values returns an id in range that is not a NaN logit
//     (issue 27 F12: --temp 1e-45 made NaN probabilities).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "llm/sampler.h"
#include "tools/command.h"
#include "tools/llm_flags.h"

namespace {

using namespace edgeq;         // NOLINT: a fuzz target
using namespace edgeq::tools;  // NOLINT

constexpr size_t kMaxMessage = 2048;

[[noreturn]] void Finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "cli_args_fuzzer: %s: %.300s\n", what, detail.c_str());
  std::abort();
}

void CheckError(const absl::Status& s) {
  if (s.ok()) return;
  const std::string m(s.message());
  if (s.code() != absl::StatusCode::kInvalidArgument) Finding("not InvalidArgument", s.ToString());
  if (m.empty()) Finding("empty message", m);
  if (m.find('\n') != std::string::npos) Finding("a message of more than one line", m);
  if (m.size() > kMaxMessage) Finding("a message longer than 2048 bytes", m);
}

void Check(bool ok, const char* what) {
  if (!ok) Finding("accepted a value out of range", what);
}

// Samples with the accepted options over adversarial logits.
void CheckSampler(const llm::SamplerOptions& o) {
  constexpr int kVocab = 12;
  absl::StatusOr<llm::Sampler> s = llm::Sampler::Create(kVocab, o);
  if (!s.ok()) {
    CheckError(s.status());
    return;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  const std::vector<std::vector<float>> cases = {
      {0.5f, 2.0f, -1.0f, 3.0f, 1e-30f, -1e30f, 7.0f, 0.0f, 1.0f, 2.0f, 3.0f, 4.0f},
      {nan, 1.0f, nan, 5.0f, -inf, inf, 2.0f, nan, 0.0f, -big, big, 1e38f},
      {nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan, nan},
      {-inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, -inf, 0.0f},
      {big, -big, big, -big, 3e38f, -3e38f, 1e-45f, -1e-45f, 0.0f, 0.0f, 1.0f, -1.0f},
  };
  for (int round = 0; round < 2; ++round) {
    for (const std::vector<float>& logits : cases) {
      const int id = s->Sample(logits);
      if (id < 0 || id >= kVocab) Finding("sampled id out of range", std::to_string(id));
      bool all_nan = true;
      for (float l : logits) all_nan = all_nan && std::isnan(l);
      if (std::isnan(logits[id]) && !all_nan) Finding("sampled a NaN logit", std::to_string(id));
      s->Accept(id);
    }
  }
}

void RunLlm(int which, const std::vector<std::string>& args) {
  const int max_threads = MaxThreads();
  switch (which) {
    case 0: {
      absl::StatusOr<RunFlags> f = ParseRunFlags(args);
      if (!f.ok()) return CheckError(f.status());
      Check(f->n_predict >= -1 && f->n_predict <= INT32_MAX, "run -n");
      Check(f->threads >= 0 && f->threads <= max_threads, "run -t");
      Check(f->ctx >= 0 && f->ctx <= (1 << 20), "run -c");
      return CheckSampler(f->sampler);
    }
    case 1: {
      absl::StatusOr<ChatFlags> f = ParseChatFlags(args);
      if (!f.ok()) return CheckError(f.status());
      Check(f->n_predict >= -1 && f->n_predict <= INT32_MAX, "chat -n");
      Check(f->threads >= 0 && f->threads <= max_threads, "chat -t");
      Check(f->ctx >= 0 && f->ctx <= (1 << 20), "chat -c");
      return CheckSampler(f->sampler);
    }
    case 2: {
      absl::StatusOr<PerplexityFlags> f = ParsePerplexityFlags(args);
      if (!f.ok()) return CheckError(f.status());
      Check(f->n_ctx >= 2 && f->n_ctx <= (1 << 20), "perplexity -c");
      Check(f->threads >= 0 && f->threads <= max_threads, "perplexity -t");
      Check(f->max_chunks >= -1 && f->max_chunks <= INT32_MAX, "perplexity --chunks");
      return;
    }
    case 3: {
      absl::StatusOr<BenchFlags> f = ParseBenchFlags(args);
      if (!f.ok()) return CheckError(f.status());
      Check(f->n_prompt >= 0 && f->n_prompt <= (1 << 20), "bench -p");
      Check(f->n_gen >= 0 && f->n_gen <= (1 << 20), "bench -n");
      Check(f->n_prompt + f->n_gen > 0, "bench -p -n");
      Check(f->reps >= 1 && f->reps <= 1000, "bench -r");
      Check(f->ubatch >= 1 && f->ubatch <= 4096, "bench -ub");
      Check(!f->threads.empty() && f->threads.size() <= 64, "bench -t count");
      for (int t : f->threads) Check(t >= 1 && t <= max_threads, "bench -t");
      Check(f->format == "md" || f->format == "csv" || f->format == "json", "bench -o");
      return;
    }
    case 4: {
      absl::StatusOr<LlmArgs> f = ParseTokenizeFlags(args);
      if (!f.ok()) return CheckError(f.status());
      Check(f->positional.size() == 2, "tokenize positional");
      return;
    }
    default: {
      // The dispatcher's --name=value flags and Args::GetInt.
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      Args parsed = ParseArgs(static_cast<int>(argv.size()), argv.data(), 0);
      parsed.command = "inspect";
      const std::vector<std::string> known = {"threads", "n", "x", "verify"};
      CheckError(parsed.CheckFlags(known));
      CheckError(parsed.CheckPositional(1, "FILE"));
      for (const std::string& flag : known) {
        absl::StatusOr<int64_t> v = parsed.GetInt(flag, 0, -1000, 1000);
        if (!v.ok()) {
          CheckError(v.status());
        } else {
          Check(*v >= -1000 && *v <= 1000, "Args::GetInt");
        }
      }
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int which = data[0] % 6;
  std::vector<std::string> args;
  std::string cur;
  for (size_t i = 1; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (size > 1 && args.size() < 64) args.push_back(cur);
  RunLlm(which, args);
  return 0;
}
