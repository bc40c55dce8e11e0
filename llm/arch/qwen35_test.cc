// qwen35: its configuration (ssm.* keys, layer types, recurrent states, M-RoPE sections), the
// MTP/NextN layer (loaded, not run), its errors, and the recurrent state across prefill blocks
// and decode steps. Parity with llama.cpp: tests/parity/arch_parity_test.cc (TinyQwen35,
// Qwen35_08bFirst4Layers).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_dict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;
using ::testing::HasSubstr;

TensorDict Tiny(int layers = 8) {
  absl::StatusOr<RandomModelSpec> s = RandomModelPreset("qwen3.5-tiny");
  EXPECT_TRUE(s.ok()) << s.status();
  s->layers = layers;
  absl::StatusOr<TensorDict> d = RandomModel(*s);
  EXPECT_TRUE(d.ok()) << d.status();
  return *std::move(d);
}

constexpr int kTokens[] = {1, 300, 17, 450, 99, 5, 260, 42, 77, 128, 3, 400, 211, 9, 31, 64, 500};
constexpr int kVocab = 512;

// Logits after each of the first n of kTokens, one decode step each.
std::vector<float> StepLogits(Model& m, int n) {
  std::vector<float> all;
  for (int pos = 0; pos < n; ++pos) {
    absl::StatusOr<absl::Span<const float>> l = m.Forward(kTokens[pos], pos);
    EXPECT_TRUE(l.ok()) << l.status();
    if (!l.ok()) return {};
    all.insert(all.end(), l->begin(), l->end());
  }
  return all;
}

double MaxAbsDiff(absl::Span<const float> a, absl::Span<const float> b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::fabs(a[i] - b[i])));
  return d;
}

TEST(Qwen35Test, ConfigFromKeys) {
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(Tiny());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_STREQ(arch::Info(c->arch).gguf_name, "qwen35");
  EXPECT_EQ(c->rope_type, arch::RopeType::kNeox);
  EXPECT_EQ(c->rope_dimension_count, 8);
  EXPECT_EQ(c->head_dim, 32);
  EXPECT_EQ(c->ssm_conv_kernel, 4);
  EXPECT_EQ(c->ssm_state_size, 16);
  EXPECT_EQ(c->ssm_group_count, 2);
  EXPECT_EQ(c->ssm_time_step_rank, 4);
  EXPECT_EQ(c->ssm_inner_size, 64);
  EXPECT_EQ(c->nextn_layers, 0);
  // Layers 3 and 7 are full attention (interval 4), the others gated delta-net.
  const std::vector<bool> want = {true, true, true, false, true, true, true, false};
  EXPECT_EQ(c->recurrent_layers, want);
  EXPECT_EQ(c->KvLayerCount(), 2);
  // Two states per linear layer: conv [k - 1, 2 * 2 * 16 + 4 * 16], delta rule [4, 16, 16].
  ASSERT_EQ(c->recurrent_states.size(), 12u);
  EXPECT_EQ(c->recurrent_states[0].layer, 0);
  EXPECT_EQ(c->recurrent_states[0].shape, (std::vector<int64_t>{3, 128}));
  EXPECT_EQ(c->recurrent_states[1].shape, (std::vector<int64_t>{4, 16, 16}));
  EXPECT_EQ(c->recurrent_states[6].layer, 4);
  EXPECT_THAT(c->ToString(), HasSubstr("6 recurrent layers (12 state tensors)"));
}

// An MTP/NextN layer after the trunk: block_count counts it, the trunk does not run it, Load
// accepts its tensors (marked used) and the logits are those of the file without it.
TEST(Qwen35Test, NextnLayerIsLoadedNotRun) {
  const TensorDict plain = Tiny(4);
  TensorDict with_mtp = Tiny(5);  // layer 4 becomes the MTP layer: a linear layer's tensors
  // Replace blk.4 by an MTP layer's tensors (full-attention shapes: take layer 3's).
  TensorDict d;
  for (const std::string& name : with_mtp.Keys()) {
    if (absl::StartsWith(name, "blk.4.")) continue;
    ASSERT_TRUE(d.Set(name, **with_mtp.Get(name)).ok());
    if (absl::StartsWith(name, "blk.3.")) {
      ASSERT_TRUE(d.Set("blk.4." + name.substr(6), **with_mtp.Get(name)).ok());
    }
  }
  ASSERT_TRUE(d.Set("blk.4.nextn.enorm.weight", **with_mtp.Get("blk.3.attn_norm.weight")).ok());
  for (const std::string& key : with_mtp.MetadataKeys()) {
    d.SetMetadata(key, **with_mtp.GetMetadata(key));
  }
  d.SetMetadata("qwen35.nextn_predict_layers", MetadataValue::Int(1, MetadataValue::Width::kU32));
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(d);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->block_count, 4);
  EXPECT_EQ(c->nextn_layers, 1);
  absl::StatusOr<std::unique_ptr<Model>> a = Model::Load(d, {.context_length = 32});
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::unique_ptr<Model>> b = Model::Load(plain, {.context_length = 32});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::vector<float> la = StepLogits(**a, 4), lb = StepLogits(**b, 4);
  ASSERT_EQ(la.size(), 4u * kVocab);
  ASSERT_EQ(la.size(), lb.size());
  EXPECT_EQ(std::memcmp(la.data(), lb.data(), la.size() * sizeof(float)), 0);
  // An unknown tensor in the MTP layer is still refused.
  ASSERT_TRUE(d.Set("blk.4.nextn.bogus.weight", **with_mtp.Get("blk.3.attn_norm.weight")).ok());
  absl::StatusOr<std::unique_ptr<Model>> bad = Model::Load(d, {.context_length = 32});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("blk.4.nextn.bogus.weight"));
}

TEST(Qwen35Test, RefusesContradictoryKeys) {
  TensorDict d = Tiny(4);
  d.SetMetadata("qwen35.ssm.inner_size", MetadataValue::Int(60, MetadataValue::Width::kU32));
  absl::StatusOr<ModelConfig> c = ModelConfig::FromMetadata(d);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(),
              HasSubstr("'qwen35.ssm.inner_size' = 60 contradict: expected a kernel of at least 2, "
                        "value heads a multiple of key heads and inner size = value heads x "
                        "state size"));
  d = Tiny(4);
  // 4 rotated pairs over sections 1/1/1/1: pair 3 would take the fourth stream.
  d.SetMetadata("qwen35.rope.dimension_sections",
                MetadataValue::IntArray({1, 1, 1, 1}, MetadataValue::Width::kI32));
  c = ModelConfig::FromMetadata(d);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(c.status().message(), HasSubstr("rotated pair 3 would take the fourth position"));
  const TensorDict full = Tiny(4);
  d = TensorDict();
  for (const std::string& name : full.Keys()) ASSERT_TRUE(d.Set(name, **full.Get(name)).ok());
  for (const std::string& key : full.MetadataKeys()) {
    if (key != "qwen35.ssm.state_size") d.SetMetadata(key, **full.GetMetadata(key));
  }
  c = ModelConfig::FromMetadata(d);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(), HasSubstr("missing metadata key 'qwen35.ssm.state_size'"));
}

// Prefill blocks (padded: 17 tokens with a ubatch of 8) carry the states as decode steps do.
TEST(Qwen35Test, PrefillBlocksMatchDecodeSteps) {
  const TensorDict d = Tiny();
  absl::StatusOr<std::unique_ptr<Model>> step = Model::Load(d, {.context_length = 32});
  ASSERT_TRUE(step.ok()) << step.status();
  const std::vector<float> want = StepLogits(**step, 17);
  ASSERT_EQ(want.size(), 17u * kVocab);
  absl::StatusOr<std::unique_ptr<Model>> m =
      Model::Load(d, {.prefill_block = 8, .context_length = 32});
  ASSERT_TRUE(m.ok()) << m.status();
  for (int n : {17, 11, 3}) {  // each from position 0: the states start over
    absl::StatusOr<absl::Span<const float>> l = (*m)->Prefill(absl::MakeConstSpan(kTokens, n), 0);
    ASSERT_TRUE(l.ok()) << l.status();
    EXPECT_LT(MaxAbsDiff(*l, absl::MakeConstSpan(want).subspan((n - 1) * kVocab, kVocab)), 1e-5)
        << n << " tokens";
  }
  // Continuing after a prefill: position 3 follows the 3 tokens just given.
  absl::StatusOr<absl::Span<const float>> next = (*m)->Forward(kTokens[3], 3);
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_LT(MaxAbsDiff(*next, absl::MakeConstSpan(want).subspan(3 * kVocab, kVocab)), 1e-5);
  // A rewind (position 2 after 4 tokens) cannot be served by the states.
  absl::StatusOr<absl::Span<const float>> rewind = (*m)->Forward(kTokens[2], 2);
  EXPECT_EQ(rewind.status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
