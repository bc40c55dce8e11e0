// Random-model presets of lfm2moe (llm/random_model.h) and its keys beyond qwen3moe's expert
// keys: leading_dense_block_count and expert_gating_func, as the LFM2-MoE converter writes them
// (its exp_probs_b.bias follows the row's tensor map).
#include <string>
#include <vector>

#include "checkpoint/tensor_dict.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;

std::vector<NamedPreset<RandomModelSpec>> Lfm2MoePresets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  // LFM2-8B-A1B (its config.json: 24 layers, attention on 2, 6, 10, 14, 18, 21, the first 2
  // dense, 32 experts of 1792, 4 per token, sigmoid routing with an expert bias).
  RandomModelSpec s;
  s.name = "LFM2-8B-A1B", s.architecture = "lfm2moe";
  s.dim = 2048, s.layers = 24, s.heads = 32, s.kv_heads = 8, s.ffn = 7168, s.vocab = 65536;
  s.context = 128000, s.rope_base = 1000000.0f, s.rms_eps = 1e-5f, s.tied = true;
  s.shortconv_l_cache = 3, s.attention_layers = {2, 6, 10, 14, 18, 21};
  s.expert_count = 32, s.expert_used = 4, s.expert_ffn = 1792, s.leading_dense = 2;
  p.push_back({"lfm2-8b-a1b", s});
  s.name = "LFM2-MoE tiny";  // 6 layers (attention on 2 and 5, the first 2 dense), 8 experts
  s.dim = 64, s.layers = 6, s.heads = 4, s.kv_heads = 2, s.ffn = 128, s.vocab = 512;
  s.attention_layers = {2, 5}, s.expert_count = 8, s.expert_used = 2, s.expert_ffn = 32;
  p.push_back({"lfm2moe-tiny", s});
  return p;
}

void Lfm2MoeExpertKeys(const RandomModelSpec& s, const std::string& a, checkpoint::TensorDict& d) {
  d.SetMetadata(a + "leading_dense_block_count",
                MetadataValue::Int(s.leading_dense, MetadataValue::Width::kU32));
  d.SetMetadata(a + "expert_gating_func",
                MetadataValue::Int(s.expert_gating, MetadataValue::Width::kU32));
}

[[maybe_unused]] const bool kRegistered = RegisterRandomArchitecture(
    {.gguf_name = "lfm2moe", .presets = Lfm2MoePresets, .keys_after_experts = Lfm2MoeExpertKeys});

}  // namespace
}  // namespace llm
}  // namespace edgeq
