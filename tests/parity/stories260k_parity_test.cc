// llama.cpp parity on the real stories260K GGUF (../shared/models, through @edgeq_refdata): the
// logits at the recorded positions and the first 32 greedy tokens after each of four prompts.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "tests/parity/parity_util.h"
#include "tests/parity/random_parity.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace parity {
namespace {

class Stories260kParity : public ::testing::TestWithParam<const char*> {};

TEST_P(Stories260kParity, LogitsAndGreedyEqualLlamaCpp) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  absl::StatusOr<Reference> ref =
      ReadReference(absl::StrCat("tests/parity/testdata/stories260K/", GetParam()));
  ASSERT_TRUE(ref.ok()) << ref.status();
  ASSERT_EQ(ref->greedy.size(), static_cast<size_t>(kGreedyTokens));
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(path, ParityOptions(64));
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Result> r = RunReference(**model, *ref, kGreedyTokens);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LE(r->max_relative_difference, kMaxRelativeLogitDifference);
  EXPECT_EQ(r->greedy, ref->greedy);
  std::printf(
      "stories260K %s: max |edgeq - llama.cpp| / max |llama.cpp| = %.3g over %zu "
      "positions\n",
      GetParam(), r->max_relative_difference, ref->positions.size());
}

// llama-perplexity -c 128 --chunks 10 -ctk f32 -ctv f32 on testdata/ppl_text.txt: the running
// perplexity it printed after chunks 1..9 (it exited after the 9th without a final line).
TEST(Stories260kPerplexity, EqualsLlamaCpp) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(path, "models/stories260K.gguf");
  absl::StatusOr<std::unique_ptr<llm::Model>> model =
      llm::Model::Load(path, ParityOptions(kPerplexityContext));
  ASSERT_TRUE(model.ok()) << model.status();
  size_t chunks = 0;
  const double rel =
      CheckPerplexity(**model, "tests/parity/testdata/ppl_ids_stories260K.txt", /*add_bos=*/true,
                      {3.8013, 4.1656, 4.2011, 4.1960, 4.4110, 4.4863, 4.2017, 4.3397, 4.6722},
                      kMaxRelativePerplexityDifference, &chunks);
  std::printf("stories260K perplexity: max relative difference %.3g over %zu chunks\n", rel,
              chunks);
}

INSTANTIATE_TEST_SUITE_P(Prompts, Stories260kParity,
                         ::testing::Values("greedy_bos_only", "greedy_once_upon_a_time",
                                           "greedy_lily_wanted", "logits_girl"));

}  // namespace
}  // namespace parity
}  // namespace edgeq
