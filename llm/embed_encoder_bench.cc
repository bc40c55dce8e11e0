// Batched encoder embeddings against one text at a time (issue 31): 64 short texts (8 to 22
// words from a fixed word list) embedded by one EmbedBatch call, and by 64 calls of one text
// each, alternated round by round in the same run; prints the milliseconds per text of each
// (the median of the rounds) and their ratio. Not a test (timings vary); run it by hand:
//
//   bazel run -c opt //llm:embed_encoder_bench -- MODEL.gguf [THREADS] [ROUNDS] [BLOCK_ROWS]
//
// MODEL: an encoder GGUF with a vocabulary (e.g. make_random_encoder --shape=bge-small
// --vocab=../shared/vocab/ggml-vocab-bert-bge.gguf).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "llm/embed_encoder.h"

namespace {

std::vector<std::string> Texts() {
  const char* words[] = {"the",   "quick",    "brown", "fox",    "jumps", "over", "lazy",
                         "dog",   "and",      "runs",  "to",     "big",   "red",  "barn",
                         "a",     "small",    "cat",   "sleeps", "under", "warm", "sun",
                         "while", "children", "play",  "in",     "garden"};
  std::vector<std::string> texts;
  uint64_t s = 12345;
  for (int i = 0; i < 64; ++i) {
    std::string t;
    const int n = 8 + i % 15;
    for (int w = 0; w < n; ++w) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      t += (w ? " " : "") + std::string(words[(s >> 33) % 26]);
    }
    texts.push_back(t);
  }
  return texts;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: embed_encoder_bench MODEL.gguf [THREADS] [ROUNDS]\n");
    return 2;
  }
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 5;
  edgeq::llm::EncoderOptions options;
  options.num_threads = threads;
  if (argc > 4) options.max_block_rows = std::atoi(argv[4]);
  auto e = edgeq::llm::Encoder::Load(argv[1], options);
  if (!e.ok()) {
    std::fprintf(stderr, "%s\n", std::string(e.status().message()).c_str());
    return 1;
  }
  auto ids = (*e)->Tokenize(Texts());
  if (!ids.ok()) return 1;
  size_t tokens = 0;
  for (const auto& s : *ids) tokens += s.size();
  const edgeq::llm::Pooling pool = edgeq::llm::Pooling::kMean;
  // Warm-up: builds every block size's graph once.
  if (!(*e)->EmbedBatch(*ids, pool, 2).ok()) return 1;
  for (const auto& s : *ids) (void)(*e)->EmbedBatch({s}, pool, 2);
  std::vector<double> batch_ms, single_ms;
  using Clock = std::chrono::steady_clock;
  for (int r = 0; r < rounds; ++r) {
    auto t0 = Clock::now();
    if (!(*e)->EmbedBatch(*ids, pool, 2).ok()) return 1;
    auto t1 = Clock::now();
    for (const auto& s : *ids) {
      if (!(*e)->EmbedBatch({s}, pool, 2).ok()) return 1;
    }
    auto t2 = Clock::now();
    batch_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count() / ids->size());
    single_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count() / ids->size());
  }
  const double b = Median(batch_ms), s = Median(single_ms);
  std::printf(
      "%zu texts, %zu tokens, %d threads, %d rounds, blocks of <= %d rows: batch %.3f ms/text, one "
      "at a time "
      "%.3f ms/text, ratio %.2fx\n",
      ids->size(), tokens, threads, rounds, options.max_block_rows, b, s, s / b);
  return 0;
}
