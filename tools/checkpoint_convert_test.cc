// `edgeq convert` never writes over what it reads (issue 27, F8): the input file, or any file of
// a Hugging Face input directory, by whatever path or link names it.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "convert/hf_testing.h"
#include "gtest/gtest.h"
#include "llm/random_model.h"
#include "tools/checkpoint_report.h"

namespace edgeq {
namespace tools {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string HfDir(const std::string& name, int shards) {
  llm::RandomModelSpec spec;
  spec.name = "convert";
  spec.dim = 64, spec.layers = 1, spec.heads = 4, spec.kv_heads = 2, spec.ffn = 64;
  spec.vocab = 260, spec.context = 64;
  absl::StatusOr<checkpoint::TensorDict> m = llm::RandomModel(spec);
  EXPECT_TRUE(m.ok()) << m.status();
  const std::string dir = ::testing::TempDir() + "/" + name;
  ::mkdir(dir.c_str(), 0755);
  EXPECT_TRUE(convert::WriteHfCheckpointDir(spec, *m, dir, shards).ok());
  return dir;
}

// F8: `convert DIR DIR/model.safetensors` replaced its own input.
TEST(ConvertOutputTest, AFileOfTheInputDirectoryIsRefusedBeforeWriting) {
  const std::string dir = HfDir("convert_self", 1);
  const std::string input = dir + "/model.safetensors";
  const std::string before = ReadAll(input);
  ASSERT_FALSE(before.empty());
  const std::string link = ::testing::TempDir() + "/convert_self_link.safetensors";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(input.c_str(), link.c_str()), 0);
  for (const std::string& out : {input, dir + "/./model.safetensors", link, dir + "/config.json"}) {
    absl::StatusOr<std::string> c = ConvertCheckpoint(dir, out);
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << out;
    EXPECT_TRUE(absl::StrContains(c.status().message(), "a file of the input directory"))
        << c.status();
  }
  EXPECT_EQ(ReadAll(input), before);
  // A new file in the directory is fine.
  absl::StatusOr<std::string> c = ConvertCheckpoint(dir, dir + "/out.safetensors");
  EXPECT_TRUE(c.ok()) << c.status();
}

TEST(ConvertOutputTest, TheInputFileIsRefusedWithRulesToo) {
  const std::string dir = HfDir("convert_rules", 2);
  const std::string gguf = ::testing::TempDir() + "/convert_rules.gguf";
  ASSERT_TRUE(ConvertCheckpoint(dir, gguf).ok());
  const std::string before = ReadAll(gguf);
  const std::string rules = ::testing::TempDir() + "/convert_rules.txt";
  std::ofstream(rules) << "* -> q8_0\n";
  absl::StatusOr<std::string> c = ConvertCheckpoint(gguf, gguf, rules);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(c.status().message(), "is the input file")) << c.status();
  c = ConvertCheckpoint(dir, dir + "/model-00002-of-00002.safetensors", rules);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadAll(gguf), before);
}

}  // namespace
}  // namespace tools
}  // namespace edgeq
