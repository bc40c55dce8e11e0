#include "tools/llm_cli.h"

#include <string>
#include <vector>

#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace tools {
namespace {

const std::vector<OptionSpec> kSpecs = {{{"-p", "--prompt"}},
                                        {{"-n", "--n-predict"}},
                                        {{"--temp"}},
                                        {{"--ignore-eos"}, false},
                                        {{"-t", "--threads"}}};

TEST(LlmCliTest, ParsesLlamaCppStyleOptions) {
  absl::StatusOr<LlmArgs> a = ParseLlmArgs(
      {"m.gguf", "-p", "Once upon", "--n-predict=16", "--temp", "0.5", "--ignore-eos", "-t", "1,2"},
      kSpecs);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->positional, std::vector<std::string>({"m.gguf"}));
  EXPECT_EQ(a->Get("prompt"), "Once upon");
  EXPECT_EQ(*a->GetInt("n-predict", -1), 16);
  EXPECT_EQ(*a->GetFloat("temp", 0.8f), 0.5f);
  EXPECT_EQ(a->Get("ignore-eos"), "true");
  EXPECT_EQ(*a->GetIntList("threads", {1}, 1, 64), std::vector<int>({1, 2}));
  EXPECT_EQ(*a->GetInt("missing", 7), 7);
  // A negative number is a value, also as a positional argument.
  a = ParseLlmArgs({"-n", "-1", "-5"}, kSpecs);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a->GetInt("n-predict", 0), -1);
  EXPECT_EQ(a->positional, std::vector<std::string>({"-5"}));
}

TEST(LlmCliTest, BadOptionsAreNamed) {
  absl::Status s = ParseLlmArgs({"m", "--tmep", "1"}, kSpecs).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "unknown option '--tmep' (expected -p/--prompt, -n/--n-predict, --temp, --ignore-eos, "
            "-t/--threads)");
  EXPECT_EQ(ParseLlmArgs({"m", "-p"}, kSpecs).status().message(), "option -p needs a value");
  EXPECT_EQ(ParseLlmArgs({"--ignore-eos=1"}, kSpecs).status().message(),
            "option --ignore-eos takes no value");
  absl::StatusOr<LlmArgs> a = ParseLlmArgs({"-n", "ten", "-t", "0", "--temp", "x"}, kSpecs);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->GetInt("n-predict", 0).status().message(), "--n-predict ten: expected an integer");
  EXPECT_EQ(a->GetIntList("threads", {}, 1, 8).status().message(),
            "--threads 0: expected a comma-separated list of integers in [1, 8]");
  EXPECT_EQ(a->GetFloat("temp", 0).status().message(), "--temp x: expected a number");
}

TEST(LlmCliTest, Labels) {
  EXPECT_EQ(ParamsLabel(134515008), "134.52M");
  EXPECT_EQ(ParamsLabel(1235814400), "1.24B");
  checkpoint::TensorDict d;
  ASSERT_TRUE(d.Set("a", *Tensor::Full({4, 8}, 0.0f)).ok());
  ASSERT_TRUE(d.Set("n", *Tensor::Full({8}, 0.0f)).ok());
  EXPECT_EQ(ParameterCount(d), 40u);
  EXPECT_EQ(WeightTypeLabel(d), "F32");
  EXPECT_GT(PeakRssBytes(), 1u << 20);
}

TEST(LlmCliTest, UnsupportedVocabularyIsNamed) {
  checkpoint::TensorDict d;
  d.SetMetadata("tokenizer.ggml.model", checkpoint::MetadataValue::String("gpt2"));
  absl::Status s = OpenTokenizer(d, "m.gguf", "", 10).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("'m.gguf' has a 'gpt2' vocabulary"), std::string::npos) << s;
  s = OpenTokenizer(checkpoint::TensorDict(), "m.bin", "", 10).status();
  EXPECT_NE(s.message().find("carries no vocabulary"), std::string::npos) << s;
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
