// qwen3moe and lfm2moe (llm/arch/qwen3moe.cc, lfm2moe.cc, moe.cc): their configuration from the
// expert keys, the errors of bad keys and expert tensors, prefill in blocks (padded rows
// routed or not) then decode equal to token by token, and q8_0 / f16 experts close to the f32
// model. Parity with llama.cpp: tests/parity/arch2026_parity_test.cc (TinyQwen3Moe,
// Qwen3_30bA3bFirst2Layers16Experts, TinyLfm2Moe, Lfm2_8bA1bFirst3Layers8Experts).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "checkpoint/tensor_dict.h"
#include "core/tensor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "llm/random_model.h"
#include "llm/small_model_testing.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;
using ::testing::HasSubstr;

TensorDict Tiny(const char* shape) { return PresetModel(shape); }

const std::vector<int> kPrompt = {1, 300, 17, 450, 99, 5, 260, 42, 77, 311, 2, 500, 64};

TEST(MoeArchTest, Config) {
  absl::StatusOr<ModelConfig> q = ModelConfig::FromMetadata(Tiny("qwen3moe-tiny"));
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->expert_count, 8);
  EXPECT_EQ(q->expert_used_count, 2);
  EXPECT_EQ(q->expert_feed_forward_length, 32);
  EXPECT_EQ(q->leading_dense_block_count, 0);
  EXPECT_FALSE(q->expert_sigmoid_gating);
  EXPECT_FALSE(q->expert_selection_bias);
  EXPECT_TRUE(q->qk_norm);
  EXPECT_TRUE(q->IsMoeLayer(0));
  EXPECT_THAT(q->ToString(), HasSubstr(", 2 of 8 experts (ffn 32, softmax)"));
  absl::StatusOr<ModelConfig> l = ModelConfig::FromMetadata(Tiny("lfm2moe-tiny"));
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->leading_dense_block_count, 2);
  EXPECT_TRUE(l->expert_sigmoid_gating);
  EXPECT_TRUE(l->expert_selection_bias);
  EXPECT_FALSE(l->IsMoeLayer(1));
  EXPECT_TRUE(l->IsMoeLayer(2));
  EXPECT_EQ(l->KvLayerCount(), 2);
  EXPECT_THAT(l->ToString(), HasSubstr(", 2 of 8 experts (ffn 32, sigmoid, first 2 dense)"));
}

TEST(MoeArchTest, ConfigErrors) {
  TensorDict d = Tiny("qwen3moe-tiny");
  d.SetMetadata("qwen3moe.expert_used_count", MetadataValue::Int(9));
  absl::Status s = ModelConfig::FromMetadata(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("metadata key 'qwen3moe.expert_used_count' is 9; expected "
                                     "at most qwen3moe.expert_count = 8"));
  d = Tiny("lfm2moe-tiny");
  d.SetMetadata("lfm2moe.expert_gating_func", MetadataValue::Int(4));
  s = ModelConfig::FromMetadata(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("metadata key 'lfm2moe.expert_gating_func' is 4; expected 1 "
                                     "(softmax) or 2 (sigmoid)"));
  d = Tiny("lfm2moe-tiny");
  d.SetMetadata("lfm2moe.leading_dense_block_count", MetadataValue::Int(7));
  s = ModelConfig::FromMetadata(d).status();
  EXPECT_THAT(s.message(), HasSubstr("metadata key 'lfm2moe.leading_dense_block_count' is 7; "
                                     "expected 0 to lfm2moe.block_count = 6"));
  // An expert tensor of the wrong shape, a missing selection bias: Load names the tensor.
  d = Tiny("qwen3moe-tiny");
  ASSERT_TRUE(
      d.Set("blk.1.ffn_down_exps.weight", *Tensor::Create(DType::kFloat32, Shape({8, 32, 64})))
          .ok());
  s = Model::Load(d, {}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tensor 'blk.1.ffn_down_exps.weight' is f32[8, 32, 64]"));
  EXPECT_THAT(s.message(), HasSubstr("expected [8, 64, 32] (experts, rows, columns)"));
  const TensorDict full = Tiny("lfm2moe-tiny");
  TensorDict no_bias;
  for (const std::string& name : full.Keys()) {
    if (name != "blk.3.exp_probs_b.bias") {
      ASSERT_TRUE(no_bias.Set(name, **full.Get(name)).ok());
    }
  }
  for (const std::string& k : full.MetadataKeys()) no_bias.SetMetadata(k, **full.GetMetadata(k));
  s = Model::Load(no_bias, {}).status();
  EXPECT_THAT(s.message(), HasSubstr("tensor 'blk.3.exp_probs_b.bias' is missing; expected f32 "
                                     "[8] (lfm2moe.expert_count)"));
}

// Token by token against prefills of 13 tokens in blocks of 4, 8 (a full block, then a padded
// one) and 16 (one padded block), then 3 decode steps.
TEST(MoeArchTest, BlockedPrefillThenDecodeEqualsTokenByToken) {
  for (const char* shape : {"qwen3moe-tiny", "lfm2moe-tiny"}) {
    SCOPED_TRACE(shape);
    EXPECT_EQ(ExpectBlockedPrefillEqualsTokenByToken(Tiny(shape), kPrompt, {33, 400, 7}).size(),
              kPrompt.size() + 3);
  }
}

// The 3-D expert tensors in q8_0 or f16 (every other tensor f32): the logits stay close to the
// f32 model's (q8_0 rounds the weights and, in the kernels, the activations).
TEST(MoeArchTest, QuantizedAndF16ExpertsCloseToF32) {
  for (const char* shape : {"qwen3moe-tiny", "lfm2moe-tiny"}) {
    const TensorDict f32 = Tiny(shape);
    std::unique_ptr<Model> base = LoadWithBlock(f32, 8);
    ASSERT_NE(base, nullptr);
    absl::StatusOr<absl::Span<const float>> l = base->Prefill(kPrompt, 0);
    ASSERT_TRUE(l.ok()) << l.status();
    const std::vector<float> want(l->begin(), l->end());
    for (const bool f16 : {false, true}) {
      SCOPED_TRACE(absl::StrCat(shape, f16 ? " f16" : " q8_0"));
      TensorDict d;
      for (const std::string& name : f32.Keys()) {
        const Tensor& t = **f32.Get(name);
        if (t.rank() != 3) {
          ASSERT_TRUE(d.Set(name, t).ok());
          continue;
        }
        absl::StatusOr<Tensor> c;
        if (f16) {  // a plain f16 tensor (as a GGUF's F16 type): the f16 encoding's bytes
          const Tensor enc = *(*FindEncoding("f16"))->Quantize(t);
          c = Tensor::Create(DType::kFloat16, t.shape());
          ASSERT_TRUE(c.ok());
          std::memcpy(c->raw_mutable_data(), enc.raw_data(), enc.size_bytes());
        } else {
          c = Q8_0Encoding().Quantize(t);
        }
        ASSERT_TRUE(c.ok()) << c.status();
        ASSERT_TRUE(d.Set(name, *std::move(c)).ok());
      }
      for (const std::string& k : f32.MetadataKeys()) d.SetMetadata(k, **f32.GetMetadata(k));
      std::unique_ptr<Model> m = LoadWithBlock(d, 8);
      ASSERT_NE(m, nullptr);
      l = m->Prefill(kPrompt, 0);
      ASSERT_TRUE(l.ok()) << l.status();
      ExpectLogitsNear(*l, want, f16 ? 1e-2f : 5e-2f);
    }
  }
}

}  // namespace
}  // namespace llm
}  // namespace edgeq
