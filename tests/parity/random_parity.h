// The body of the random-model parity tests (one cc_test per model, tests/parity/BUILD): regenerate
// in memory the random-weight GGUF llama.cpp was run on, check that it is byte for byte that file
// (XXH3-64 of the bytes whose sha256 tests/parity/README.md lists), load it with llm::Model and
// compare the logits and the greedy continuation with llama.cpp's.
#ifndef EDGEQ_TESTS_PARITY_RANDOM_PARITY_H_
#define EDGEQ_TESTS_PARITY_RANDOM_PARITY_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/gguf.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "tests/parity/parity_util.h"
#include "tests/util/reference_data.h"
#include "xxhash.h"

namespace edgeq {
namespace parity {

struct RandomCase {
  const char* name;   // testdata folder and file name: "rand_stories15m"
  const char* shape;  // make_random_gguf --shape
  const char* vocab;  // @edgeq_refdata path of --vocab: "vocab/ggml-vocab-llama-spm.gguf"
  int layers;         // make_random_gguf --layers (0: the shape's)
  uint64_t xxh3;      // XXH3-64 of the file llama.cpp read
  // llama.cpp's token ids of testdata/ppl_text.txt for this vocabulary ("ppl_ids_llama-spm.txt"),
  // whether its chunks start with BOS (id 1), and llama-perplexity's running perplexity after
  // each of the first chunks of 128 (-c 128), as it printed them (empty: none recorded).
  const char* ppl_ids;
  bool add_bos;
  std::vector<double> ppl;
};

// llama.cpp's bound: f32 logits within 1e-4 of the largest |logit| (issue 15).
inline constexpr double kMaxRelativeLogitDifference = 1e-4;
// Greedy tokens compared (refdump -n 32).
inline constexpr int kGreedyTokens = 32;
// llama-perplexity -c 128.
inline constexpr int kPerplexityContext = 128;
// f32 perplexity against llama.cpp's (printed with 4 decimals): relative bound (0.1%; measured
// <= 1.8e-4, on stories260K, whose logits are the sharpest; issue 15 asks 1% of quantized files).
inline constexpr double kMaxRelativePerplexityDifference = 1e-3;

// Checks RunningPerplexity against llama.cpp's running perplexities `expected` (one per chunk),
// within `tolerance` relative (on aarch64 the first chunk only); returns the largest relative
// difference seen (-1 on error), sets *chunks (if not null) to the chunks compared and *values (if
// not null) to edgeq's running perplexities.
inline double CheckPerplexity(llm::Model& model, const std::string& ids_path, bool add_bos,
                              const std::vector<double>& expected, double tolerance,
                              size_t* chunks = nullptr, std::vector<double>* values = nullptr) {
  absl::StatusOr<std::vector<int>> ids = ReadIds(ids_path);
  EXPECT_TRUE(ids.ok()) << ids.status();
  if (!ids.ok()) return -1;
    // Under qemu-aarch64 a chunk of 128 tokens takes ~25 s on stories15M: the first chunk only.
#if defined(__aarch64__)
  const int n_chunks = 1;
#else
  const int n_chunks = static_cast<int>(expected.size());
#endif
  absl::StatusOr<std::vector<double>> ppl =
      RunningPerplexity(model, *ids, kPerplexityContext, n_chunks, add_bos, /*bos=*/1);
  EXPECT_TRUE(ppl.ok()) << ppl.status();
  if (!ppl.ok()) return -1;
  if (chunks != nullptr) *chunks = ppl->size();
  if (values != nullptr) *values = *ppl;
  double worst = 0;
  for (size_t c = 0; c < ppl->size(); ++c) {
    const double rel = std::fabs((*ppl)[c] - expected[c]) / expected[c];
    worst = std::max(worst, rel);
    EXPECT_LE(rel, tolerance) << "chunk " << c + 1 << ": edgeq " << (*ppl)[c] << ", llama.cpp "
                              << expected[c];
  }
  return worst;
}

inline double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

inline void CheckRandomModelParity(const RandomCase& c) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(vocab, c.vocab);
  absl::StatusOr<Reference> ref =
      ReadReference(absl::StrCat("tests/parity/testdata/", c.name, "/logits_f32"));
  ASSERT_TRUE(ref.ok()) << ref.status();

  auto t0 = std::chrono::steady_clock::now();
  absl::StatusOr<std::shared_ptr<const std::string>> bytes = RandomGguf(c.shape, vocab, c.layers);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const double t_generate = Seconds(t0);
  const uint64_t hash = XXH3_64bits((*bytes)->data(), (*bytes)->size());
  EXPECT_EQ(hash, c.xxh3) << absl::StrFormat(
      "%s: the generator no longer writes the file llama.cpp was run on (XXH3-64 %016x, "
      "expected %016x): the reference data must be remade (tests/parity/README.md)",
      c.name, hash, c.xxh3);

  t0 = std::chrono::steady_clock::now();
  std::unique_ptr<llm::Model> model;
  {
    absl::StatusOr<checkpoint::TensorDict> dict = checkpoint::ReadGgufFromBuffer(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>((*bytes)->data()), (*bytes)->size()),
        *bytes);
    ASSERT_TRUE(dict.ok()) << dict.status();
    bytes->reset();  // the dict (then the model) keeps the bytes alive
    // kPerplexityContext >= refdump's n_ctx (64).
    absl::StatusOr<std::unique_ptr<llm::Model>> loaded =
        llm::Model::Load(*dict, ParityOptions(kPerplexityContext));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    model = *std::move(loaded);
  }
  const double t_load = Seconds(t0);

  t0 = std::chrono::steady_clock::now();
  absl::StatusOr<Result> r = RunReference(*model, *ref, kGreedyTokens);
  ASSERT_TRUE(r.ok()) << r.status();
  const double t_run = Seconds(t0);
  EXPECT_LE(r->max_relative_difference, kMaxRelativeLogitDifference);
  EXPECT_EQ(r->greedy, ref->greedy);

  t0 = std::chrono::steady_clock::now();
  size_t chunks = 0;
  const double ppl_rel =
      c.ppl.empty() ? -1
                    : CheckPerplexity(*model, absl::StrCat("tests/parity/testdata/", c.ppl_ids),
                                      c.add_bos, c.ppl, kMaxRelativePerplexityDifference, &chunks);
  const double t_ppl = Seconds(t0);

  std::printf(
      "%s: max |edgeq - llama.cpp| / max |llama.cpp| = %.3g over %zu positions; perplexity "
      "rel. diff %.3g over %zu chunks; generate %.2f s, load %.2f s, %zu prompt tokens + %d "
      "greedy %.2f s, perplexity %.2f s\n",
      c.name, r->max_relative_difference, ref->positions.size(), ppl_rel, chunks, t_generate,
      t_load, ref->tokens.size(), kGreedyTokens, t_run, t_ppl);
  ::testing::Test::RecordProperty("max_relative_logit_difference",
                                  absl::StrFormat("%.3g", r->max_relative_difference));
}

}  // namespace parity
}  // namespace edgeq

#endif  // EDGEQ_TESTS_PARITY_RANDOM_PARITY_H_
