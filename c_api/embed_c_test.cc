// edgeq_embedder_*: a random bert-tiny with the bert-bge WordPiece vocabulary; the batch's first
// embedding is llama-embedding's (llm/testdata/embed), every one equals its text embedded alone,
// and the refusals.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "edgeq/edgeq.h"
#include "gtest/gtest.h"
#include "llm/embed_random_model.h"
#include "tests/util/reference_data.h"

namespace {

TEST(CApiEmbedder, BatchMatchesLlamaEmbeddingAndOneAtATime) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(vocab_path, "vocab/ggml-vocab-bert-bge.gguf");
  auto vocab = edgeq::checkpoint::ReadGguf(vocab_path);
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  auto d = edgeq::llm::RandomEncoder(*edgeq::llm::RandomEncoderPreset("bert-tiny"), &*vocab);
  ASSERT_TRUE(d.ok()) << d.status();
  const std::string path = std::string(getenv("TEST_TMPDIR")) + "/bert_tiny.gguf";
  ASSERT_TRUE(edgeq::checkpoint::WriteGguf(*d, path).ok());
  edgeq_embedder* e = nullptr;
  ASSERT_EQ(edgeq_embedder_load(path.c_str(), 1, &e), EDGEQ_OK) << edgeq_last_error();
  ASSERT_EQ(edgeq_embedder_dim(e), 64);
  const char* texts[] = {"the quick brown fox jumps over the lazy dog and runs to the big red barn",
                         "hello world", "a"};
  size_t n = 0;
  EXPECT_EQ(edgeq_embedder_embed_batch(e, texts, 3, "mean", 2, nullptr, 0, &n),
            EDGEQ_ERROR_BUFFER_TOO_SMALL);
  EXPECT_EQ(n, 3u * 64);
  std::vector<float> v(3 * 64), one(64);
  ASSERT_EQ(edgeq_embedder_embed_batch(e, texts, 3, nullptr, 2, v.data(), v.size(), &n), EDGEQ_OK);
  std::ifstream in("llm/testdata/embed/encoder_bert_tiny_mean.f32", std::ios::binary);
  std::vector<float> want(64);
  in.read(reinterpret_cast<char*>(want.data()), 256);
  ASSERT_TRUE(in.good());
  for (int k = 0; k < 64; ++k) EXPECT_NEAR(v[k], want[k], 1e-5) << k;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(edgeq_embedder_embed_batch(e, texts + i, 1, "mean", 2, one.data(), 64, &n), EDGEQ_OK);
    for (int k = 0; k < 64; ++k) EXPECT_NEAR(v[i * 64 + k], one[k], 2e-6) << i << " " << k;
  }
  EXPECT_EQ(edgeq_embedder_embed_batch(e, texts, 3, "none", 2, v.data(), v.size(), &n),
            EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(edgeq_last_error(),
               "edgeq_embedder_embed_batch: pooling 'none'; expected mean, cls, last or NULL "
               "(the file's)");
  edgeq_embedder_free(e);
  EXPECT_EQ(edgeq_embedder_load("/nonexistent.gguf", 1, &e), EDGEQ_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(e, nullptr);
}

}  // namespace
