// Encoder embeddings (embed_encoder.h) against llama.cpp's (testdata/embed/README.md) on random
// bert and nomic-bert models with the bert-bge WordPiece vocabulary and a gemma-embedding one,
// batching, and errors.
#include "llm/embed_encoder.h"

#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llm/embed_random_model.h"
#include "llm/embed_testing.h"
#include "llm/random_model.h"
#include "tests/util/reference_data.h"
#include "xxhash.h"

namespace edgeq {
namespace llm {
namespace {

using ::testing::HasSubstr;

const char kDir[] = "llm/testdata/embed/";

// The random model llama.cpp was run on, regenerated and checked byte for byte.
std::unique_ptr<Encoder> Load(const checkpoint::TensorDict& vocab, const std::string& shape,
                              int layers, uint64_t xxh3) {
  RandomEncoderSpec s = *RandomEncoderPreset(shape);
  if (layers > 0) s.layers = layers;
  absl::StatusOr<checkpoint::TensorDict> d = RandomEncoder(s, &vocab);
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::string> bytes = checkpoint::WriteGgufToString(*d);
  EXPECT_TRUE(bytes.ok());
  EXPECT_EQ(XXH3_64bits(bytes->data(), bytes->size()), xxh3) << shape;
  absl::StatusOr<std::unique_ptr<Encoder>> e = Encoder::Load(*std::move(d), {});
  EXPECT_TRUE(e.ok()) << e.status();
  return e.ok() ? *std::move(e) : nullptr;
}

struct Case {
  const char* shape;
  int layers;
  const char* file;  // testdata name part
  int dim;
  uint64_t xxh3;
};

void ExpectMatches(const Case& c, const checkpoint::TensorDict& vocab,
                   const std::string& tokens_file, size_t n_tokens) {
  std::unique_ptr<Encoder> e = Load(vocab, c.shape, c.layers, c.xxh3);
  ASSERT_NE(e, nullptr);
  const std::vector<int> ids = ReadTokenIds(std::string(kDir) + tokens_file);
  ASSERT_EQ(ids.size(), n_tokens);
  absl::StatusOr<std::vector<std::vector<int>>> tokenized =
      e->Tokenize({"the quick brown fox jumps over the lazy dog and runs to the big red barn"});
  ASSERT_TRUE(tokenized.ok()) << tokenized.status();
  EXPECT_EQ((*tokenized)[0], ids) << "llama.cpp's tokens";
  for (Pooling p : {Pooling::kMean, Pooling::kCls}) {
    absl::StatusOr<std::vector<std::vector<float>>> got = e->EmbedBatch({ids}, p, 2);
    ASSERT_TRUE(got.ok()) << got.status();
    const std::vector<float> want = ReadF32Golden(
        std::string(kDir) + "encoder_" + c.file + "_" + PoolingName(p) + ".f32", c.dim);
    ASSERT_EQ((*got)[0].size(), want.size());
    EXPECT_GE(Cosine((*got)[0], want), 0.99999) << c.shape << " " << PoolingName(p);
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR((*got)[0][i], want[i], 1e-4) << c.shape << " " << PoolingName(p) << " " << i;
    }
  }
}

void ExpectMatchesWithBertVocab(const Case& c) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(vocab_path, "vocab/ggml-vocab-bert-bge.gguf");
  absl::StatusOr<checkpoint::TensorDict> vocab = checkpoint::ReadGguf(vocab_path);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  ExpectMatches(c, *vocab, "encoder_prompt.tokens", 18);
}

TEST(EncoderTest, TinyBertMatchesLlamaEmbedding) {
  ExpectMatchesWithBertVocab({"bert-tiny", 0, "bert_tiny", 64, 0x36c1456ea022802aull});
}

TEST(EncoderTest, TinyNomicBertMatchesLlamaEmbedding) {
  ExpectMatchesWithBertVocab({"nomic-bert-tiny", 0, "nomic_tiny", 64, 0xc5f4ebb3d7bafb0dull});
}

// Two layers (a sliding one of window 8: positions at most 4 apart, and a global one), 4 heads
// sharing 1 kv head, dense_2/dense_3 of 128, the made-up 512-piece SentencePiece vocabulary.
TEST(EncoderTest, TinyGemmaEmbeddingMatchesLlamaEmbedding) {
  absl::StatusOr<checkpoint::TensorDict> vocab = SyntheticSpmVocabulary(512);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  ExpectMatches({"gemma-embedding-tiny", 0, "gemma_tiny", 64, 0x9b2bc48c4a09cd8dull}, *vocab,
                "encoder_gemma_prompt.tokens", 51);
}

// A batch of sequences of different lengths, packed into blocks, gives each sequence's own
// embedding (as one at a time), in order; kNone gives one row per token.
TEST(EncoderTest, BatchEqualsOneAtATime) {
  for (const char* shape : {"bert-tiny", "nomic-bert-tiny", "gemma-embedding-tiny"}) {
    RandomEncoderSpec s = *RandomEncoderPreset(shape);
    s.vocab = 1000;
    const char* arch = shape;
    absl::StatusOr<std::unique_ptr<Encoder>> e =
        Encoder::Load(*RandomEncoder(s, nullptr), {.max_block_rows = 40});
    ASSERT_TRUE(e.ok()) << e.status();
    std::vector<std::vector<int>> seqs;
    for (int n : {5, 17, 1, 30, 9, 41, 3}) {
      std::vector<int> ids;
      for (int i = 0; i < n; ++i) ids.push_back((i * 37 + n * 11) % 1000);
      seqs.push_back(ids);
    }
    absl::StatusOr<std::vector<std::vector<float>>> batch =
        (*e)->EmbedBatch(seqs, Pooling::kMean, 2);
    ASSERT_TRUE(batch.ok()) << batch.status();
    ASSERT_EQ(batch->size(), seqs.size());
    for (size_t i = 0; i < seqs.size(); ++i) {
      std::vector<float> one = (*(*e)->EmbedBatch({seqs[i]}, Pooling::kMean, 2))[0];
      ASSERT_EQ(one.size(), 64u);
      for (int k = 0; k < 64; ++k) EXPECT_NEAR((*batch)[i][k], one[k], 1e-5) << arch << i;
    }
    std::vector<std::vector<float>> rows = *(*e)->EmbedBatch(seqs, Pooling::kNone, -1);
    std::vector<std::vector<float>> cls = *(*e)->EmbedBatch(seqs, Pooling::kCls, -1);
    EXPECT_EQ(rows[3].size(), 30u * 64);
    for (int k = 0; k < 64; ++k) EXPECT_NEAR(rows[3][k], cls[3][k], 1e-6);
  }
}

TEST(EncoderTest, RefusesBadInput) {
  RandomEncoderSpec s = *RandomEncoderPreset("bert-tiny");
  std::unique_ptr<Encoder> e = *Encoder::Load(*RandomEncoder(s, nullptr), {});
  EXPECT_EQ(e->default_pooling(), Pooling::kMean);
  absl::Status st = e->EmbedBatch({{1, 2}, {}}, Pooling::kMean, 2).status();
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(st.message(), "sequence 1 has 0 tokens; expected 1 to context_length 512");
  st = e->EmbedBatch({{1, 1000}}, Pooling::kMean, 2).status();
  EXPECT_EQ(st.message(), "sequence 0: token 1000; expected an id in [0, 1000)");
  EXPECT_EQ(e->EmbedBatch({{1}}, Pooling::kMean, -2).status().code(),
            absl::StatusCode::kInvalidArgument);
  checkpoint::TensorDict d = *RandomEncoder(s, nullptr);
  ASSERT_TRUE(d.Set("blk.9.ffn_up.weight", *Tensor::Full({2, 2}, 0.0f)).ok());
  EXPECT_THAT(Encoder::Load(std::move(d), {}).status().message(),
              HasSubstr("tensor blk.9.ffn_up.weight is not used by the bert encoder"));
  d = *RandomEncoder(s, nullptr);
  d.Remove("blk.1.attn_output_norm.bias");
  EXPECT_EQ(Encoder::Load(std::move(d), {}).status().message(),
            "tensor 'blk.1.attn_output_norm.bias' is missing; expected f32 [64]");
}

// The presets are registered from each encoder's llm/arch/<name>_encoder_presets.cc and listed
// in the encoders' table order (bert, nomic-bert, gemma-embedding), each one's in its order.
TEST(RandomEncoderPresetTest, RegisteredPerArchitectureInTableOrder) {
  EXPECT_EQ(RandomEncoderPresetNames(),
            (std::vector<std::string>{"bert-tiny", "bge-small", "all-minilm-l6", "nomic-bert-tiny",
                                      "nomic-embed-text-v1.5", "gemma-embedding-tiny",
                                      "embeddinggemma-300m"}));
  absl::StatusOr<RandomEncoderSpec> bge = RandomEncoderPreset("BGE-small");
  ASSERT_TRUE(bge.ok()) << bge.status();
  EXPECT_EQ(bge->architecture, "bert");
  EXPECT_EQ(bge->dim, 384);
  EXPECT_EQ(bge->pooling_type, 2);
  absl::StatusOr<RandomEncoderSpec> nomic = RandomEncoderPreset("nomic-embed-text-v1.5");
  ASSERT_TRUE(nomic.ok()) << nomic.status();
  EXPECT_EQ(nomic->architecture, "nomic-bert");
  EXPECT_EQ(nomic->context, 2048);
  absl::StatusOr<RandomEncoderSpec> gemma = RandomEncoderPreset("embeddinggemma-300m");
  ASSERT_TRUE(gemma.ok()) << gemma.status();
  EXPECT_EQ(gemma->architecture, "gemma-embedding");
  EXPECT_EQ(gemma->dense, 3072);
  absl::Status unknown = RandomEncoderPreset("bert-huge").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.message(),
            "unknown encoder shape 'bert-huge'; expected one of bert-tiny, bge-small, "
            "all-minilm-l6, nomic-bert-tiny, nomic-embed-text-v1.5, gemma-embedding-tiny, "
            "embeddinggemma-300m");
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
