#include "llm/random_model.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/string_view.h"
#include "checkpoint/gguf.h"
#include "gtest/gtest.h"
#include "llm/arch/arch_table.h"

namespace edgeq {
namespace llm {
namespace {

TEST(RandomModelTest, PresetsHaveTheRealShapes) {
  absl::StatusOr<RandomModelSpec> s = RandomModelPreset("SmolLM2-135M");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->dim, 576);
  EXPECT_EQ(s->layers, 30);
  EXPECT_EQ(s->heads, 9);
  EXPECT_EQ(s->kv_heads, 3);
  EXPECT_EQ(s->ffn, 1536);
  EXPECT_EQ(s->vocab, 49152);
  EXPECT_TRUE(s->tied);
  s = RandomModelPreset("llama-3.2-1b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dim, 2048);
  EXPECT_EQ(s->kv_heads, 8);
  EXPECT_EQ(s->vocab, 128256);
  EXPECT_TRUE(s->llama3_rope);
  s = RandomModelPreset("tinyllama-1.1b");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->tied);
  absl::Status bad = RandomModelPreset("gpt-5").status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("unknown model shape 'gpt-5'; expected one of stories15m, "
                               "smollm2-135m, tinyllama-1.1b, llama-3.2-1b"),
            std::string::npos)
      << bad;
}

// The registrations of llm/arch/<name>_presets.cc: each names a row of the architecture table,
// in the table's order, and its presets are of that architecture, with distinct lower-case keys.
TEST(RandomModelTest, RegisteredArchitecturesAreRowsInTableOrder) {
  const std::vector<RandomArchitecture> archs = RandomArchitectures();
  const std::vector<std::string> rows = arch::GgufNames();
  ASSERT_EQ(archs.size(), rows.size());  // every row has presets
  std::vector<std::string> keys;
  for (size_t i = 0; i < archs.size(); ++i) {
    SCOPED_TRACE(archs[i].gguf_name);
    ASSERT_NE(arch::FindByGgufName(archs[i].gguf_name), nullptr);
    EXPECT_EQ(archs[i].gguf_name, rows[i]);
    ASSERT_NE(archs[i].presets, nullptr);
    for (const NamedPreset<RandomModelSpec>& p : archs[i].presets()) {
      EXPECT_EQ(p.spec.architecture, archs[i].gguf_name) << p.key;
      EXPECT_EQ(p.key, absl::AsciiStrToLower(p.key));
      keys.push_back(p.key);
    }
  }
  EXPECT_EQ(keys, RandomModelPresetNames());
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "duplicate key";
}

// lfm2moe's registration adds its expert keys after the common ones; qwen3moe has none.
TEST(RandomModelTest, ArchitectureKeysComeFromItsRegistration) {
  absl::StatusOr<checkpoint::TensorDict> l = RandomModel(*RandomModelPreset("lfm2moe-tiny"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(*l->GetInt("lfm2moe.leading_dense_block_count"), 2);
  EXPECT_EQ(*l->GetInt("lfm2moe.expert_gating_func"), 2);
  EXPECT_TRUE(l->Get("blk.2.exp_probs_b.bias").ok());
  absl::StatusOr<checkpoint::TensorDict> q = RandomModel(*RandomModelPreset("qwen3moe-tiny"));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_FALSE(q->HasMetadata("qwen3moe.leading_dense_block_count"));
  EXPECT_FALSE(q->Get("blk.0.exp_probs_b.bias").ok());
  absl::StatusOr<checkpoint::TensorDict> h = RandomModel(*RandomModelPreset("qwen3.5-tiny"));
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(*h->GetInt("qwen35.ssm.group_count"), 2);
  EXPECT_TRUE(h->Get("blk.0.ssm_a").ok());
  EXPECT_TRUE(h->Get("blk.3.attn_q_norm.weight").ok());
}

// Llama 3.2's rope_freqs as the converter computes them for head_dim 64, base 500000, factor 32:
// 1 for wavelengths under 8192/4, 32 above 8192, smooth between.
TEST(RandomModelTest, Llama3RopeFactors) {
  RandomModelSpec s = *RandomModelPreset("llama-3.2-1b");
  std::vector<float> f = Llama3RopeFactors(s, 64);
  ASSERT_EQ(f.size(), 32u);
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[31], 32.0f);
  // Wavelengths 2pi * 500000^(2i/64): i = 14 is 1956.5 (< 8192/4: 1), i = 15..17 are 2948.3,
  // 4442.9, 6695.1 (smoothed: 1.65133, 3.29226, 9.66673), i = 18 is 10089.1 (> 8192: 32).
  EXPECT_EQ(f[14], 1.0f);
  EXPECT_NEAR(f[15], 1.65133, 1e-4);
  EXPECT_NEAR(f[16], 3.29226, 1e-4);
  EXPECT_NEAR(f[17], 9.66673, 1e-3);
  EXPECT_EQ(f[18], 32.0f);
}

TEST(RandomModelTest, WritesConverterMetadataAndTensors) {
  RandomModelSpec s = *RandomModelPreset("llama-3.2-1b");
  s.dim = 64, s.layers = 2, s.heads = 4, s.kv_heads = 2, s.ffn = 96, s.vocab = 100;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
  ASSERT_TRUE(d.ok()) << d.status();
  const std::vector<std::string> keys = {"general.architecture",
                                         "general.type",
                                         "general.name",
                                         "llama.block_count",
                                         "llama.context_length",
                                         "llama.embedding_length",
                                         "llama.feed_forward_length",
                                         "llama.attention.head_count",
                                         "llama.attention.head_count_kv",
                                         "llama.rope.freq_base",
                                         "llama.attention.layer_norm_rms_epsilon",
                                         "llama.attention.key_length",
                                         "llama.attention.value_length",
                                         "general.file_type",
                                         "llama.vocab_size",
                                         "llama.rope.dimension_count",
                                         "general.quantization_version"};
  EXPECT_EQ(d->MetadataKeys(), keys);
  EXPECT_EQ((*d->GetMetadata("llama.block_count"))->TypeName(), "u32");
  EXPECT_EQ((*d->GetMetadata("llama.rope.freq_base"))->TypeName(), "f32");
  EXPECT_EQ(*d->GetInt("llama.rope.dimension_count"), 16);
  EXPECT_EQ(*d->GetFloat("llama.rope.freq_base"), 500000.0);
  EXPECT_EQ(d->Keys().front(), "rope_freqs.weight");
  EXPECT_EQ((*d->Get("rope_freqs.weight"))->shape(), Shape({8}));
  EXPECT_EQ((*d->Get("blk.1.attn_k.weight"))->shape(), Shape({32, 64}));
  EXPECT_EQ((*d->Get("blk.1.ffn_down.weight"))->shape(), Shape({64, 96}));
  EXPECT_FALSE(d->Contains("output.weight"));
  EXPECT_EQ(d->size(), 1u + 1u + 2u * 9u + 1u);

  // The same seed gives the same values; fewer layers keep the first layers' values.
  RandomModelSpec s1 = s;
  s1.layers = 1;
  absl::StatusOr<checkpoint::TensorDict> d1 = RandomModel(s1);
  ASSERT_TRUE(d1.ok());
  absl::Span<const float> a = *(*d->Get("blk.0.attn_q.weight"))->Values<float>();
  absl::Span<const float> b = *(*d1->Get("blk.0.attn_q.weight"))->Values<float>();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
  for (float x : a) ASSERT_LE(std::abs(x), 1.0f / 8.0f);

  // An untied model has output.weight; a bad shape names its values.
  s.tied = false;
  EXPECT_TRUE(RandomModel(s)->Contains("output.weight"));
  s.heads = 5;
  absl::Status bad = RandomModel(s).status();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("heads 5"), std::string::npos) << bad;
}

TEST(RandomModelTest, CopiesTheVocabularyKeys) {
  checkpoint::TensorDict vocab;
  vocab.SetMetadata("general.architecture", checkpoint::MetadataValue::String("llama"));
  vocab.SetMetadata("tokenizer.ggml.model", checkpoint::MetadataValue::String("gpt2"));
  vocab.SetMetadata("tokenizer.ggml.tokens",
                    checkpoint::MetadataValue::StringArray({"a", "b", "c"}));
  vocab.SetMetadata("tokenizer.ggml.bos_token_id", checkpoint::MetadataValue::Int(1));
  RandomModelSpec s = *RandomModelPreset("stories15m");
  s.layers = 1;
  s.dim = 16, s.heads = 2, s.kv_heads = 2, s.ffn = 8;
  absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s, &vocab);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d->GetInt("llama.vocab_size"), 3);
  EXPECT_EQ((*d->Get("token_embd.weight"))->shape(), Shape({3, 16}));
  const std::vector<std::string>& keys = d->MetadataKeys();
  ASSERT_GE(keys.size(), 3u);
  EXPECT_EQ(keys[keys.size() - 3], "tokenizer.ggml.model");
  EXPECT_EQ(keys.back(), "tokenizer.ggml.bos_token_id");
  EXPECT_EQ(*d->GetString("general.architecture"), "llama");
  // Round trip through GGUF.
  absl::StatusOr<std::string> bytes = checkpoint::WriteGgufToString(*d);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<checkpoint::TensorDict> back = checkpoint::ReadGgufFromBuffer(
      absl::MakeConstSpan(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size()), nullptr);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->MetadataKeys(), keys);
}

TEST(RandomModelTest, SyntheticSpmVocabularyLayout) {
  absl::StatusOr<checkpoint::TensorDict> d = SyntheticSpmVocabulary(300);
  ASSERT_TRUE(d.ok()) << d.status();
  const std::vector<std::string>& pieces = (*d->GetMetadata("tokenizer.ggml.tokens"))->strings();
  const std::vector<double>& scores = (*d->GetMetadata("tokenizer.ggml.scores"))->floats();
  ASSERT_EQ(pieces.size(), 300u);
  ASSERT_EQ(scores.size(), 300u);
  EXPECT_EQ(pieces[1], "<s>");
  EXPECT_EQ(pieces[3], "<0x00>");
  EXPECT_EQ(pieces[258], "<0xFF>");
  EXPECT_EQ(pieces[259],
            "\xE2\x96\x81"
            "a");  // U+2581 a
  EXPECT_EQ(pieces[260], "a");
  EXPECT_EQ(pieces[299],
            "\xE2\x96\x81"
            "u");  // 259 + 2 * 20
  EXPECT_GT(scores[259], scores[260]);
  EXPECT_EQ(*d->GetString("tokenizer.ggml.model"), "llama");
  EXPECT_EQ(*d->GetInt("tokenizer.ggml.bos_token_id"), 1);
}

TEST(RandomModelTest, SyntheticSpmVocabularyNeedsBytePieces) {
  absl::Status s = SyntheticSpmVocabulary(258).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("expected at least 259"), std::string::npos) << s;
}

// The other architectures' presets and the tensors and keys llama.cpp's converter writes for them.
TEST(RandomModelTest, ArchitecturePresetsAndTheirTensors) {
  auto tiny = [](const char* shape) {
    RandomModelSpec s = *RandomModelPreset(shape);
    EXPECT_NE(s.architecture, "llama") << shape;
    s.layers = 1, s.dim = 64, s.heads = 4, s.kv_heads = 2, s.ffn = 32, s.vocab = 10;
    absl::StatusOr<checkpoint::TensorDict> d = RandomModel(s);
    EXPECT_TRUE(d.ok()) << d.status();
    return *std::move(d);
  };
  checkpoint::TensorDict q2 = tiny("qwen2.5-0.5b");
  EXPECT_EQ(*q2.GetString("general.architecture"), "qwen2");
  EXPECT_EQ((*q2.Get("blk.0.attn_q.bias"))->shape(), Shape({64}));
  EXPECT_EQ((*q2.Get("blk.0.attn_k.bias"))->shape(), Shape({32}));
  EXPECT_TRUE(q2.Contains("blk.0.attn_v.bias"));
  EXPECT_FLOAT_EQ(static_cast<float>(*q2.GetFloat("qwen2.rope.freq_base")), 1e6f);

  RandomModelSpec s3 = *RandomModelPreset("qwen3-0.6b");
  EXPECT_EQ(s3.head_dim, 128);
  EXPECT_EQ(s3.vocab, 151936);
  s3.layers = 1, s3.dim = 64, s3.heads = 4, s3.kv_heads = 2, s3.head_dim = 32, s3.ffn = 32;
  s3.vocab = 10;
  checkpoint::TensorDict q3 = *RandomModel(s3);
  EXPECT_EQ(*q3.GetInt("qwen3.attention.key_length"), 32);
  EXPECT_EQ((*q3.Get("blk.0.attn_q.weight"))->shape(), Shape({128, 64}));
  EXPECT_EQ((*q3.Get("blk.0.attn_output.weight"))->shape(), Shape({64, 128}));
  EXPECT_EQ((*q3.Get("blk.0.attn_q_norm.weight"))->shape(), Shape({32}));
  EXPECT_FALSE(q3.Contains("blk.0.attn_q.bias"));

  checkpoint::TensorDict g3 = tiny("gemma3-270m");
  EXPECT_EQ(*g3.GetInt("gemma3.attention.sliding_window"), 512);
  EXPECT_EQ(*g3.GetInt("gemma3.attention.sliding_window_pattern"), 6);
  EXPECT_FLOAT_EQ(static_cast<float>(*g3.GetFloat("gemma3.rope.freq_base_swa")), 1e4f);
  EXPECT_TRUE(g3.Contains("blk.0.post_attention_norm.weight"));
  EXPECT_TRUE(g3.Contains("blk.0.post_ffw_norm.weight"));
  EXPECT_TRUE(g3.Contains("blk.0.attn_k_norm.weight"));

  checkpoint::TensorDict p3 = tiny("phi3.5-mini");
  EXPECT_EQ((*p3.Get("blk.0.attn_qkv.weight"))->shape(), Shape({64 + 2 * 32, 64}));
  EXPECT_EQ((*p3.Get("blk.0.ffn_up.weight"))->shape(), Shape({64, 64}));
  EXPECT_FALSE(p3.Contains("blk.0.ffn_gate.weight"));
  EXPECT_EQ((*p3.Get("rope_factors_long.weight"))->shape(), Shape({8}));
  EXPECT_TRUE(p3.Contains("output.weight"));
  EXPECT_EQ(*p3.GetInt("phi3.rope.scaling.original_context_length"), 4096);
  // sqrt(1 + ln(131072 / 4096) / ln(4096)), as the converter computes it.
  EXPECT_NEAR(*p3.GetFloat("phi3.rope.scaling.attn_factor"), 1.190238, 1e-6);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
