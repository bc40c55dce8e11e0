#include "llm/arch/arch_table.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "llm/arch/bert.h"
#include "llm/arch/model_config.h"

namespace edgeq {
namespace llm {
namespace arch {
namespace {

TEST(ArchTableTest, RowsAreFoundByGgufNameAndHfClass) {
  ASSERT_FALSE(Architectures().empty());
  for (const ArchInfo& a : Architectures()) {
    EXPECT_EQ(FindByGgufName(a.gguf_name), &a) << a.gguf_name;
    EXPECT_EQ(FindByHfClass(a.hf.class_name), &a) << a.hf.class_name;
    EXPECT_EQ(&Info(a.arch), &a) << a.gguf_name;
    EXPECT_EQ(static_cast<size_t>(a.arch), static_cast<size_t>(&a - Architectures().data()));
    EXPECT_NE(a.build_layer, nullptr) << a.gguf_name << " has no layer builder";
  }
  EXPECT_EQ(FindByGgufName("mamba"), nullptr);
  EXPECT_EQ(FindByGgufName("Llama"), nullptr);  // GGUF names are exact
  EXPECT_EQ(FindByHfClass("MambaForCausalLM"), nullptr);
  EXPECT_EQ(SupportedArchitectures(), GgufNames());
}

TEST(ArchTableTest, RowsDescribeLlamaCppStructure) {
  const ArchInfo& llama = Info(Arch{});
  EXPECT_STREQ(llama.gguf_name, "llama");
  EXPECT_EQ(llama.rope, RopeType::kNorm);
  EXPECT_TRUE(llama.hf.permute_qk);
  EXPECT_TRUE(llama.hf.llama3_rope_scaling);
  EXPECT_EQ(FindByGgufName("qwen2")->rope, RopeType::kNeox);
  EXPECT_TRUE(FindByGgufName("qwen2")->qkv_bias);
  EXPECT_TRUE(FindByGgufName("qwen3")->qk_norm);
  const ArchInfo& gemma = *FindByGgufName("gemma3");
  EXPECT_EQ(gemma.activation, Activation::kGeluTanh);
  EXPECT_EQ(gemma.norms, NormPlacement::kPreAndPost);
  EXPECT_TRUE(gemma.embedding_scale_sqrt_dim);
  EXPECT_FLOAT_EQ(gemma.hf.norm_offset, 1.0f);
  EXPECT_EQ(gemma.hf.default_rms_eps, 1e-6);
  const ArchInfo& phi = *FindByGgufName("phi3");
  EXPECT_EQ(phi.qkv, QkvLayout::kFused);
  EXPECT_EQ(phi.ffn, FfnLayout::kFusedGateUp);
  EXPECT_TRUE(phi.hf.long_short_rope);
}

// Hugging Face import (convert/hf_import.h): every row; the experts of the MoE rows are "*"
// patterns merged into 3-D tensors, lfm2's conv layers and qwen35's gated delta-net
// tensors are mapped; qwen35's norms get +1 but ssm_norm.
TEST(ArchTableTest, ImportableRowsAndTheirHybridAndExpertTensors) {
  for (const ArchInfo& a : Architectures()) {
    const std::string name = a.gguf_name;
    EXPECT_EQ(a.hf.no_import, nullptr) << name;
  }
  auto maps = [](const char* arch, const std::string& hf, const std::string& gguf) {
    const ArchInfo& a = *FindByGgufName(arch);
    for (size_t i = 0; i < a.hf_tensor_count; ++i) {
      if (hf == a.hf_tensors[i].hf) return gguf == a.hf_tensors[i].gguf;
    }
    return false;
  };
  EXPECT_TRUE(maps("lfm2", "conv.conv.weight", "shortconv.conv.weight"));
  EXPECT_TRUE(maps("lfm2moe", "conv.in_proj.weight", "shortconv.in_proj.weight"));
  EXPECT_TRUE(maps("qwen3moe", "mlp.experts.*.gate_proj.weight", "ffn_gate_exps.weight"));
  EXPECT_TRUE(maps("lfm2moe", "feed_forward.experts.*.w2.weight", "ffn_down_exps.weight"));
  EXPECT_TRUE(maps("lfm2moe", "feed_forward.expert_bias", "exp_probs_b.bias"));
  EXPECT_TRUE(maps("qwen35", "linear_attn.A_log", "ssm_a"));
  EXPECT_TRUE(maps("qwen35", "linear_attn.dt_bias", "ssm_dt.bias"));
  EXPECT_TRUE(maps("qwen35", "linear_attn.norm.weight", "ssm_norm.weight"));
  const ArchInfo& qwen35 = *FindByGgufName("qwen35");
  EXPECT_FLOAT_EQ(qwen35.hf.norm_offset, 1.0f);
  EXPECT_STREQ(qwen35.hf.norm_offset_skip, "ssm_norm.weight");
  EXPECT_TRUE(maps("gemma4", "layer_scalar", "layer_output_scale.weight"));
  EXPECT_TRUE(maps("gemma4", "per_layer_input_gate.weight", "inp_gate.weight"));
}

// Every row maps each Hugging Face layer tensor to one GGUF name and back, and has the
// tensors every layer needs.
TEST(ArchTableTest, LayerTensorMapsAreOneToOne) {
  for (const ArchInfo& a : Architectures()) {
    std::set<std::string> hf, gguf;
    for (size_t i = 0; i < a.hf_tensor_count; ++i) {
      EXPECT_TRUE(hf.insert(a.hf_tensors[i].hf).second) << a.gguf_name << " " << a.hf_tensors[i].hf;
      EXPECT_TRUE(gguf.insert(a.hf_tensors[i].gguf).second)
          << a.gguf_name << " " << a.hf_tensors[i].gguf;
    }
    // qwen35's hybrid layers: no layer has them all (post_attention_norm, not ffn_norm).
    if (&a == FindByGgufName("qwen35")) continue;
    for (const char* need : {"attn_norm.weight", "attn_output.weight", "ffn_down.weight",
                             "ffn_up.weight", "ffn_norm.weight"}) {
      EXPECT_EQ(gguf.count(need), 1u) << a.gguf_name << " lacks " << need;
    }
    EXPECT_EQ(gguf.count("attn_qkv.weight"), a.qkv == QkvLayout::kFused ? 1u : 0u) << a.gguf_name;
    EXPECT_EQ(gguf.count("ffn_gate.weight"), a.ffn == FfnLayout::kGateUp ? 1u : 0u) << a.gguf_name;
    EXPECT_EQ(gguf.count("attn_q_norm.weight"), a.qk_norm ? 1u : 0u) << a.gguf_name;
    EXPECT_EQ(gguf.count("attn_q.bias"), a.qkv_bias ? 1u : 0u) << a.gguf_name;
    EXPECT_EQ(gguf.count("post_ffw_norm.weight"), a.norms == NormPlacement::kPreAndPost ? 1u : 0u)
        << a.gguf_name;
  }
}

// The encoders' table (bert.h): found by GGUF name, in enum order; decoders and unknown names are
// not encoders, and the refusal lists the rows.
TEST(ArchTableTest, EncoderRows) {
  ASSERT_EQ(EncoderArchitectures().size(), 3u);
  for (const EncoderArchInfo& e : EncoderArchitectures()) {
    EXPECT_EQ(FindEncoder(e.gguf_name), &e) << e.gguf_name;
    EXPECT_EQ(&EncoderInfo(e.arch), &e) << e.gguf_name;
    EXPECT_TRUE(IsEncoderArchitecture(e.gguf_name)) << e.gguf_name;
    EXPECT_EQ(FindByGgufName(e.gguf_name), nullptr) << e.gguf_name << " is also a decoder row";
  }
  ASSERT_NE(FindEncoder("nomic-bert"), nullptr);
  EXPECT_EQ(FindEncoder("nomic-bert")->arch, EncoderArch::kNomicBert);
  EXPECT_TRUE(EncoderInfo(EncoderArch::kGemmaEmbedding).sliding_window_mask);
  EXPECT_FALSE(EncoderInfo(EncoderArch::kBert).sliding_window_mask);
  EXPECT_FALSE(IsEncoderArchitecture("llama"));
  EXPECT_FALSE(IsEncoderArchitecture("Bert"));
  checkpoint::TensorDict d;
  d.SetMetadata("general.architecture", checkpoint::MetadataValue::String("llama"));
  absl::Status s = EncoderConfigFromMetadata(d).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "general.architecture 'llama'; expected an encoder: bert, nomic-bert or "
            "gemma-embedding");
}

}  // namespace
}  // namespace arch
}  // namespace llm
}  // namespace edgeq
