#include "checkpoint/llama2c.h"

#include <cstring>
#include <string>

#include "absl/strings/match.h"
#include "checkpoint/gguf.h"
#include "checkpoint/internal/testing.h"
#include "gtest/gtest.h"
#include "tests/util/reference_data.h"

namespace edgeq {
namespace checkpoint {
namespace {

using testing::CopyToBuffer;
using testing::ReadFileOrDie;

absl::StatusOr<TensorDict> Parse(const std::string& bytes) {
  testing::OwnedBuffer b = CopyToBuffer(bytes);
  return ReadLlama2cFromBuffer(b.span, b.owner);
}

TEST(Llama2cTest, ImportsStories260K) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  absl::StatusOr<TensorDict> d = ReadLlama2c(bin_path);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->size(), 2u + 9u * 5u);  // shared classifier: no output.weight
  EXPECT_FALSE(d->Contains("output.weight"));
  EXPECT_EQ(*d->GetInt("llama.embedding_length"), 64);
  EXPECT_EQ(*d->GetInt("llama.feed_forward_length"), 172);
  EXPECT_EQ(*d->GetInt("llama.block_count"), 5);
  EXPECT_EQ(*d->GetInt("llama.attention.head_count"), 8);
  EXPECT_EQ(*d->GetInt("llama.attention.head_count_kv"), 4);
  EXPECT_EQ(*d->GetInt("llama.vocab_size"), 512);
  EXPECT_EQ(*d->GetInt("llama.context_length"), 512);
  EXPECT_EQ(*d->GetInt("llama.rope.dimension_count"), 8);
  EXPECT_EQ(*d->GetBool("llama2c.shared_classifier"), true);
  EXPECT_EQ((**d->Get("blk.3.attn_k.weight")).shape(), (Shape{32, 64}));
  EXPECT_EQ((**d->Get("blk.3.ffn_down.weight")).shape(), (Shape{64, 172}));
  // The first weight is the f32 right after the 28-byte header.
  const std::string raw = ReadFileOrDie(bin_path);
  float first;
  std::memcpy(&first, raw.data() + 28, 4);
  EXPECT_EQ((*(**d->Get("token_embd.weight")).Values<float>())[0], first);
  absl::StatusOr<Llama2cConfig> c = Llama2cConfigFromMetadata(*d);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->n_kv_heads, 4);
  EXPECT_TRUE(c->shared_classifier);
}

// The llama2.c file and the GGUF conversion hold the same tensors under the same names (GGUF
// additionally stores the shared classifier as output.weight).
TEST(Llama2cTest, BinAndGgufImportToIdenticalTensors) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  absl::StatusOr<TensorDict> bin = ReadLlama2c(bin_path);
  absl::StatusOr<TensorDict> gguf = ReadGguf(gguf_path);
  ASSERT_TRUE(bin.ok()) << bin.status();
  ASSERT_TRUE(gguf.ok()) << gguf.status();
  std::vector<std::string> gguf_keys = gguf->Keys();
  gguf_keys.erase(std::find(gguf_keys.begin(), gguf_keys.end(), "output.weight"));
  EXPECT_EQ(bin->Keys(), gguf_keys);  // same names, same order
  for (const std::string& k : bin->Keys()) {
    const Tensor& a = **bin->Get(k);
    const Tensor& b = **gguf->Get(k);
    ASSERT_EQ(a.shape(), b.shape()) << k;
    ASSERT_EQ(a.dtype(), b.dtype()) << k;
    EXPECT_EQ(0, std::memcmp(a.raw_data(), b.raw_data(), a.size_bytes())) << k;
  }
  const Tensor& emb = **bin->Get("token_embd.weight");
  const Tensor& out = **gguf->Get("output.weight");
  EXPECT_EQ(0, std::memcmp(emb.raw_data(), out.raw_data(), emb.size_bytes()));
  // Shared metadata agrees.
  for (const char* key : {"llama.embedding_length", "llama.feed_forward_length",
                          "llama.block_count", "llama.attention.head_count",
                          "llama.attention.head_count_kv", "llama.rope.dimension_count"}) {
    EXPECT_EQ(*bin->GetInt(key), *gguf->GetInt(key)) << key;
  }
  EXPECT_EQ(*bin->GetFloat("llama.attention.layer_norm_rms_epsilon"),
            *gguf->GetFloat("llama.attention.layer_norm_rms_epsilon"));
}

TEST(Llama2cTest, ExportRoundTripsAndGgufExportsToTheSameWeights) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  const std::string raw = ReadFileOrDie(bin_path);
  absl::StatusOr<TensorDict> bin = ReadLlama2c(bin_path);
  ASSERT_TRUE(bin.ok());
  absl::StatusOr<std::string> out = WriteLlama2cToString(*bin);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), raw.size());
  // Identical except the legacy RoPE table (written as zeros): seq 512 x head 8 floats before
  // the end of the file.
  const size_t rope_begin = raw.size() - 512 * 8 * 4;
  EXPECT_TRUE(out->compare(0, rope_begin, raw, 0, rope_begin) == 0);
  EXPECT_EQ(out->find_first_not_of('\0', rope_begin), std::string::npos);

  // GGUF -> llama2.c: a shared classifier is detected; context 512 makes the same layout.
  absl::StatusOr<TensorDict> gguf = ReadGguf(gguf_path);
  ASSERT_TRUE(gguf.ok());
  gguf->SetMetadata("llama.context_length", MetadataValue::Int(512, MetadataValue::Width::kU32));
  absl::StatusOr<std::string> from_gguf = WriteLlama2cToString(*gguf);
  ASSERT_TRUE(from_gguf.ok()) << from_gguf.status();
  EXPECT_TRUE(*from_gguf == *out);

  TensorDict missing = *bin;
  missing.Remove("blk.2.ffn_up.weight");
  absl::Status s = WriteLlama2cToString(missing).status();
  EXPECT_TRUE(absl::StrContains(s.message(), "blk.2.ffn_up.weight")) << s;
}

TEST(Llama2cTest, UnsharedClassifier) {
  // A tiny model: dim 4, hidden 8, 1 layer, 2 heads, 1 kv head, vocab 3 (unshared), seq 2.
  const int32_t header[7] = {4, 8, 1, 2, 1, -3, 2};
  const size_t floats = 3 * 4 + 4 + 16 + 8 + 8 + 16 + 4 + 3 * 32 + 4 + 2 * 2 + 3 * 4;
  std::string file(reinterpret_cast<const char*>(header), 28);
  for (size_t i = 0; i < floats; ++i) {
    const float v = static_cast<float>(i);
    file.append(reinterpret_cast<const char*>(&v), 4);
  }
  absl::StatusOr<TensorDict> d = Parse(file);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d->GetBool("llama2c.shared_classifier"), false);
  const Tensor& out = **d->Get("output.weight");
  EXPECT_EQ(out.shape(), (Shape{3, 4}));
  EXPECT_EQ((*out.Values<float>())[0], static_cast<float>(floats - 12));
  EXPECT_EQ((*(**d->Get("blk.0.attn_k.weight")).Values<float>())[0], 32.0f);
  EXPECT_TRUE(*WriteLlama2cToString(*d) == file.substr(0, file.size() - 16 - 48) +
                                               std::string(16, '\0') +
                                               file.substr(file.size() - 48));
}

TEST(Llama2cTest, BadHeadersAndSizesAreClearErrors) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(bin_path, "models/stories260K.bin");
  const std::string raw = ReadFileOrDie(bin_path);
  auto msg = [](const std::string& bytes) { return std::string(Parse(bytes).status().message()); };
  EXPECT_TRUE(absl::StrContains(msg(raw.substr(0, raw.size() - 4)), "implies a 1056540-byte file"))
      << msg(raw.substr(0, raw.size() - 4));
  EXPECT_TRUE(absl::StrContains(msg(raw + "xxxx"), "implies"));
  EXPECT_TRUE(absl::StrContains(msg(raw.substr(0, 10)), "truncated"));
  std::string bad = raw;
  bad[12] = 7;  // n_heads 7: 64 is not a multiple
  EXPECT_TRUE(absl::StrContains(msg(bad), "multiple of n_heads")) << msg(bad);
  bad = raw;
  bad[3] = 0x7f;  // dim ~2^31: sizes far beyond the file, no overflow, no allocation
  EXPECT_FALSE(Parse(bad).ok());
  bad = raw;
  std::memset(&bad[0], 0xff, 4);  // dim -1
  EXPECT_TRUE(absl::StrContains(msg(bad), "positive")) << msg(bad);
  for (size_t n = 0; n < 400; ++n) EXPECT_FALSE(Parse(raw.substr(0, n)).ok()) << n;
}

TEST(Llama2cTest, Tokenizer) {
  EDGEQ_REFERENCE_DATA_OR_SKIP(gguf_path, "models/stories260K.gguf");
  EDGEQ_REFERENCE_DATA_OR_SKIP(tok_path, "models/tok512.bin");
  absl::StatusOr<Llama2cTokenizer> t = ReadLlama2cTokenizer(tok_path, 512);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->max_token_length, 7);
  ASSERT_EQ(t->pieces.size(), 512u);
  EXPECT_EQ(t->pieces[0], "<unk>");
  EXPECT_EQ(t->pieces[1], "\n<s>\n");
  EXPECT_EQ(t->pieces[3], "<0x00>");
  // Scores agree with the GGUF vocabulary; pieces too, except that llama2.c writes
  // sentencepiece's U+2581 as a space.
  absl::StatusOr<TensorDict> gguf = ReadGguf(gguf_path);
  ASSERT_TRUE(gguf.ok());
  const MetadataValue& tokens = **gguf->GetMetadata("tokenizer.ggml.tokens");
  const MetadataValue& scores = **gguf->GetMetadata("tokenizer.ggml.scores");
  EXPECT_EQ(t->pieces[300], " ha");
  EXPECT_EQ(tokens.strings()[300], "\xe2\x96\x81ha");
  for (size_t i = 0; i < 512; ++i) {
    EXPECT_EQ(t->scores[i], static_cast<float>(scores.floats()[i])) << i;
  }
  absl::StatusOr<Llama2cTokenizer> all = ReadLlama2cTokenizer(tok_path);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->pieces, t->pieces);

  const std::string raw = ReadFileOrDie(tok_path);
  auto parse = [](const std::string& b, int n) {
    return ReadLlama2cTokenizerFromBuffer(
        absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(b.data()), b.size()), n);
  };
  EXPECT_TRUE(absl::StrContains(parse(raw, 513).status().message(), "piece 512"))
      << parse(raw, 513).status();
  EXPECT_TRUE(absl::StrContains(parse(raw, 511).status().message(), "bytes left"));
  EXPECT_FALSE(parse(raw.substr(0, raw.size() - 1), 0).ok());
  EXPECT_TRUE(absl::StrContains(parse(raw, 1 << 30).status().message(), "cannot fit"));
  std::string neg = raw;
  std::memset(&neg[8], 0xff, 4);  // piece 0 length -1
  EXPECT_TRUE(absl::StrContains(parse(neg, 512).status().message(), "negative length"));
}

}  // namespace
}  // namespace checkpoint
}  // namespace edgeq
