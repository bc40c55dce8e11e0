#include "tools/llm_cli.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "tools/llm_flags.h"

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
  EXPECT_EQ(a->GetInt("n-predict", 0).status().message(),
            "--n-predict 'ten': expected an integer in [-2147483648, 2147483647]");
  EXPECT_EQ(a->GetIntList("threads", {}, 1, 8).status().message(),
            "--threads '0': expected a comma-separated list of at most 64 integers in [1, 8]");
  EXPECT_EQ(a->GetFloat("temp", 0).status().message(), "--temp 'x': expected a finite number");
}

// Issue 27 F11: values beyond int were truncated by static_cast<int> (-n 4294967297 ran as
// -n 1, --top-k 4294967297 as 1, --repeat-last-n 4294967296 as 0). Every integer is parsed as
// 64 bits and refused, naming the flag and the range, when it does not fit.
TEST(LlmCliTest, IntegersOutOfRangeAreRefusedNotTruncated) {
  const std::vector<OptionSpec> specs = [] {
    std::vector<OptionSpec> s = kSpecs;
    for (const OptionSpec& o : SamplerOptionSpecs()) s.push_back(o);
    return s;
  }();
  struct Case {
    std::vector<std::string> argv;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--top-k", "4294967297"},
       "--top-k '4294967297': expected an integer in [-2147483648, 2147483647]"},
      {{"--repeat-last-n", "4294967296"},
       "--repeat-last-n '4294967296': expected an integer in [-1, 2147483647]"},
      {{"--repeat-last-n", "-2"}, "--repeat-last-n '-2': expected an integer in [-1, 2147483647]"},
      {{"-s", "4294967296"}, "--seed '4294967296': expected an integer in [-1, 4294967295]"},
      {{"--top-k", "99999999999999999999"},
       "--top-k '99999999999999999999': expected an integer in [-2147483648, 2147483647]"},
      {{"--top-k", "+5"}, "--top-k '+5': expected an integer in [-2147483648, 2147483647]"},
      {{"--top-k", "05"}, "--top-k '05': expected an integer in [-2147483648, 2147483647]"},
      {{"--temp", "1e39"}, "--temp '1e39': expected a finite number"},
      {{"--temp", "nan"}, "--temp 'nan': expected a finite number"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<LlmArgs> a = ParseLlmArgs(c.argv, specs);
    ASSERT_TRUE(a.ok()) << a.status();
    absl::Status s = ParseSamplerOptions(*a).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.argv[0];
    EXPECT_EQ(s.message(), c.message);
  }
  absl::StatusOr<LlmArgs> a = ParseLlmArgs({"-n", "4294967297"}, kSpecs);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->GetInt("n-predict", -1, -1).status().message(),
            "--n-predict '4294967297': expected an integer in [-1, 2147483647]");
  // The largest values that fit are taken as they are.
  a = ParseLlmArgs({"--top-k", "2147483647", "--repeat-last-n", "2147483647", "-s", "4294967294"},
                   specs);
  ASSERT_TRUE(a.ok());
  absl::StatusOr<llm::SamplerOptions> so = ParseSamplerOptions(*a);
  ASSERT_TRUE(so.ok()) << so.status();
  EXPECT_EQ(so->top_k, 2147483647);
  EXPECT_EQ(so->penalty_last_n, 2147483647);
  EXPECT_EQ(so->seed, 4294967294u);
  // A 10 MB value is quoted cut, not repeated whole.
  a = ParseLlmArgs({"--top-k", std::string(10 << 20, '9')}, specs);
  ASSERT_TRUE(a.ok());
  EXPECT_LT(ParseSamplerOptions(*a).status().message().size(), 200u);
}

// Issue 27 F5: -t 300 (or 1024) hung in pthreadpool_create when the threads' stacks did not
// fit the address space. Thread counts above 4 x the online CPUs (at most 256) are refused.
TEST(LlmCliTest, ThreadCountIsCapped) {
  const int max = MaxThreads();
  ASSERT_GE(max, 4);
  ASSERT_LE(max, kMaxThreadsCeiling);
  absl::StatusOr<LlmArgs> a = ParseLlmArgs({"-t", std::to_string(max)}, kSpecs);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*GetThreads(*a), max);
  for (const std::string& v : {std::to_string(max + 1), std::string("300"), std::string("1024"),
                               std::string("-1"), std::string("4294967297")}) {
    a = ParseLlmArgs({"-t", v}, kSpecs);
    ASSERT_TRUE(a.ok());
    absl::Status s = GetThreads(*a).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << v;
    EXPECT_TRUE(absl::StartsWith(
        s.message(), absl::StrCat("--threads '", v, "': expected an integer in [0, ", max, "]")))
        << s.message();
    EXPECT_EQ(GetThreads(*ParseLlmArgs({"-t", "1,2"}, kSpecs)).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  a = ParseLlmArgs({"-t", "0"}, kSpecs);
  EXPECT_EQ(*GetThreads(*a), 0);  // the default, which the command resolves
  EXPECT_EQ(*GetThreads(*ParseLlmArgs({}, kSpecs)), 0);
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
  d.SetMetadata("tokenizer.ggml.model", checkpoint::MetadataValue::String("t5"));
  d.SetMetadata("tokenizer.ggml.tokens", checkpoint::MetadataValue::StringArray({"a", "b"}));
  absl::Status s = OpenTokenizer(d, "m.gguf", "", 2).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'m.gguf': vocabulary:"), std::string::npos) << s;
  EXPECT_NE(s.message().find("t5"), std::string::npos) << s;
  s = OpenTokenizer(checkpoint::TensorDict(), "m.bin", "", 10).status();
  EXPECT_NE(s.message().find("carries no vocabulary"), std::string::npos) << s;
}

// Each command's flags are checked without a model; what attackers control is quoted, cut.
TEST(LlmCliTest, CommandFlagsAreCheckedWithoutAModel) {
  absl::StatusOr<RunFlags> run =
      ParseRunFlags({"m.gguf", "-p", "hi", "-n", "5", "-t", "1", "--temp", "0"});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->model, "m.gguf");
  EXPECT_EQ(run->prompt, "hi");
  EXPECT_EQ(run->n_predict, 5);
  EXPECT_EQ(run->threads, 1);
  EXPECT_EQ(ParseRunFlags({"m", "-p", "x", "-f", "y"}).status().message(),
            "-p TEXT and -f FILE both given; expected one");
  EXPECT_EQ(ParseRunFlags({"m"}).status().message(), "no prompt given (-p TEXT or -f FILE)");
  EXPECT_EQ(ParseChatFlags({"m", "-c", "1048577"}).status().message(),
            "--ctx-size '1048577': expected an integer in [0, 1048576]");
  EXPECT_EQ(ParsePerplexityFlags({"m", "-f", "t", "-c", "1"}).status().message(),
            "--ctx-size '1': expected an integer in [2, 1048576]");
  EXPECT_EQ(ParseBenchFlags({"m", "-p", "0", "-n", "0"}).status().message(),
            "nothing to measure: -p and -n are both 0");
  EXPECT_EQ(ParseTokenizeFlags({"m"}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseRunFlags({"m", "-p", "x", "-ctk", "q4_0"}).status().message(),
            "--cache-type-k: unsupported KV cache type 'q4_0'; expected f32, f16 or q8_0");
  absl::StatusOr<RunFlags> f16 = ParseRunFlags({"m", "-p", "x", "-ctk", "f16", "-ctv", "f16"});
  ASSERT_TRUE(f16.ok()) << f16.status();
  EXPECT_EQ(f16->cache_type, llm::KvCacheType::kF16);
  const std::string long_name = "--" + std::string(100000, 'x');
  absl::Status s = ParseRunFlags({"m", long_name}).status();
  EXPECT_TRUE(absl::StartsWith(s.message(), "unknown option '--xxxx")) << s.message().substr(0, 80);
  EXPECT_LT(s.message().size(), 1000u);
}

// --isa caps the kernels of run, chat, perplexity and bench; names this CPU cannot run are refused
// with the list of those it can.
TEST(LlmCliTest, IsaCapIsParsedAndChecked) {
  EXPECT_EQ(ParseRunFlags({"m", "-p", "x"})->isa_cap, kernels::Isa::kBest);
  EXPECT_EQ(ParseRunFlags({"m", "-p", "x", "--isa", "generic"})->isa_cap, kernels::Isa::kGeneric);
  EXPECT_EQ(ParseChatFlags({"m", "--isa", "generic"})->isa_cap, kernels::Isa::kGeneric);
  EXPECT_EQ(ParsePerplexityFlags({"m", "-f", "t", "--isa", "GENERIC"})->isa_cap,
            kernels::Isa::kGeneric);
  EXPECT_EQ(ParseBenchFlags({"m", "--isa", "best"})->isa_cap, kernels::Isa::kBest);
  const kernels::Isa best = kernels::BestSupportedIsa();
  EXPECT_EQ(ParseBenchFlags({"m", "--isa", std::string(kernels::IsaName(best))})->isa_cap, best);
  const absl::Status unknown = ParseBenchFlags({"m", "--isa", "sse9"}).status();
  EXPECT_TRUE(absl::StartsWith(unknown.message(),
                               "--isa 'sse9': unknown instruction set; expected one this CPU runs: "
                               "generic"))
      << unknown.message();
  EXPECT_TRUE(absl::EndsWith(unknown.message(), ", best")) << unknown.message();
#if defined(__x86_64__)
  const char* other = "neon";
#else
  const char* other = "avx2";
#endif
  const absl::Status foreign = ParseRunFlags({"m", "-p", "x", "--isa", other}).status();
  EXPECT_EQ(foreign.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(foreign.message(), "this CPU cannot run it")) << foreign.message();
  EXPECT_EQ(ParseRunFlags({"m", "-p", "x", "--isa"}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
