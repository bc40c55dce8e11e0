#include "llm/embed.h"

#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "checkpoint/gguf.h"
#include "gtest/gtest.h"
#include "llm/embed_testing.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "xxhash.h"

namespace edgeq {
namespace llm {
namespace {

const char kDir[] = "llm/testdata/embed/";

// The random model llama.cpp was run on (testdata/embed/README.md), checked byte for byte.
std::unique_ptr<Model> Load(const std::string& shape, uint64_t xxh3) {
  RandomModelSpec s = *RandomModelPreset(shape);
  s.layers = 2, s.dim = 64, s.heads = 4, s.kv_heads = 2, s.ffn = 96, s.context = 256;
  s.vocab = 300, s.seed = 1;
  checkpoint::TensorDict vocab = *SyntheticSpmVocabulary(s.vocab);
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s, &vocab);
  EXPECT_TRUE(d.ok()) << d.status();
  absl::StatusOr<std::string> bytes = checkpoint::WriteGgufToString(*d);
  EXPECT_TRUE(bytes.ok());
  EXPECT_EQ(XXH3_64bits(bytes->data(), bytes->size()), xxh3) << shape;
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(*d, {.prefill_block = 16, .kv_cache_type = KvCacheType::kF32});
  EXPECT_TRUE(m.ok()) << m.status();
  return *std::move(m);
}

// llama-embedding's mean and last-token pooled, L2-normalized embeddings: cosine >= 0.99999 and
// every value within 1e-5 (f32 weights).
TEST(EmbedTest, MatchesLlamaEmbedding) {
  const std::vector<int> ids = ReadTokenIds(std::string(kDir) + "prompt.tokens");
  ASSERT_EQ(ids.size(), 58u);
  for (const auto& [shape, xxh3] :
       {std::pair<std::string, uint64_t>{"smollm2-135m", 0xbf5940ff7850c8b4ull},
        {"qwen3-0.6b", 0xa8ec1ef3d5753b12ull}}) {
    std::unique_ptr<Model> m = Load(shape, xxh3);
    for (Pooling p : {Pooling::kMean, Pooling::kLast}) {
      absl::StatusOr<std::vector<float>> got = Embed(*m, ids, p, 2);
      ASSERT_TRUE(got.ok()) << got.status();
      const std::vector<float> want =
          ReadF32Golden(std::string(kDir) + shape + "_" + PoolingName(p) + ".f32", 64);
      ASSERT_EQ(got->size(), want.size());
      EXPECT_GE(Cosine(*got, want), 0.99999) << shape << " " << PoolingName(p);
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_NEAR((*got)[i], want[i], 1e-5) << shape << " " << PoolingName(p) << " " << i;
      }
    }
  }
}

// none: one row per token, whose last row is the last-token embedding and whose rows average
// (before normalization) to the mean one; cls is the first row; -1 leaves the norm.
TEST(EmbedTest, PoolingsAgree) {
  std::unique_ptr<Model> m = Load("smollm2-135m", 0xbf5940ff7850c8b4ull);
  const std::vector<int> ids = {1, 40, 77, 120, 9};
  std::vector<float> rows = *Embed(*m, ids, Pooling::kNone, -1);
  ASSERT_EQ(rows.size(), 5u * 64);
  std::vector<float> last = *Embed(*m, ids, Pooling::kLast, -1);
  std::vector<float> cls = *Embed(*m, ids, Pooling::kCls, -1);
  std::vector<float> mean = *Embed(*m, ids, Pooling::kMean, -1);
  for (int k = 0; k < 64; ++k) {
    EXPECT_EQ(last[k], rows[4 * 64 + k]);
    EXPECT_EQ(cls[k], rows[k]);
    double s = 0;
    for (int r = 0; r < 5; ++r) s += rows[r * 64 + k];
    EXPECT_FLOAT_EQ(mean[k], static_cast<float>(s / 5));
  }
  std::vector<float> unit = *Embed(*m, ids, Pooling::kLast, 2);
  double n2 = 0;
  for (float x : unit) n2 += x * x;
  EXPECT_NEAR(n2, 1.0, 1e-6);
  EXPECT_EQ(Embed(*m, {}, Pooling::kMean, 2).status().message(), "Embed: no tokens given");
  EXPECT_EQ(Embed(*m, ids, Pooling::kMean, -2).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParsePooling("max").status().message(),
            "pooling 'max'; expected one of none, mean, cls, last");
  EXPECT_EQ(*ParsePooling("last"), Pooling::kLast);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
