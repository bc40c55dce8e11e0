// Random-model presets of qwen35 (llm/random_model.h) and what its file adds beyond the common
// layouts: the rope.dimension_sections / ssm.* / full_attention_interval keys and its hybrid
// layers (full attention every full_attention_interval-th layer, gated delta-net otherwise), as
// llama.cpp's Qwen3.5 converter writes them.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using Width = MetadataValue::Width;

std::vector<NamedPreset<RandomModelSpec>> Qwen35Presets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  // Qwen3.5-0.8B (its config.json: 24 layers, 3 gated delta-net ones per full-attention one,
  // partial M-RoPE on 64 of 256 head dims, sections 11/11/10).
  RandomModelSpec s;
  s.name = "Qwen3.5-0.8B", s.architecture = "qwen35";
  s.dim = 1024, s.layers = 24, s.heads = 8, s.kv_heads = 2, s.head_dim = 256, s.ffn = 3584;
  s.vocab = 248320, s.context = 262144, s.rope_base = 10000000.0f, s.rms_eps = 1e-6f;
  s.tied = true, s.rope_dims = 64, s.rope_sections = {11, 11, 10, 0};
  s.ssm_conv_kernel = 4, s.ssm_state = 128, s.ssm_key_heads = 16, s.ssm_value_heads = 16;
  p.push_back({"qwen3.5-0.8b", s});
  s.name = "Qwen3.5 tiny";  // 8 layers (2 full attention), grouped key heads (2 for 4 values)
  s.dim = 64, s.layers = 8, s.heads = 4, s.kv_heads = 2, s.head_dim = 32, s.ffn = 128;
  s.vocab = 512, s.context = 4096, s.rope_dims = 8, s.rope_sections = {2, 1, 1, 0};
  s.ssm_state = 16, s.ssm_key_heads = 2, s.ssm_value_heads = 4;
  p.push_back({"qwen3.5-tiny", s});
  return p;
}

void Qwen35Keys(const RandomModelSpec& s, const std::string& a, checkpoint::TensorDict& d) {
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, Width::kU32); };
  std::vector<int64_t> sections(s.rope_sections.begin(), s.rope_sections.end());
  d.SetMetadata(a + "rope.dimension_sections",
                MetadataValue::IntArray(std::move(sections), Width::kI32));
  d.SetMetadata(a + "ssm.conv_kernel", u32(s.ssm_conv_kernel));
  d.SetMetadata(a + "ssm.state_size", u32(s.ssm_state));
  d.SetMetadata(a + "ssm.group_count", u32(s.ssm_key_heads));
  d.SetMetadata(a + "ssm.time_step_rank", u32(s.ssm_value_heads));
  d.SetMetadata(a + "ssm.inner_size", u32(s.ssm_value_heads * s.ssm_state));
  d.SetMetadata(a + "full_attention_interval", u32(s.full_attention_interval));
}

// A qwen35 layer: full attention (attn_q of query and gate rows per head, q/k norms) on every
// full_attention_interval-th layer, else gated delta-net tensors (ssm_a = -exp(A_log) made up
// in [-1, -0.5], so that every head decays).
absl::Status AddQwen35Layer(const RandomModelSpec& s, int l, int head_dim,
                            const RandomTensorFn& add) {
  if (s.ssm_state <= 0 || s.ssm_key_heads <= 0 || s.ssm_value_heads % s.ssm_key_heads != 0 ||
      s.ssm_value_heads <= 0 || s.ssm_conv_kernel < 2 || s.full_attention_interval <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad qwen35 shape: ssm state %d, key heads %d, value heads %d, conv kernel %d, full "
        "attention interval %d (positive, value heads a multiple of key heads, kernel >= 2)",
        s.ssm_state, s.ssm_key_heads, s.ssm_value_heads, s.ssm_conv_kernel,
        s.full_attention_interval));
  }
  const std::string p = absl::StrCat("blk.", l, ".");
  const int64_t q_dim = int64_t{head_dim} * s.heads, kv_dim = int64_t{head_dim} * s.kv_heads;
  const int64_t key_dim = int64_t{s.ssm_key_heads} * s.ssm_state;
  const int64_t value_dim = int64_t{s.ssm_value_heads} * s.ssm_state;
  EDGEQ_RETURN_IF_ERROR(add(p + "attn_norm.weight", {s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "post_attention_norm.weight", {s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down.weight", {s.dim, s.ffn}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate.weight", {s.ffn, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up.weight", {s.ffn, s.dim}, {}, false));
  if ((l + 1) % s.full_attention_interval == 0) {
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_q.weight", {2 * q_dim, s.dim}, {}, false));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_k.weight", {kv_dim, s.dim}, {}, false));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_v.weight", {kv_dim, s.dim}, {}, false));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_output.weight", {s.dim, q_dim}, {}, false));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_q_norm.weight", {head_dim}, {}, false));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_k_norm.weight", {head_dim}, {}, false));
    return absl::OkStatus();
  }
  std::vector<float> a;
  for (int h = 0; h < s.ssm_value_heads; ++h) {
    a.push_back(-1.0f + 0.5f * static_cast<float>(h) / static_cast<float>(s.ssm_value_heads));
  }
  EDGEQ_RETURN_IF_ERROR(add(p + "attn_qkv.weight", {2 * key_dim + value_dim, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "attn_gate.weight", {value_dim, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(
      add(p + "ssm_conv1d.weight", {2 * key_dim + value_dim, s.ssm_conv_kernel}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ssm_dt.bias", {s.ssm_value_heads}, {}, true));
  EDGEQ_RETURN_IF_ERROR(add(p + "ssm_a", {s.ssm_value_heads}, a, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ssm_beta.weight", {s.ssm_value_heads, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ssm_alpha.weight", {s.ssm_value_heads, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ssm_norm.weight", {s.ssm_state}, {}, false));
  return add(p + "ssm_out.weight", {s.dim, value_dim}, {}, false);
}

[[maybe_unused]] const bool kRegistered = RegisterRandomArchitecture({.gguf_name = "qwen35",
                                                                      .presets = Qwen35Presets,
                                                                      .keys_after_rope = Qwen35Keys,
                                                                      .layer = AddQwen35Layer});

}  // namespace
}  // namespace llm
}  // namespace edgeq
