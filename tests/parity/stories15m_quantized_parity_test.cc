// Quantized parity on the random-weight stories15M-shaped model: edgeq's quantizer, given the
// per-tensor types llama-quantize chose for Q8_0 and Q4_0, writes the same tensor bytes as
// llama-quantize did (so edgeq runs the very weights llama.cpp ran), and edgeq's perplexity on
// them is within 1% of llama-perplexity's. (Q4_K_M is not testable on this shape: its 288-column
// rows make llama-quantize fall back to q5_0, a block type edgeq does not read yet.)
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/quantize_rules.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/model.h"
#include "tests/parity/parity_util.h"
#include "tests/parity/random_parity.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace parity {
namespace {

struct QuantizedCase {
  const char* name;         // llama-quantize's type argument
  const char* rules;        // the per-tensor types of its output (norms stay f32)
  uint64_t tensor_xxh3;     // TensorDataXxh3 of llama-quantize's output file
  std::vector<double> ppl;  // llama-perplexity -c 128 -nr on that file, [1]..[6]
};

// Quantized perplexity bound (issue 15: within 1% of llama.cpp's).
constexpr double kMaxRelativeQuantizedPerplexityDifference = 0.01;

class Stories15mQuantizedParity : public ::testing::TestWithParam<QuantizedCase> {};

TEST_P(Stories15mQuantizedParity, SameTensorsAndPerplexityAsLlamaCpp) {
  const QuantizedCase& c = GetParam();
  EDGEQ_REFERENCE_DATA_OR_SKIP(vocab, "vocab/ggml-vocab-llama-spm.gguf");
  absl::StatusOr<checkpoint::TensorDict> f32 = RandomModelDict("stories15m", vocab, 0);
  ASSERT_TRUE(f32.ok()) << f32.status();
  absl::StatusOr<std::vector<checkpoint::QuantizeRule>> rules =
      checkpoint::ParseQuantizeRules(c.rules, c.name);
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<checkpoint::TensorDict> q = checkpoint::QuantizeDict(*f32, *rules);
  ASSERT_TRUE(q.ok()) << q.status();
  const uint64_t hash = TensorDataXxh3(*q);
  EXPECT_EQ(hash, c.tensor_xxh3) << absl::StrFormat(
      "%s: edgeq's tensors (XXH3-64 %016x) differ from llama-quantize's (%016x)", c.name, hash,
      c.tensor_xxh3);

  llm::ModelOptions options;
  options.num_threads = 1;
  options.context_length = kPerplexityContext;
  absl::StatusOr<std::unique_ptr<llm::Model>> model = llm::Model::Load(*q, options);
  ASSERT_TRUE(model.ok()) << model.status();
  const double rel =
      CheckPerplexity(**model, "tests/parity/testdata/ppl_ids_llama-spm.txt", /*add_bos=*/true,
                      c.ppl, kMaxRelativeQuantizedPerplexityDifference);
  std::printf("rand_stories15m %s: perplexity max relative difference %.3g over %zu chunks\n",
              c.name, rel, c.ppl.size());
}

INSTANTIATE_TEST_SUITE_P(LlamaQuantizeTypes, Stories15mQuantizedParity,
                         ::testing::Values(QuantizedCase{"Q8_0",
                                                         "* -> q8_0",
                                                         0x48d53553bfcfa120ull,
                                                         {37134.1275, 38110.5171, 37720.5383,
                                                          38401.9285, 38372.3808, 37820.8493}},
                                           QuantizedCase{"Q4_0",
                                                         "token_embd.weight -> q8_0\n* -> q4_0",
                                                         0xc715a999e41440edull,
                                                         {36615.3827, 38116.8154, 37718.6313,
                                                          38266.9966, 38159.1030, 37771.5771}}),
                         [](const ::testing::TestParamInfo<QuantizedCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace parity
}  // namespace edgeq
