#include "examples/tinystories/gguf_import.h"

#include <cstring>
#include <fstream>

#include "examples/tinystories/generate.h"
#include "examples/tinystories/testing.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace tinystories {
namespace {

using testing::TestDataPath;

// stories260K.gguf holds tensors bit-identical to stories260K.bin and the tok512 vocabulary.
TEST(GgufImportTest, MatchesTheLlama2cFile) {
  absl::StatusOr<GgufModel> g = LoadGgufLlama(TestDataPath("tests/testdata/stories260K.gguf"), 512);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<LlamaWeights> b = LoadLlama2cBin(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(g->weights.config.ToString(), b->config.ToString());
  ASSERT_EQ(g->weights.tensors.size(), b->tensors.size());
  for (const auto& [name, t] : b->tensors) {
    const Tensor& u = g->weights.tensors.at(name);
    ASSERT_EQ(u.shape(), t.shape()) << name;
    EXPECT_EQ(0, std::memcmp(u.raw_data(), t.raw_data(), t.size_bytes())) << name;
  }
  ASSERT_TRUE(g->tokenizer.has_value());
  absl::StatusOr<Tokenizer> tok = Tokenizer::Load(TestDataPath("tests/testdata/tok512.bin"), 512);
  ASSERT_TRUE(tok.ok());
  for (const char* text : {"Once upon a time", "Lily wanted", "Hello, world! \xe4\xbd\xa0"}) {
    EXPECT_EQ(g->tokenizer->Encode(text, true, false), tok->Encode(text, true, false)) << text;
  }
}

TEST(GgufImportTest, ContextDefaultsToTheFileValue) {
  absl::StatusOr<GgufModel> g = LoadGgufLlama(TestDataPath("tests/testdata/stories260K.gguf"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->weights.config.seq_len, 2048);
}

TEST(GgufImportTest, BadFilesAreClearErrors) {
  EXPECT_EQ(LoadGgufLlama("/nonexistent.gguf").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<GgufModel> bin = LoadGgufLlama(TestDataPath("tests/testdata/stories260K.bin"));
  ASSERT_FALSE(bin.ok());
  EXPECT_NE(bin.status().message().find("not a GGUF file"), absl::string_view::npos);
  // Truncated copy.
  absl::StatusOr<std::string> bytes =
      testing::ReadFile(TestDataPath("tests/testdata/stories260K.gguf"));
  ASSERT_TRUE(bytes.ok());
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/cut.gguf";
  std::ofstream(path, std::ios::binary) << bytes->substr(0, bytes->size() / 2);
  absl::StatusOr<GgufModel> cut = LoadGgufLlama(path);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("beyond the end"), absl::string_view::npos) << cut.status();
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
