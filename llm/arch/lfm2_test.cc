// lfm2: its configuration (the per-layer head_count_kv array, the conv states), and the
// recurrent-state mechanism on it (llm/arch/recurrent_state.h): prefill in blocks of different
// sizes then decode equals token by token; a rewind is refused; a restart at 0 gives the first
// run's logits; Session::Rewind. Parity with llama.cpp: tests/parity/arch_parity_test.cc
// (TinyLfm2, Lfm2_1_2bFirst4Layers).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "llm/small_model_testing.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;
using ::testing::HasSubstr;

TensorDict Tiny() { return PresetModel("lfm2-tiny"); }

// `d` without the metadata key `key`.
TensorDict Without(const TensorDict& d, const std::string& key) {
  TensorDict out;
  for (const std::string& name : d.Keys()) EXPECT_TRUE(out.Set(name, **d.Get(name)).ok());
  for (const std::string& k : d.MetadataKeys()) {
    if (k != key) out.SetMetadata(k, **d.GetMetadata(k));
  }
  return out;
}

const std::vector<int> kPrompt = {1, 300, 17, 450, 99, 5, 260, 42, 77, 311, 2, 500, 64};

TEST(Lfm2Test, Config) {
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(Tiny());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->recurrent_layers, std::vector<bool>({true, true, false, true, true, false}));
  EXPECT_EQ(c->KvLayerCount(), 2);
  EXPECT_EQ(c->KvSlot(5), 1);
  ASSERT_EQ(c->recurrent_states.size(), 4u);
  EXPECT_EQ(c->recurrent_states[2].layer, 3);
  EXPECT_EQ(c->recurrent_states[2].shape, std::vector<int64_t>({2, 64}));
  EXPECT_EQ(c->head_count_kv, 2);
  EXPECT_TRUE(c->qk_norm);
  EXPECT_EQ(c->output_norm, "token_embd_norm.weight");
  EXPECT_THAT(c->ToString(),
              HasSubstr("lfm2: 6 layers, embedding 64, ffn 128, 4 heads (2 kv, dim 16), "
                        "vocab 512, context 128000"));
  EXPECT_THAT(c->ToString(), HasSubstr(", 4 recurrent layers (4 state tensors)"));
  std::unique_ptr<Model> m = LoadWithBlock(Tiny(), 8);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recurrent_state_bytes(), 4u * 2 * 64 * 4);
  EXPECT_EQ(m->kv_cache_bytes(), 2u * 2 * 2 * 64 * 16 * 2);  // 2 layers, K+V, 2 heads, ctx 64, f16
}

TEST(Lfm2Test, ConfigErrors) {
  TensorDict d = Tiny();
  d.SetMetadata("lfm2.attention.head_count_kv",
                MetadataValue::IntArray({0, 0, 2, 0, 0}, MetadataValue::Width::kI32));
  absl::Status s = ModelConfig::FromMetadata(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("metadata key 'lfm2.attention.head_count_kv' has 5 values; "
                                     "expected one or lfm2.block_count = 6"));
  d = Tiny();
  d.SetMetadata("lfm2.attention.head_count_kv",
                MetadataValue::IntArray({0, 0, 2, 0, 0, 4}, MetadataValue::Width::kI32));
  s = ModelConfig::FromMetadata(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("different kv head counts per layer"));
  s = ModelConfig::FromMetadata(Without(Tiny(), "lfm2.shortconv.l_cache")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("missing metadata key 'lfm2.shortconv.l_cache'"));
  d = Tiny();
  d.SetMetadata("lfm2.attention.sliding_window", MetadataValue::Int(512));
  s = ModelConfig::FromMetadata(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("sliding-window lfm2 attention is not supported"));
  // A zero kv head count on an architecture without recurrent layers.
  absl::StatusOr<RandomModelSpec> spec = RandomModelPreset("smollm3-tiny");
  ASSERT_TRUE(spec.ok());
  absl::StatusOr<TensorDict> llama = RandomModel(*spec);
  ASSERT_TRUE(llama.ok());
  llama->SetMetadata("smollm3.attention.head_count_kv",
                     MetadataValue::IntArray({2, 0, 2, 2, 2, 2, 2, 2}, MetadataValue::Width::kI32));
  s = ModelConfig::FromMetadata(*llama).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("metadata key 'smollm3.attention.head_count_kv' gives layer "
                                     "1 no kv heads; smollm3 has no recurrent layers"));
}

// Token by token (decode graph only) against prefills of 13 tokens in blocks of 8 (a full block
// then a padded or smaller one), of 4 and of 16 (one padded block), then 3 decode steps.
TEST(Lfm2Test, BlockedPrefillThenDecodeEqualsTokenByToken) {
  const TensorDict d = Tiny();
  const std::vector<std::vector<float>> want =
      ExpectBlockedPrefillEqualsTokenByToken(d, kPrompt, {33, 400, 7});
  ASSERT_EQ(want.size(), kPrompt.size() + 3);
  // PrefillAll: every position's logits.
  std::unique_ptr<Model> m = LoadWithBlock(d, 8);
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(m->PrefillAll(kPrompt, 0, [&](int i, absl::Span<const float> logits) {
                 ExpectLogitsNear(logits, want[i]);
                 return absl::OkStatus();
               }).ok());
}

// edgeq quantize leaves the 3-column conv taps bf16 (no block type fits 3): they are decoded to
// f32 at load, close to the f32 model's logits.
TEST(Lfm2Test, Bf16ConvTapsAreDecoded) {
  const TensorDict f32 = Tiny();
  TensorDict d;
  for (const std::string& name : f32.Keys()) {
    const Tensor& t = **f32.Get(name);
    if (absl::StrContains(name, "shortconv.conv")) {
      absl::StatusOr<const QuantizationEncoding*> bf16 = FindEncoding("bf16");
      ASSERT_TRUE(bf16.ok());
      absl::StatusOr<Tensor> q = (*bf16)->Quantize(t);
      ASSERT_TRUE(q.ok()) << q.status();
      ASSERT_TRUE(d.Set(name, *q).ok());
    } else {
      ASSERT_TRUE(d.Set(name, t).ok());
    }
  }
  for (const std::string& k : f32.MetadataKeys()) d.SetMetadata(k, **f32.GetMetadata(k));
  std::unique_ptr<Model> a = LoadWithBlock(f32, 8), b = LoadWithBlock(d, 8);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  absl::StatusOr<absl::Span<const float>> la = a->Prefill(kPrompt, 0);
  ASSERT_TRUE(la.ok()) << la.status();
  const std::vector<float> want(la->begin(), la->end());
  absl::StatusOr<absl::Span<const float>> lb = b->Prefill(kPrompt, 0);
  ASSERT_TRUE(lb.ok()) << lb.status();
  float max_abs = 0, max_diff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    max_abs = std::max(max_abs, std::fabs(want[i]));
    max_diff = std::max(max_diff, std::fabs((*lb)[i] - want[i]));
  }
  EXPECT_GT(max_diff, 0.0f);  // the bf16 taps were used
  EXPECT_LT(max_diff, 2e-2f * max_abs);
}

TEST(Lfm2Test, RewindRefusedRestartWorks) {
  std::unique_ptr<Model> m = LoadWithBlock(Tiny(), 8);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<absl::Span<const float>> l = m->Prefill(kPrompt, 0);
  ASSERT_TRUE(l.ok()) << l.status();
  const std::vector<float> first(l->begin(), l->end());
  EXPECT_EQ(m->processed_positions(), 13);
  l = m->Forward(5, 6);
  EXPECT_EQ(l.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(l.status().message(),
            "lfm2 has recurrent layers: a run must start at position 0 or 13 (the end of what was "
            "processed), got 6");
  l = m->Forward(5, 14);  // a gap is a rewind too
  EXPECT_EQ(l.status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(m->Forward(5, 13).ok());
  l = m->Prefill(kPrompt, 0);  // restart: the states are zeroed
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(std::vector<float>(l->begin(), l->end()), first);
}

TEST(Lfm2Test, SessionRewindAndReset) {
  std::unique_ptr<Model> m = LoadWithBlock(Tiny(), 8);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Sampler> sampler = Sampler::Create(512, {.temperature = 0});
  ASSERT_TRUE(sampler.ok()) << sampler.status();
  Session session(*m, *sampler);
  absl::StatusOr<GenerateResult> a = session.Generate(kPrompt, {.max_tokens = 6});
  ASSERT_TRUE(a.ok()) << a.status();
  absl::Status s = session.Rewind(5);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("cannot rewind to 5 tokens: lfm2 has recurrent layers"));
  session.Reset();
  absl::StatusOr<GenerateResult> b = session.Generate(kPrompt, {.max_tokens = 6});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->tokens, b->tokens);
  ASSERT_TRUE(session.Rewind(0).ok());
  b = session.Generate(kPrompt, {.max_tokens = 6});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->tokens, b->tokens);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
