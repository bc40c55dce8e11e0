// Decode speed of the TinyStories pipeline on a stories15M-shaped model (dim 288, hidden 768,
// 6 layers, 6 heads, vocab 32000, seq 256; seeded random weights written as a llama2.c .bin at
// startup), beside llama2.c's run.c on the same .bin in the same run (the baseline).
//
// Rows: edgeq decode (one Forward per token) with f32 weights and with the pipeline's default
// rules (q4_0, norms f32), 1 and 2 threads (tokens/s = items_per_second), and q4_0 on the AVX2
// kernels when the CPU has better (what an AVX2-only CPU runs); edgeq's whole greedy
// 256-step generation loop (sampling and detokenizing included, 1 thread); run.c's own "achieved
// tok/s" over the same 256-step greedy generation. At the end a table gives each row as a multiple
// of run.c's f32 tokens/s.
//
// run.c is not part of edgeq: build it outside the repository and pass its path,
//   git --git-dir=/work/.mirror/karpathy+llama2.c/repo show HEAD:run.c > /tmp/llama2c/run.c
//   gcc -O3 -march=native -o /tmp/llama2c/run /tmp/llama2c/run.c -lm
//   bazel run //benchmarks:tinystories_benchmark -- --runc=/tmp/llama2c/run
// Without --runc (or EDGEQ_RUNC) the run.c row is skipped and no ratios are printed.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/quantize_rules.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "examples/tinystories/generate.h"
#include "examples/tinystories/random_llama.h"
#include "examples/tinystories/sampler.h"
#include "llm/model.h"
#include "runtime/kernels/qmatmul.h"
#include "tokenizer/llama2c.h"

namespace edgeq {
namespace {

using checkpoint::MetadataValue;

// The stories15M shape (tinystories::RandomLlamaOptions's defaults).
constexpr int kVocab = 32000, kSeq = 256;

struct Setup {
  std::string dir;        // temporary directory holding the files below
  std::string model_bin;  // llama2.c .bin (f32)
  std::string tokenizer;  // a 32000-piece llama2.c tokenizer for run.c
  std::string runc;       // run.c binary, or empty
};
Setup& TheSetup() {
  static Setup* s = new Setup;
  return *s;
}

// A llama2.c tokenizer with kVocab pieces: <unk>, BOS, EOS, the 256 byte pieces (so run.c's
// byte fallback encodes any prompt), " ", then distinct filler words.
absl::Status WriteTokenizer(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  auto put_i32 = [&](int32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
  put_i32(16);  // max_token_length
  for (int i = 0; i < kVocab; ++i) {
    std::string piece;
    if (i == 0) {
      piece = "<unk>";
    } else if (i == 1) {
      piece = "\n<s>\n";
    } else if (i == 2) {
      piece = "\n</s>\n";
    } else if (i < 3 + 256) {
      piece = absl::StrFormat("<0x%02X>", i - 3);
    } else if (i == 3 + 256) {
      piece = " ";  // run.c's dummy prefix: looked up before every non-empty prompt
    } else {
      piece = absl::StrCat(" w", i);
    }
    const float score = -static_cast<float>(i);
    f.write(reinterpret_cast<const char*>(&score), 4);
    put_i32(static_cast<int32_t>(piece.size()));
    f.write(piece.data(), piece.size());
  }
  f.close();
  if (!f) return absl::InternalError(absl::StrCat("cannot write tokenizer ", path));
  return absl::OkStatus();
}

absl::Status PrepareFiles() {
  Setup& s = TheSetup();
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = absl::StrCat(tmp != nullptr ? tmp : "/tmp", "/tinystories_bench.XXXXXX");
  if (::mkdtemp(templ.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("mkdtemp ", templ, ": ", std::strerror(errno)));
  }
  s.dir = templ;
  s.model_bin = s.dir + "/stories15M_random.bin";
  s.tokenizer = s.dir + "/tok32000.bin";
  absl::StatusOr<checkpoint::TensorDict> d = tinystories::RandomLlama();  // stories15M shape
  if (!d.ok()) return d.status();
  absl::Status st = checkpoint::WriteLlama2c(*d, s.model_bin);
  if (!st.ok()) return st;
  return WriteTokenizer(s.tokenizer);
}

// The model as the pipeline builds it: the .bin read back, then the default rules for
// `encoding` ("none" keeps f32).
absl::StatusOr<std::unique_ptr<llm::Model>> LoadModel(const std::string& encoding, int threads,
                                                      kernels::Isa isa_cap = kernels::Isa::kBest) {
  absl::StatusOr<checkpoint::TensorDict> f32 = checkpoint::ReadLlama2c(TheSetup().model_bin);
  if (!f32.ok()) return f32.status();
  absl::StatusOr<std::vector<checkpoint::QuantizeRule>> rules =
      checkpoint::DefaultQuantizeRules(encoding);
  if (!rules.ok()) return rules.status();
  absl::StatusOr<checkpoint::TensorDict> q = checkpoint::QuantizeDict(*f32, *rules);
  if (!q.ok()) return q.status();
  return llm::Model::Load(*q, {.num_threads = threads, .isa_cap = isa_cap});
}

// One iteration = one decoded token (logits for a token at the next position; positions cycle
// through the context, so attention spans 0..255 cached rows, as in a 256-step generation).
// `isa_cap` limits the kernels (e.g. kAvx2: what an AVX2-only CPU would run).
void BM_Decode(benchmark::State& state, const char* encoding, kernels::Isa isa_cap) {
  absl::StatusOr<std::unique_ptr<llm::Model>> model =
      LoadModel(encoding, static_cast<int>(state.range(0)), isa_cap);
  if (!model.ok()) {
    state.SkipWithError(std::string(model.status().message()).c_str());
    return;
  }
  int pos = 0, token = 1;
  for (auto _ : state) {
    absl::StatusOr<absl::Span<const float>> logits = (*model)->Forward(token, pos);
    if (!logits.ok()) {
      state.SkipWithError(std::string(logits.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(logits->data());
    token = (token * 31 + 7) % kVocab;
    pos = (pos + 1) % kSeq;
  }
  state.SetItemsProcessed(state.iterations());  // items/s = tokens/s
}

// One iteration = a whole greedy generation as the pipeline runs it (Generate: prompt prefill,
// then decode with the sampler and the tokenizer's decoding, as run.c's loop does) over the
// context; the counter is its decode tokens/s, the measure run.c reports.
void BM_Generate(benchmark::State& state, const char* encoding) {
  absl::StatusOr<std::unique_ptr<llm::Model>> model =
      LoadModel(encoding, static_cast<int>(state.range(0)));
  absl::StatusOr<tokenizer::Llama2cTokenizer> tokenizer =
      tokenizer::Llama2cTokenizer::Load(TheSetup().tokenizer, kVocab);
  absl::StatusOr<tinystories::Sampler> sampler =
      tinystories::Sampler::Create(kVocab, {.temperature = 0.0f});
  for (const absl::Status& s : {model.status(), tokenizer.status(), sampler.status()}) {
    if (!s.ok()) {
      state.SkipWithError(std::string(s.message()).c_str());
      return;
    }
  }
  double steps = 0, seconds = 0;
  for (auto _ : state) {
    absl::StatusOr<tinystories::GenerateResult> r =
        tinystories::Generate(**model, *tokenizer, *sampler, "Once upon a time", kSeq);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    steps += r->generated_steps;
    seconds += r->decode_seconds;
  }
  state.counters["tok_per_s"] = seconds > 0 ? steps / seconds : 0;
}

// One iteration = one run of run.c: a 256-step greedy generation from a short prompt. Its own
// "achieved tok/s" (decode only: it starts timing after the first forward) is the counter.
void BM_RunC(benchmark::State& state) {
  const Setup& s = TheSetup();
  if (s.runc.empty()) {
    state.SkipWithError("no run.c binary: pass --runc=PATH (see the top of this file)");
    return;
  }
  const std::string command =
      absl::StrFormat("'%s' '%s' -z '%s' -t 0 -n %d -i 'Once upon a time' 2>&1 >/dev/null", s.runc,
                      s.model_bin, s.tokenizer, kSeq);
  double sum = 0;
  int runs = 0;
  for (auto _ : state) {
    FILE* p = ::popen(command.c_str(), "r");
    if (p == nullptr) {
      state.SkipWithError("popen failed");
      return;
    }
    std::string out;
    char buf[256];
    while (std::fgets(buf, sizeof(buf), p) != nullptr) out += buf;
    const int rc = ::pclose(p);
    const size_t at = out.find("achieved tok/s: ");
    double tps = 0;
    if (rc != 0 || at == std::string::npos ||
        !absl::SimpleAtod(absl::string_view(out).substr(at + 16, out.find('\n', at) - at - 16),
                          &tps)) {
      state.SkipWithError(absl::StrCat("run.c failed (exit ", rc, "): ", out).c_str());
      return;
    }
    sum += tps;
    ++runs;
  }
  state.counters["run.c_tok_per_s"] = sum / runs;
}

// Keeps each row's tokens/s (edgeq: items_per_second; run.c: its own counter).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  RatioReporter() : ConsoleReporter(::isatty(1) ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.run_type != Run::RT_Iteration) continue;
      auto c = r.counters.find("run.c_tok_per_s");
      if (c == r.counters.end()) c = r.counters.find("tok_per_s");
      if (c != r.counters.end()) {
        tokens_per_s[r.benchmark_name()] = c->second.value;
        continue;
      }
      auto items = r.counters.find("items_per_second");
      if (items != r.counters.end()) tokens_per_s[r.benchmark_name()] = items->second.value;
    }
  }
  std::map<std::string, double> tokens_per_s;
};

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  std::vector<char*> args;
  const char* env = std::getenv("EDGEQ_RUNC");
  if (env != nullptr) edgeq::TheSetup().runc = env;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--runc=", 7) == 0) {
      edgeq::TheSetup().runc = argv[i] + 7;
    } else {
      args.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  absl::Status st = edgeq::PrepareFiles();
  if (!st.ok()) {
    std::fprintf(stderr, "tinystories_benchmark: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  for (int threads : {1, 2}) {
    for (const char* encoding : {"none", "q4_0"}) {
      benchmark::RegisterBenchmark(
          absl::StrCat("Decode/", std::string(encoding) == "none" ? "f32" : encoding).c_str(),
          edgeq::BM_Decode, encoding, edgeq::kernels::Isa::kBest)
          ->ArgName("threads")
          ->Arg(threads)
          ->UseRealTime()
          ->MinTime(2.0);
    }
  }
  // The q4_0 model on the AVX2 kernels (cap), where the CPU has something better: an AVX2-only
  // CPU's kernels, measured here.
  if (edgeq::kernels::IsaSupported(edgeq::kernels::Isa::kAvx2) &&
      edgeq::kernels::BestSupportedIsa() != edgeq::kernels::Isa::kAvx2) {
    for (int threads : {1, 2}) {
      benchmark::RegisterBenchmark("Decode/q4_0/isa:avx2", edgeq::BM_Decode, "q4_0",
                                   edgeq::kernels::Isa::kAvx2)
          ->ArgName("threads")
          ->Arg(threads)
          ->UseRealTime()
          ->MinTime(2.0);
    }
  }
  for (const char* encoding : {"none", "q4_0"}) {
    benchmark::RegisterBenchmark(
        absl::StrCat("Generate256/", std::string(encoding) == "none" ? "f32" : encoding).c_str(),
        edgeq::BM_Generate, encoding)
        ->ArgName("threads")
        ->Arg(1)
        ->Iterations(3)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("run.c/f32/threads:1", edgeq::BM_RunC)
      ->Iterations(3)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
  edgeq::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  auto base = reporter.tokens_per_s.begin();
  while (base != reporter.tokens_per_s.end() && base->first.rfind("run.c/", 0) != 0) ++base;
  if (base != reporter.tokens_per_s.end() && base->second > 0) {
    std::printf("\ndecode tokens/s as a multiple of run.c f32 (%.1f tok/s) in this run:\n",
                base->second);
    for (const auto& [name, tps] : reporter.tokens_per_s) {
      std::printf("  %-50s %8.1f tok/s  %5.2fx\n", name.c_str(), tps, tps / base->second);
    }
  }
  std::remove(edgeq::TheSetup().model_bin.c_str());
  std::remove(edgeq::TheSetup().tokenizer.c_str());
  ::rmdir(edgeq::TheSetup().dir.c_str());
  return 0;
}
