#include "examples/tinystories/random_llama.h"

#include "gtest/gtest.h"
#include "llm/random_model.h"
#include "tokenizer/llama2c.h"

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

// make_random_llama stores llm's made-up vocabulary in the .max/.gguf it writes; the llama2.c
// tokenizer the pipeline uses reads it back and text round-trips through its ids.
TEST(RandomLlamaTest, SyntheticVocabularyRunsThroughTheTokenizer) {
  absl::StatusOr<checkpoint::TensorDict> vocab = llm::SyntheticSpmVocabulary(300);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  absl::StatusOr<tokenizer::Llama2cTokenizer> tok =
      tokenizer::Llama2cTokenizer::FromMetadata(*vocab);
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->vocab_size(), 300);
  EXPECT_EQ(tok->piece(3), "<0x00>");
  EXPECT_EQ(tok->piece(259), " a");
  const std::vector<int> ids = tok->Encode("cab Z!", /*bos=*/true, /*eos=*/false);
  std::string text;
  for (size_t i = 1; i < ids.size(); ++i) text += tok->Decode(ids[i - 1], ids[i]);
  EXPECT_EQ(text, "cab Z!");
}

}  // namespace
}  // namespace tinystories
}  // namespace edgeq
