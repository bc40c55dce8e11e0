// Encoder embeddings at real widths (issue 31): random-weight bge-small (bert) and
// nomic-embed-text-v1.5 (nomic-bert) shapes with their first 2 layers and the bert-bge WordPiece
// vocabulary, embeddinggemma-300m (gemma-embedding) with 6 layers and a made-up vocabulary, f32
// and Q8_0, regenerated in memory; edgeq's mean and cls pooled, L2-normalized
// embeddings against llama.cpp's on the same files (testdata/encoder, README.md "Encoder
// embeddings"). Host only (the models are 62 to 170 MB).
#include <cmath>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "checkpoint/gguf.h"
#include "checkpoint/quantize_rules.h"
#include "checkpoint/tensor_dict.h"
#include "gtest/gtest.h"
#include "llm/embed_encoder.h"
#include "llm/embed_random_model.h"
#include "llm/embed_testing.h"
#include "llm/random_model.h"
#include "tests/parity/parity_util.h"
#include "tests/util/reference_data.h"
#include "xxhash.h"

namespace edgeq {
namespace parity {
namespace {

const char kDir[] = "tests/parity/testdata/encoder/";

struct EncoderCase {
  const char* shape;  // llm::RandomEncoderPreset
  int layers;
  const char* file;  // testdata prefix
  int dim;
  uint64_t f32_xxh3;   // XXH3-64 of the f32 GGUF
  uint64_t q8_0_xxh3;  // TensorDataXxh3 of llama-quantize's Q8_0 output
  // The made-up 512-piece SentencePiece vocabulary (llm::SyntheticSpmVocabulary) and
  // gemma_prompt.tokens (51 ids), else the bert-bge WordPiece one and prompt.tokens (18 ids).
  bool synthetic_vocab = false;
  const char* q8_0_rules = "position_embd.weight -> f32\ntoken_types.weight -> f32\n* -> q8_0\n";
};

void ExpectEmbeddings(checkpoint::TensorDict dict, const EncoderCase& c, const std::string& type,
                      double min_cosine) {
  absl::StatusOr<std::unique_ptr<llm::Encoder>> e = llm::Encoder::Load(std::move(dict), {});
  ASSERT_TRUE(e.ok()) << e.status();
  const std::vector<int> ids = llm::ReadTokenIds(
      std::string(kDir) + (c.synthetic_vocab ? "gemma_prompt.tokens" : "prompt.tokens"));
  ASSERT_EQ(ids.size(), c.synthetic_vocab ? 51u : 18u);
  for (llm::Pooling p : {llm::Pooling::kMean, llm::Pooling::kCls}) {
    absl::StatusOr<std::vector<std::vector<float>>> got = (*e)->EmbedBatch({ids}, p, 2);
    ASSERT_TRUE(got.ok()) << got.status();
    const std::vector<float> want = llm::ReadF32Golden(
        kDir + absl::StrFormat("%s%s_%s.f32", c.file, type, llm::PoolingName(p)), c.dim);
    ASSERT_EQ((*got)[0].size(), want.size());
    const double cos = llm::Cosine((*got)[0], want);
    EXPECT_GE(cos, min_cosine) << c.shape << type << " " << llm::PoolingName(p);
    std::printf("%s%s %s: cosine to llama.cpp %.9f\n", c.shape, type.c_str(), llm::PoolingName(p),
                cos);
  }
}

class EncoderParity : public ::testing::TestWithParam<EncoderCase> {};

TEST_P(EncoderParity, F32AndQ8_0MatchLlamaEmbedding) {
  const EncoderCase& c = GetParam();
#if defined(__aarch64__)
  GTEST_SKIP() << c.shape << " is too big for qemu-aarch64; host only";
#endif
  absl::StatusOr<checkpoint::TensorDict> vocab = llm::SyntheticSpmVocabulary(512);
  if (!c.synthetic_vocab) {
    EDGEQ_REFERENCE_DATA_OR_SKIP(vocab_path, "vocab/ggml-vocab-bert-bge.gguf");
    vocab = checkpoint::ReadGguf(vocab_path);
  }
  ASSERT_TRUE(vocab.ok()) << vocab.status();
  llm::RandomEncoderSpec s = *llm::RandomEncoderPreset(c.shape);
  s.layers = c.layers;
  if (c.synthetic_vocab) s.vocab = 512;
  absl::StatusOr<checkpoint::TensorDict> f32 = llm::RandomEncoder(s, &*vocab);
  ASSERT_TRUE(f32.ok()) << f32.status();
  absl::StatusOr<std::string> bytes = checkpoint::WriteGgufToString(*f32);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(XXH3_64bits(bytes->data(), bytes->size()), c.f32_xxh3) << c.shape;
  // llama-quantize Q8_0's choices: every matrix q8_0 but bert's position and token-type tables.
  absl::StatusOr<std::vector<checkpoint::QuantizeRule>> rules =
      checkpoint::ParseQuantizeRules(c.q8_0_rules, "q8_0");
  ASSERT_TRUE(rules.ok()) << rules.status();
  absl::StatusOr<checkpoint::TensorDict> q8 = checkpoint::QuantizeDict(*f32, *rules);
  ASSERT_TRUE(q8.ok()) << q8.status();
  EXPECT_EQ(TensorDataXxh3(*q8), c.q8_0_xxh3)
      << absl::StrFormat("%s: edgeq's Q8_0 tensors (XXH3-64 %016x) differ from llama-quantize's",
                         c.shape, TensorDataXxh3(*q8));
  ExpectEmbeddings(*std::move(f32), c, "", 0.99999);
  ExpectEmbeddings(*std::move(q8), c, "_q8_0", 0.999);
}

INSTANTIATE_TEST_SUITE_P(
    RealWidths, EncoderParity,
    ::testing::Values(EncoderCase{"bge-small", 2, "bge_small_l2", 384, 0x3c87f04de55104e8ull,
                                  0x546191b35da2436cull},
                      EncoderCase{"nomic-embed-text-v1.5", 2, "nomic_v15_l2", 768,
                                  0x38bdb3ece57d58c8ull, 0xa3d4aa0918aebcd6ull},
                      // 6 layers: llama.cpp needs a global layer (5 sliding, then 1).
                      EncoderCase{"embeddinggemma-300m", 6, "gemma300m_l6", 768,
                                  0x329f0dff2222201bull, 0x7bcf44793c82c6c9ull, true,
                                  "* -> q8_0\n"}));

}  // namespace
}  // namespace parity
}  // namespace edgeq
