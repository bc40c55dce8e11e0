#include "examples/tinystories/random_llama.h"

#include "absl/strings/match.h"
#include "examples/tinystories/tokenizer.h"
#include "gtest/gtest.h"

namespace edgeq {
namespace tinystories {
namespace {

TEST(RandomLlamaTest, ShapeAndDeterminism) {
  RandomLlamaOptions o;
  o.shape = {.dim = 32,
             .hidden_dim = 48,
             .n_layers = 2,
             .n_heads = 4,
             .n_kv_heads = 2,
             .vocab_size = 300,
             .seq_len = 16};
  absl::StatusOr<checkpoint::TensorDict> a = RandomLlama(o);
  absl::StatusOr<checkpoint::TensorDict> b = RandomLlama(o);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ((**a->Get("token_embd.weight")).shape(), (Shape{300, 32}));
  EXPECT_EQ((**a->Get("blk.1.attn_k.weight")).shape(), (Shape{16, 32}));
  EXPECT_EQ(*(**a->Get("blk.1.ffn_up.weight")).Values<float>(),
            *(**b->Get("blk.1.ffn_up.weight")).Values<float>());
}

TEST(RandomLlamaTest, SyntheticVocabularyLayout) {
  auto vocab = SyntheticVocabulary(300);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  const std::vector<std::string>& pieces = vocab->first;
  ASSERT_EQ(pieces.size(), 300u);
  ASSERT_EQ(vocab->second.size(), 300u);
  EXPECT_EQ(pieces[1], "\n<s>\n");
  EXPECT_EQ(pieces[3], "<0x00>");
  EXPECT_EQ(pieces[258], "<0xFF>");
  EXPECT_EQ(pieces[259], " a");
  EXPECT_EQ(pieces[260], "a");
  EXPECT_EQ(pieces[299], " u");  // 259 + 2 * 20
  EXPECT_GT(vocab->second[259], vocab->second[260]);
  // It makes a working tokenizer: text round-trips through its ids.
  absl::StatusOr<Tokenizer> tok =
      Tokenizer::FromPieces(std::move(vocab->first), std::move(vocab->second));
  ASSERT_TRUE(tok.ok()) << tok.status();
  const std::vector<int> ids = tok->Encode("cab Z!", /*bos=*/true, /*eos=*/false);
  std::string text;
  for (size_t i = 1; i < ids.size(); ++i) text += tok->Decode(ids[i - 1], ids[i]);
  EXPECT_EQ(text, "cab Z!");
}

TEST(RandomLlamaTest, SyntheticVocabularyNeedsBytePieces) {
  auto vocab = SyntheticVocabulary(258);
  ASSERT_FALSE(vocab.ok());
  EXPECT_EQ(vocab.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(vocab.status().message(), "expected at least 259"));
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
