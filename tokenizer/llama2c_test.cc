#include "tokenizer/llama2c.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "examples/tinystories/testing.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace tokenizer {
namespace {

namespace ts = tinystories::testing;
using ts::ParseIds;
using ts::ReadFile;
using ts::TestDataPath;

Llama2cTokenizer LoadTok512() {
  absl::StatusOr<Llama2cTokenizer> tok = Llama2cTokenizer::Load(ts::ModelPath("tok512.bin"), 512);
  EXPECT_TRUE(tok.ok()) << tok.status();
  return *std::move(tok);
}

TEST(Llama2cTokenizerTest, LoadsPieces) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  Llama2cTokenizer tok = LoadTok512();
  EXPECT_EQ(tok.vocab_size(), 512);
  EXPECT_EQ(tok.piece(0), "<unk>");
  EXPECT_EQ(tok.piece(1), "\n<s>\n");
  EXPECT_EQ(tok.piece(3), "<0x00>");
  EXPECT_EQ(tok.Decode(0, 13), "\n");  // <0x0A>
}

// Every prompt of tokenizer_cases.tsv (made with run.c) encodes to run.c's ids.
TEST(Llama2cTokenizerTest, EncodesLikeRunC) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  Llama2cTokenizer tok = LoadTok512();
  absl::StatusOr<std::string> cases =
      ReadFile(TestDataPath("tests/testdata/tinystories/tokenizer_cases.tsv"));
  ASSERT_TRUE(cases.ok()) << cases.status();
  int checked = 0;
  for (absl::string_view line : absl::StrSplit(*cases, '\n', absl::SkipEmpty())) {
    std::vector<std::string> cols = absl::StrSplit(line, '\t');
    ASSERT_EQ(cols.size(), 2u) << line;
    EXPECT_EQ(tok.Encode(cols[0], /*bos=*/true, /*eos=*/false), ParseIds(cols[1]))
        << "prompt '" << cols[0] << "'";
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

TEST(Llama2cTokenizerTest, EosAndNoBos) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  Llama2cTokenizer tok = LoadTok512();
  EXPECT_EQ(tok.Encode("The cat", false, true), (std::vector<int>{291, 280, 294, 2}));
  EXPECT_EQ(tok.Encode("", false, false), std::vector<int>{});
}

// Decoding the encoded prompt (after BOS) gives back the text, byte-fallback pieces included.
TEST(Llama2cTokenizerTest, DecodeRoundTrip) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  Llama2cTokenizer tok = LoadTok512();
  for (const std::string text :
       {"Once upon a time", "Hello, world! \xc3\xbc\xe2\x82\xac \xe4\xbd\xa0\xe5\xa5\xbd",
        "  two  spaces", "Tim said: \"I can't!\"\nThe end."}) {
    std::vector<int> ids = tok.Encode(text, true, false);
    std::string decoded;
    for (size_t i = 1; i < ids.size(); ++i) decoded += tok.Decode(ids[i - 1], ids[i]);
    EXPECT_EQ(decoded, text);
  }
}

TEST(Llama2cTokenizerTest, PrintFilterDropsControlBytes) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  Llama2cTokenizer tok = LoadTok512();
  EXPECT_EQ(tok.DecodeForPrint(0, 3 + 0x07), "");    // BEL
  EXPECT_EQ(tok.DecodeForPrint(0, 3 + 0x0A), "\n");  // newline kept
  EXPECT_EQ(tok.DecodeForPrint(0, 3 + 'A'), "A");
  EXPECT_EQ(tok.Decode(0, 9999), "");
}

TEST(Llama2cTokenizerTest, MismatchedVocabularyIsAnError) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  absl::StatusOr<Llama2cTokenizer> small = Llama2cTokenizer::Load(ts::ModelPath("tok512.bin"), 500);
  ASSERT_FALSE(small.ok());
  EXPECT_EQ(small.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(small.status().message().find("mismatched tokenizer"), absl::string_view::npos);
  absl::StatusOr<Llama2cTokenizer> big = Llama2cTokenizer::Load(ts::ModelPath("tok512.bin"), 32000);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("32000 pieces cannot fit"), absl::string_view::npos)
      << big.status();
  absl::StatusOr<Llama2cTokenizer> missing = Llama2cTokenizer::Load("/nonexistent/tok.bin", 512);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

TEST(Llama2cTokenizerTest, MetadataRoundTrip) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  const Llama2cTokenizer tok = LoadTok512();
  checkpoint::TensorDict dict;
  EXPECT_EQ(Llama2cTokenizer::FromMetadata(dict).status().code(), absl::StatusCode::kNotFound);
  tok.ToMetadata(dict);
  absl::StatusOr<Llama2cTokenizer> back = Llama2cTokenizer::FromMetadata(dict);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->vocab_size(), 512);
  for (int i = 0; i < 512; ++i) {
    EXPECT_EQ(back->piece(i), tok.piece(i)) << i;
    EXPECT_EQ(back->score(i), tok.score(i)) << i;
  }
  EXPECT_EQ(back->Encode("Once upon a time", true, false),
            tok.Encode("Once upon a time", true, false));
}

// A model's tokenizer: the file if one is given, else the vocabulary the model carries; errors
// name the model and the fix.
TEST(Llama2cTokenizerTest, ForModel) {
  EDGEQ_SKIP_WITHOUT_REFERENCE_DATA("models/tok512.bin");
  const std::string tok_path = ts::ModelPath("tok512.bin");
  checkpoint::TensorDict bare;
  absl::StatusOr<Llama2cTokenizer> from_file =
      Llama2cTokenizer::ForModel(bare, "m.bin", tok_path, 512);
  ASSERT_TRUE(from_file.ok()) << from_file.status();
  EXPECT_EQ(from_file->vocab_size(), 512);
  // The file must hold the model's vocabulary size (Load's check).
  EXPECT_EQ(Llama2cTokenizer::ForModel(bare, "m.bin", tok_path, 500).status().code(),
            absl::StatusCode::kInvalidArgument);

  absl::StatusOr<Llama2cTokenizer> none = Llama2cTokenizer::ForModel(bare, "m.bin", "", 512);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("'m.bin' carries no vocabulary; pass --tokenizer=PATH"),
            absl::string_view::npos)
      << none.status();

  checkpoint::TensorDict with_vocab;
  from_file->ToMetadata(with_vocab);
  absl::StatusOr<Llama2cTokenizer> carried =
      Llama2cTokenizer::ForModel(with_vocab, "m.max", "", 512);
  ASSERT_TRUE(carried.ok()) << carried.status();
  EXPECT_EQ(carried->piece(300), from_file->piece(300));
  absl::StatusOr<Llama2cTokenizer> mismatched =
      Llama2cTokenizer::ForModel(with_vocab, "m.max", "", 32000);
  EXPECT_EQ(mismatched.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(mismatched.status().message().find(
                "the tokenizer has 512 pieces but the model's vocabulary is 32000"),
            absl::string_view::npos)
      << mismatched.status();
}

}  // namespace
}  // namespace tokenizer
}  // namespace edgeq
