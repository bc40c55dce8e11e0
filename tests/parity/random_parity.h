// The body of the random-model parity tests (one cc_test per model, tests/parity/BUILD): regenerate
// in memory the random-weight GGUF llama.cpp was run on, check that it is byte for byte that file
// (XXH3-64 of the bytes whose sha256 tests/parity/README.md lists), load it with llm::Model and
// compare the logits and the greedy continuation with llama.cpp's.
#ifndef EDGEQ_TESTS_PARITY_RANDOM_PARITY_H_
#define EDGEQ_TESTS_PARITY_RANDOM_PARITY_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

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
};

// llama.cpp's bound: f32 logits within 1e-4 of the largest |logit| (issue 15).
inline constexpr double kMaxRelativeLogitDifference = 1e-4;
// Greedy tokens compared (refdump -n 32).
inline constexpr int kGreedyTokens = 32;

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
    llm::ModelOptions options;
    options.num_threads = 1;
    options.context_length = 64;  // refdump's n_ctx
    absl::StatusOr<std::unique_ptr<llm::Model>> loaded = llm::Model::Load(*dict, options);
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

  std::printf(
      "%s: max |edgeq - llama.cpp| / max |llama.cpp| = %.3g over %zu positions; "
      "generate %.2f s, load %.2f s, %zu prompt tokens + %d greedy %.2f s\n",
      c.name, r->max_relative_difference, ref->positions.size(), t_generate, t_load,
      ref->tokens.size(), kGreedyTokens, t_run);
  ::testing::Test::RecordProperty("max_relative_logit_difference",
                                  absl::StrFormat("%.3g", r->max_relative_difference));
}

}  // namespace parity
}  // namespace edgeq

#endif  // EDGEQ_TESTS_PARITY_RANDOM_PARITY_H_
