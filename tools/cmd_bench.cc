// `edgeq bench MODEL [-p 512] [-n 128] [-r 5] [-t 1,2] [-d 0] [-o md|csv|json]`: prefill and
// decode speed as llama.cpp's llama-bench measures it (random token ids, no tokenizer; a warm-up
// run, then -r timed runs after -d positions of the KV cache were filled: ppN = N prompt tokens at
// once, tgN = N tokens one at a time), with peak resident memory (VmHWM), model bytes and the
// matrix kernels used; first a `ttft` row: model open to the first generated token of a 16-token
// prompt, in parts.
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "checkpoint/formats.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "llm/argmax.h"
#include "llm/model.h"
#include "llm/open.h"
#include "tools/command.h"
#include "tools/llm_cli.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kBenchUsage[] =
    "MODEL [-p 512] [-n 128] [-r 5] [-t 1,2] [-d 0] [-ub 512] [-o md|csv|json] [--profile] "
    "[--roofline] [-ctk TYPE] [--isa NAME]\n"
    "  -p, --n-prompt N     prompt tokens of the prefill test ppN (0: none; default 512)\n"
    "  -n, --n-gen N        tokens of the decode test tgN (0: none; default 128)\n"
    "  -r, --repetitions N  timed runs per test after one warm-up run (default 5)\n"
    "  -t, --threads LIST   thread counts, comma-separated (default 1,2; each at most 4 x the\n"
    "                       online CPUs, at most 256)\n"
    "  -d, --n-depth LIST   KV cache positions filled (once, not timed) before each test,\n"
    "                       comma-separated (default 0); rows say `pp512 @ d4096`\n"
    "  -ub, --ubatch-size N prompt tokens per prefill graph run (default 512, llama.cpp's ubatch;\n"
    "                       1: one at a time; at most 4096; -b, --batch: the same)\n"
    "  -o, --output FORMAT  md (default), csv or json, to stdout\n"
    "  --profile            after each test, the time per op and kernel over its timed runs\n"
    "  --roofline           measure the memory read bandwidth (a STREAM-like sum over 1 GiB with\n"
    "                       the same threads, prefetching as the kernels do) and give the weight\n"
    "                       bytes a decode step reads (all but an untied token embedding) per\n"
    "                       second as a share of it\n" EDGEQ_KV_CACHE_USAGE EDGEQ_ISA_USAGE
    "tokens/s are mean +- standard deviation over the runs; peak RSS is the process's VmHWM after "
    "the test.\nThe ttft row (per thread count, first): model open to the first generated token "
    "of a 16-token\nprompt (open + load + repack + prefill + first decode step, in ms; the file "
    "as the page cache has it).";

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Row {
  std::string model, type, test, kernels, roofline;
  uint64_t bytes = 0, params = 0, peak_rss = 0;
  int threads = 0, n_prompt = 0, n_gen = 0, n_depth = 0;
  double mean = 0, sd = 0;
  double ms = 0;     // the ttft row: milliseconds (mean and sd are 0)
  std::string note;  // the ttft row: its parts
  std::vector<double> samples;
};

std::string Mib(uint64_t bytes) { return absl::StrFormat("%.2f MiB", bytes / 1048576.0); }

void Print(const std::vector<Row>& rows, const std::string& format) {
  if (format == "csv") {
    absl::FPrintF(stdout,
                  "model_type,weight_type,model_size,model_n_params,n_threads,n_prompt,n_gen,"
                  "n_depth,test,avg_ts,stddev_ts,avg_ms,peak_rss_bytes,kernels,roofline,note\n");
    for (const Row& r : rows) {
      absl::FPrintF(
          stdout, "\"%s\",\"%s\",%d,%d,%d,%d,%d,%d,\"%s\",%.6f,%.6f,%.3f,%d,\"%s\",\"%s\",\"%s\"\n",
          r.model, r.type, r.bytes, r.params, r.threads, r.n_prompt, r.n_gen, r.n_depth, r.test,
          r.mean, r.sd, r.ms, r.peak_rss, r.kernels, r.roofline, r.note);
    }
    return;
  }
  if (format == "json") {
    absl::FPrintF(stdout, "[\n");
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::vector<std::string> samples;
      for (double s : r.samples) samples.push_back(absl::StrFormat("%.6f", s));
      absl::FPrintF(stdout,
                    "  {\"model_type\": \"%s\", \"weight_type\": \"%s\", \"model_size\": %d, "
                    "\"model_n_params\": %d, \"n_threads\": %d, \"n_prompt\": %d, \"n_gen\": %d, "
                    "\"n_depth\": %d, \"test\": \"%s\", \"avg_ts\": %.6f, \"stddev_ts\": %.6f, "
                    "\"samples_ts\": [%s], \"avg_ms\": %.3f, \"peak_rss_bytes\": %d, "
                    "\"kernels\": \"%s\", \"roofline\": \"%s\", \"note\": \"%s\"}%s\n",
                    r.model, r.type, r.bytes, r.params, r.threads, r.n_prompt, r.n_gen, r.n_depth,
                    r.test, r.mean, r.sd, absl::StrJoin(samples, ", "), r.ms, r.peak_rss, r.kernels,
                    r.roofline, r.note, i + 1 < rows.size() ? "," : "");
    }
    absl::FPrintF(stdout, "]\n");
    return;
  }
  bool any_roofline = false;
  for (const Row& r : rows) any_roofline |= !r.roofline.empty();
  absl::FPrintF(
      stdout,
      "| model | size | params | backend | threads | test | t/s | peak RSS | kernels |%s\n"
      "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |%s\n",
      any_roofline ? " roofline |" : "", any_roofline ? " --- |" : "");
  for (const Row& r : rows) {
    const std::string speed = r.test == "ttft" ? absl::StrFormat("%.1f ms", r.ms)
                                               : absl::StrFormat("%.2f ± %.2f", r.mean, r.sd);
    absl::FPrintF(stdout, "| %s %s | %s | %s | CPU | %d | %s | %s | %s | %s |%s\n", r.model, r.type,
                  Mib(r.bytes), ParamsLabel(r.params), r.threads, r.test, speed, Mib(r.peak_rss),
                  r.test == "ttft" ? r.note : r.kernels,
                  any_roofline ? absl::StrCat(" ", r.roofline, " |") : "");
  }
}

// Per-op time of the timed runs of one test, largest first, to stdout.
void PrintProfile(const std::string& title, const std::vector<llm::Model::OpTime>& ops,
                  double tokens) {
  double total = 0;
  for (const llm::Model::OpTime& o : ops) total += o.seconds;
  absl::FPrintF(stdout, "\nprofile: %s (%.3f ms per token in kernels)\n\n", title,
                1e3 * total / std::max(tokens, 1.0));
  absl::FPrintF(stdout,
                "| op | kernel | calls | ms | us/token | share |\n"
                "| --- | --- | ---: | ---: | ---: | ---: |\n");
  for (const llm::Model::OpTime& o : ops) {
    absl::FPrintF(stdout, "| %s | %s | %d | %.2f | %.2f | %.1f%% |\n", o.op, o.kernel, o.calls,
                  1e3 * o.seconds, 1e6 * o.seconds / std::max(tokens, 1.0),
                  total > 0 ? 100.0 * o.seconds / total : 0.0);
  }
  absl::FPrintF(stdout, "\n");
}

// Bytes per second `threads` threads read from a 1 GiB buffer (far beyond any cache): the best of
// 3 passes of a sum over 64-bit words, split evenly.
double MeasureReadBandwidth(int threads) {
  constexpr size_t kBytes = size_t{1} << 30;
  const size_t words = kBytes / sizeof(uint64_t);
  std::vector<uint64_t> buffer(words, 1);
  std::vector<uint64_t> sums(threads, 0);
  double best = 0;
  for (int pass = 0; pass < 3; ++pass) {
    const double t0 = Now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const size_t begin = words / threads * t;
        const size_t end = t + 1 == threads ? words : words / threads * (t + 1);
        // One 64-byte line per step, with a software prefetch 8 KiB ahead, as the qmatmul GEMV
        // kernels stream their weights (the hardware prefetcher alone reads a single stream
        // slower than they do).
        uint64_t a = 0, b = 0, c = 0, d = 0;
        size_t i = begin;
        for (; i + 8 <= end; i += 8) {
          __builtin_prefetch(&buffer[0] + i + 1024);
          a += buffer[i] + buffer[i + 4];
          b += buffer[i + 1] + buffer[i + 5];
          c += buffer[i + 2] + buffer[i + 6];
          d += buffer[i + 3] + buffer[i + 7];
        }
        for (; i < end; ++i) a += buffer[i];
        sums[t] = a + b + c + d;
      });
    }
    for (std::thread& th : pool) th.join();
    best = std::max(best, kBytes / (Now() - t0));
  }
  uint64_t total = 0;
  for (uint64_t s : sums) total += s;
  if (total == 0) absl::FPrintF(stderr, "\n");  // keeps the sums alive
  return best;
}

// MeasureReadBandwidth in a child process, so that its buffer never counts in this process's peak
// resident memory (VmHWM). 0 if the child fails.
double ReadBandwidth(int threads) {
  int fds[2];
  if (pipe(fds) != 0) return 0;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return 0;
  }
  if (pid == 0) {
    close(fds[0]);
    const double bw = MeasureReadBandwidth(threads);
    const ssize_t written = write(fds[1], &bw, sizeof(bw));
    _exit(written == sizeof(bw) ? 0 : 1);
  }
  close(fds[1]);
  double bw = 0;
  if (read(fds[0], &bw, sizeof(bw)) != sizeof(bw)) bw = 0;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return bw;
}

// The tokens/s samples of one test (a warm-up run, then `reps` timed ones) at `depth` cache
// positions already filled; with `profile`, the per-op table of the timed runs.
absl::Status RunTest(llm::Model& model, const Row& base, int64_t depth, int64_t reps, bool profile,
                     std::mt19937& rng, Row* row) {
  const int vocab = model.config().vocab_size;
  const int pos0 = static_cast<int>(depth);
  for (int64_t rep = 0; rep <= reps; ++rep) {  // run 0 is the warm-up
    if (rep == 1 && profile) {
      model.ResetProfile();
      model.EnableProfiling(true);
    }
    double seconds = 0;
    if (base.n_prompt > 0) {
      std::vector<int> tokens(base.n_prompt);
      for (int& x : tokens) x = static_cast<int>(rng() % vocab);
      const double t0 = Now();
      EDGEQ_RETURN_IF_ERROR(model.Prefill(tokens, pos0).status());
      seconds = Now() - t0;
    } else {
      int token = static_cast<int>(rng() % vocab);
      const double t0 = Now();
      for (int i = 0; i < base.n_gen; ++i) {
        EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model.Forward(token, pos0 + i));
        token = llm::ArgMax(logits);
      }
      seconds = Now() - t0;
    }
    if (rep > 0) row->samples.push_back((base.n_prompt + base.n_gen) / std::max(seconds, 1e-12));
  }
  double sum = 0, sq = 0;
  for (double x : row->samples) sum += x;
  row->mean = sum / row->samples.size();
  for (double x : row->samples) sq += (x - row->mean) * (x - row->mean);
  row->sd = row->samples.size() > 1 ? std::sqrt(sq / (row->samples.size() - 1)) : 0.0;
  row->peak_rss = PeakRssBytes();
  if (profile) {
    model.EnableProfiling(false);
    PrintProfile(absl::StrFormat("%s, %d threads, %d timed runs", row->test, row->threads, reps),
                 model.Profile(), static_cast<double>(reps * (base.n_prompt + base.n_gen)));
  }
  return absl::OkStatus();
}

// "ok" or the --roofline note of a decode row: the weight bytes a decode step reads per second as
// a share of the measured read bandwidth.
absl::StatusOr<std::string> Roofline(const llm::Model& model, const Row& row) {
  const double bw = ReadBandwidth(row.threads);
  if (bw <= 0) return absl::InternalError("--roofline: the bandwidth measurement failed");
  // Every weight but an untied token embedding, of which the gather reads one row (a tied one is
  // the classifier, read whole).
  double step_bytes = static_cast<double>(row.bytes);
  if (!model.config().tied_output) {
    absl::StatusOr<const Tensor*> embd = model.weights().Get("token_embd.weight");
    if (embd.ok()) step_bytes -= static_cast<double>((*embd)->size_bytes());
  }
  // A mixture of experts reads expert_used_count of its expert_count experts per token.
  const llm::ModelConfig& c = model.config();
  if (c.expert_count > 0) {
    for (const std::string& name : model.weights().Keys()) {
      if (!absl::StrContains(name, "_exps.")) continue;
      absl::StatusOr<const Tensor*> t = model.weights().Get(name);
      if (t.ok()) {
        step_bytes -= static_cast<double>((*t)->size_bytes()) *
                      (1.0 - static_cast<double>(c.expert_used_count) / c.expert_count);
      }
    }
  }
  return absl::StrFormat("%.1f GB/s read; weights %.2f GB/s = %.0f%%", bw / 1e9,
                         step_bytes * row.mean / 1e9, 100.0 * step_bytes * row.mean / bw);
}

// The tokens of the ttft row's prompt.
constexpr int kTtftPrompt = 16;

// Opens and loads the model for one thread count, timing the way to the first generated token of
// a kTtftPrompt-token prompt (open, load, repack, prefill, first decode step) into `ttft`.
absl::StatusOr<std::unique_ptr<llm::Model>> LoadTimed(const std::string& path, llm::ModelOptions mo,
                                                      Row* ttft) {
  const double t0 = Now();
  llm::OpenOptions oo;
  oo.tokenizer = llm::TokenizerUse::kNone;  // random tokens
  EDGEQ_ASSIGN_OR_RETURN(llm::OpenedModel opened, llm::OpenFile(path, oo));
  const double t1 = Now();
  EDGEQ_RETURN_IF_ERROR(opened.LoadModel(mo));
  llm::Model& model = *opened.model;
  const double t2 = Now();
  std::mt19937 rng(99);
  std::vector<int> prompt(kTtftPrompt);
  for (int& x : prompt) x = static_cast<int>(rng() % model.config().vocab_size);
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, model.Prefill(prompt, 0));
  const int first = llm::ArgMax(logits);
  const double t3 = Now();
  EDGEQ_RETURN_IF_ERROR(model.Forward(first, kTtftPrompt).status());
  const double t4 = Now();
  const double repack = model.prepare_seconds();
  ttft->test = "ttft";
  ttft->n_prompt = kTtftPrompt;
  ttft->n_gen = 1;
  ttft->ms = 1e3 * (t4 - t0);
  ttft->note = absl::StrFormat(
      "open %.1f + load %.1f + repack %.1f + prefill %d %.1f + first decode %.1f ms",
      1e3 * (t1 - t0), 1e3 * (t2 - t1 - repack), 1e3 * repack, kTtftPrompt, 1e3 * (t3 - t2),
      1e3 * (t4 - t3));
  ttft->peak_rss = PeakRssBytes();
  return std::move(opened.model);
}

// The process's resident memory after the tests, split as /proc/self/status gives it: anonymous
// (repacked weights, KV cache, activations, heap) and file-backed (mapped weights still read, the
// binary), with the weights' bytes as stored and the peak (VmHWM) beside them.
std::string ResidentReport(const llm::Model& model) {
  std::ifstream in("/proc/self/status");
  std::string line;
  double anon = 0, file = 0;
  while (std::getline(in, line)) {
    for (auto [key, out] :
         {std::pair<const char*, double*>{"RssAnon:", &anon}, {"RssFile:", &file}}) {
      if (!absl::StartsWith(line, key)) continue;
      int64_t kb = 0;
      std::string v(absl::StripAsciiWhitespace(line.substr(std::strlen(key))));
      if (absl::EndsWith(v, " kB")) v.resize(v.size() - 3);
      if (absl::SimpleAtoi(v, &kb)) *out = kb / 1024.0;
    }
  }
  return absl::StrFormat(
      "resident after the tests: anonymous %.2f MiB, file-backed %.2f MiB (weights as stored "
      "%.2f MiB; peak %.2f MiB)",
      anon, file, model.weight_bytes() / 1048576.0, PeakRssBytes() / 1048576.0);
}

// Bytes the C heap has handed out and not taken back (glibc's own accounting: its arenas' chunks
// in use and its directly mapped chunks); -1 where the C library does not say.
int64_t HeapBytesInUse() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
#else
  return -1;
#endif
}

// The model's memory by kind (llm::Model::Memory, the allocators' accounting): weights, KV cache,
// recurrent states, and the rest: activations, the head (logits), the model's inputs and the
// rest of the heap (the file's metadata and vocabulary, graphs, kernels), with their sum.
std::string MemorySplit(const llm::Model& model) {
  const llm::Model::MemoryUse m = model.Memory();
  const int64_t heap = HeapBytesInUse();
  // The heap holds the KV cache, the states and the inputs (Tensor::Create); the rest of it is
  // the "other heap".
  const int64_t tensors = static_cast<int64_t>(m.kv_cache + m.recurrent_states + m.inputs);
  const int64_t other = heap < 0 ? 0 : std::max<int64_t>(0, heap - tensors);
  const double rest = static_cast<double>(m.activations + m.head + m.inputs + other);
  auto mib = [](double bytes) { return absl::StrFormat("%.2f", bytes / 1048576.0); };
  return absl::StrFormat(
      "weights %s MiB (read in place %s, repacked copies %s), KV cache %s MiB, recurrent states "
      "%s MiB, rest %s MiB (activations %s, head and logits %s, inputs %s, other heap %s)",
      mib(m.weights_in_place + m.weights_repacked), mib(m.weights_in_place),
      mib(m.weights_repacked), mib(m.kv_cache), mib(m.recurrent_states), mib(rest),
      mib(m.activations), mib(m.head), mib(m.inputs),
      heap < 0 ? std::string("unknown") : mib(other));
}

absl::Status Bench(const Args& raw_args) {
  EDGEQ_ASSIGN_OR_RETURN(const BenchFlags flags, ParseBenchFlags(raw_args.raw));
  const std::string& path = flags.model;
  const bool profile = flags.args.Has("profile"), roofline = flags.args.Has("roofline");
  const int64_t max_depth = *std::max_element(flags.depths.begin(), flags.depths.end());
  Row base;
  {  // The labels only: this dict (with the file's vocabulary) is not kept beside the model.
    EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint file, checkpoint::OpenCheckpoint(path));
    base.type = WeightTypeLabel(file.dict);
    base.params = ParameterCount(file.dict);
  }
  if (flags.cache_type != llm::kDefaultKvCacheType) {
    absl::StrAppend(&base.type, " KV ", llm::KvCacheTypeName(flags.cache_type));
  }
  std::vector<Row> rows;
  for (int threads : flags.threads) {
    llm::ModelOptions mo;
    mo.num_threads = threads;
    mo.prefill_block = flags.ubatch;
    mo.context_length = static_cast<int>(
        std::max<int64_t>(max_depth + flags.n_prompt + flags.n_gen, kTtftPrompt + 1));
    mo.kv_cache_type = flags.cache_type;
    mo.isa_cap = flags.isa_cap;
    base.threads = threads;
    Row ttft = base;
    EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<llm::Model> loaded, LoadTimed(path, mo, &ttft));
    llm::Model& model = *loaded;
    base.model = absl::StrCat(model.config().architecture, " ", ParamsLabel(base.params));
    base.bytes = model.weight_bytes();
    base.kernels = absl::StrJoin(model.MatmulKernels(), ", ");
    ttft.model = base.model;
    ttft.bytes = base.bytes;
    rows.push_back(ttft);
    absl::FPrintF(stderr, "ttft, %d threads: %.1f ms (%s)\n", threads, ttft.ms, ttft.note);
    std::mt19937 rng(1234);
    for (const int64_t depth : flags.depths) {
      if (depth > 0) {  // the cache filled once, not timed
        std::vector<int> fill(depth);
        for (int& x : fill) x = static_cast<int>(rng() % model.config().vocab_size);
        EDGEQ_RETURN_IF_ERROR(model.Prefill(fill, 0).status());
      }
      const std::string at = depth > 0 ? absl::StrCat(" @ d", depth) : "";
      for (const bool prompt : {true, false}) {
        Row row = base;
        row.n_depth = static_cast<int>(depth);
        row.n_prompt = prompt ? static_cast<int>(flags.n_prompt) : 0;
        row.n_gen = prompt ? 0 : static_cast<int>(flags.n_gen);
        if (row.n_prompt + row.n_gen == 0) continue;
        row.test = absl::StrCat(prompt ? "pp" : "tg", row.n_prompt + row.n_gen, at);
        EDGEQ_RETURN_IF_ERROR(RunTest(model, row, depth, flags.reps, profile, rng, &row));
        if (roofline && !prompt) {
          EDGEQ_ASSIGN_OR_RETURN(row.roofline, Roofline(model, row));
        }
        rows.push_back(std::move(row));
        absl::FPrintF(stderr, "%s, %d threads: %.2f tokens/s\n", rows.back().test, threads,
                      rows.back().mean);
      }
    }
    absl::FPrintF(stderr, "memory, %d threads: %s; %s\n", threads, MemoryReport(model),
                  ResidentReport(model));
    absl::FPrintF(stderr, "memory by kind, %d threads: %s\n", threads, MemorySplit(model));
  }
  Print(rows, flags.format);
  return absl::OkStatus();
}

int BenchCommand(const Args& args) {
  absl::Status s = Bench(args);
  return s.ok() ? 0 : LlmFail(args.command, s);
}

}  // namespace

EDGEQ_REGISTER_COMMAND(bench, "bench", kBenchUsage,
                       "Prefill and decode tokens/s of a model, as llama-bench (md, csv or json)",
                       BenchCommand);

}  // namespace tools
}  // namespace edgeq
