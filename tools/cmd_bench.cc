// `edgeq bench MODEL [-p 512] [-n 128] [-r 5] [-t 1,2] [-o md|csv|json]`: prefill and decode
// speed as llama.cpp's llama-bench measures it (random token ids, no tokenizer; a warm-up run,
// then -r timed runs from an empty context: ppN = N prompt tokens at once, tgN = N tokens one at a
// time), with peak resident memory (VmHWM), model bytes and the matrix kernels used.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/formats.h"
#include "core/status_macros.h"
#include "llm/model.h"
#include "tools/command.h"
#include "tools/llm_cli.h"

namespace edgeq {
namespace tools {
namespace {

constexpr char kBenchUsage[] =
    "MODEL [-p 512] [-n 128] [-r 5] [-t 1,2] [-o md|csv|json]\n"
    "  -p, --n-prompt N     prompt tokens of the prefill test ppN (0: none; default 512)\n"
    "  -n, --n-gen N        tokens of the decode test tgN (0: none; default 128)\n"
    "  -r, --repetitions N  timed runs per test after one warm-up run (default 5)\n"
    "  -t, --threads LIST   thread counts, comma-separated (default 1,2)\n"
    "  -o, --output FORMAT  md (default), csv or json, to stdout\n"
    "tokens/s are mean +- standard deviation over the runs; peak RSS is the process's VmHWM after "
    "the test.";

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Row {
  std::string model, type, test, kernels;
  uint64_t bytes = 0, params = 0, peak_rss = 0;
  int threads = 0, n_prompt = 0, n_gen = 0;
  double mean = 0, sd = 0;
  std::vector<double> samples;
};

std::string Mib(uint64_t bytes) { return absl::StrFormat("%.2f MiB", bytes / 1048576.0); }

void Print(const std::vector<Row>& rows, const std::string& format) {
  if (format == "csv") {
    absl::FPrintF(stdout,
                  "model_type,weight_type,model_size,model_n_params,n_threads,n_prompt,n_gen,"
                  "test,avg_ts,stddev_ts,peak_rss_bytes,kernels\n");
    for (const Row& r : rows) {
      absl::FPrintF(stdout, "\"%s\",\"%s\",%d,%d,%d,%d,%d,\"%s\",%.6f,%.6f,%d,\"%s\"\n", r.model,
                    r.type, r.bytes, r.params, r.threads, r.n_prompt, r.n_gen, r.test, r.mean, r.sd,
                    r.peak_rss, r.kernels);
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
                    "\"test\": \"%s\", \"avg_ts\": %.6f, \"stddev_ts\": %.6f, \"samples_ts\": "
                    "[%s], \"peak_rss_bytes\": %d, \"kernels\": \"%s\"}%s\n",
                    r.model, r.type, r.bytes, r.params, r.threads, r.n_prompt, r.n_gen, r.test,
                    r.mean, r.sd, absl::StrJoin(samples, ", "), r.peak_rss, r.kernels,
                    i + 1 < rows.size() ? "," : "");
    }
    absl::FPrintF(stdout, "]\n");
    return;
  }
  absl::FPrintF(stdout,
                "| model | size | params | backend | threads | test | t/s | peak RSS | kernels |\n"
                "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |\n");
  for (const Row& r : rows) {
    absl::FPrintF(stdout, "| %s %s | %s | %s | CPU | %d | %s | %.2f ± %.2f | %s | %s |\n", r.model,
                  r.type, Mib(r.bytes), ParamsLabel(r.params), r.threads, r.test, r.mean, r.sd,
                  Mib(r.peak_rss), r.kernels);
  }
}

absl::Status Bench(const Args& raw_args) {
  const std::vector<OptionSpec> specs = {{{"-p", "--n-prompt"}},
                                         {{"-n", "--n-gen"}},
                                         {{"-r", "--repetitions"}},
                                         {{"-t", "--threads"}},
                                         {{"-o", "--output"}}};
  EDGEQ_ASSIGN_OR_RETURN(LlmArgs args, ParseLlmArgs(raw_args.raw, specs));
  if (args.positional.size() != 1) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "expected one MODEL argument, got %d (usage: edgeq bench MODEL [-p 512] [-n 128] ...)",
        args.positional.size()));
  }
  const std::string path = args.positional[0];
  EDGEQ_ASSIGN_OR_RETURN(int64_t n_prompt, args.GetInt("n-prompt", 512, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(int64_t n_gen, args.GetInt("n-gen", 128, 0, 1 << 20));
  EDGEQ_ASSIGN_OR_RETURN(int64_t reps, args.GetInt("repetitions", 5, 1, 1000));
  EDGEQ_ASSIGN_OR_RETURN(std::vector<int> thread_list, args.GetIntList("threads", {1, 2}, 1, 1024));
  const std::string format = args.Get("output", "md");
  if (format != "md" && format != "csv" && format != "json") {
    return absl::InvalidArgumentError(absl::StrFormat("-o %s: expected md, csv or json", format));
  }
  if (n_prompt == 0 && n_gen == 0) {
    return absl::InvalidArgumentError("nothing to measure: -p and -n are both 0");
  }
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint file, checkpoint::OpenCheckpoint(path));
  std::vector<Row> rows;
  for (int threads : thread_list) {
    llm::ModelOptions mo;
    mo.num_threads = threads;
    mo.context_length = static_cast<int>(std::max<int64_t>(n_prompt + n_gen, 1));
    absl::StatusOr<std::unique_ptr<llm::Model>> loaded = llm::Model::Load(file.dict, mo);
    if (!loaded.ok()) {
      return absl::Status(loaded.status().code(),
                          absl::StrCat(path, ": ", loaded.status().message()));
    }
    llm::Model& model = **loaded;
    const int vocab = model.config().vocab_size;
    std::mt19937 rng(1234);
    auto random_tokens = [&](int64_t n) {
      std::vector<int> t(n);
      for (int& x : t) x = static_cast<int>(rng() % vocab);
      return t;
    };
    struct Test {
      std::string name;
      int64_t n_prompt, n_gen;
    };
    std::vector<Test> tests;
    if (n_prompt > 0) tests.push_back({absl::StrCat("pp", n_prompt), n_prompt, 0});
    if (n_gen > 0) tests.push_back({absl::StrCat("tg", n_gen), 0, n_gen});
    for (const Test& test : tests) {
      Row row;
      row.model =
          absl::StrCat(model.config().architecture, " ", ParamsLabel(ParameterCount(file.dict)));
      row.type = WeightTypeLabel(file.dict);
      row.bytes = model.weight_bytes();
      row.params = ParameterCount(file.dict);
      row.threads = threads;
      row.n_prompt = static_cast<int>(test.n_prompt);
      row.n_gen = static_cast<int>(test.n_gen);
      row.test = test.name;
      row.kernels = absl::StrJoin(model.MatmulKernels(), ", ");
      for (int64_t rep = 0; rep <= reps; ++rep) {  // run 0 is the warm-up
        double seconds = 0;
        if (test.n_prompt > 0) {
          const std::vector<int> tokens = random_tokens(test.n_prompt);
          const double t0 = Now();
          EDGEQ_RETURN_IF_ERROR(model.Prefill(tokens, 0).status());
          seconds = Now() - t0;
        } else {
          int token = static_cast<int>(rng() % vocab);
          const double t0 = Now();
          for (int64_t i = 0; i < test.n_gen; ++i) {
            EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits,
                                   model.Forward(token, static_cast<int>(i)));
            token =
                static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
          }
          seconds = Now() - t0;
        }
        if (rep > 0) {
          row.samples.push_back((test.n_prompt + test.n_gen) / std::max(seconds, 1e-12));
        }
      }
      double sum = 0, sq = 0;
      for (double s : row.samples) sum += s;
      row.mean = sum / row.samples.size();
      for (double s : row.samples) sq += (s - row.mean) * (s - row.mean);
      row.sd = row.samples.size() > 1 ? std::sqrt(sq / (row.samples.size() - 1)) : 0.0;
      row.peak_rss = PeakRssBytes();
      rows.push_back(std::move(row));
      absl::FPrintF(stderr, "%s, %d threads: %.2f tokens/s\n", test.name, threads,
                    rows.back().mean);
    }
  }
  Print(rows, format);
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
