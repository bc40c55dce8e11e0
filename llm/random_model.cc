#include "llm/random_model.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "llm/arch/arch_table.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using Width = checkpoint::MetadataValue::Width;

struct Preset {
  const char* key;
  RandomModelSpec spec;
};

std::vector<Preset> Presets() {
  std::vector<Preset> p;
  RandomModelSpec s;
  s = RandomModelSpec{};
  s.name = "stories15M";
  s.dim = 288, s.layers = 6, s.heads = 6, s.kv_heads = 6, s.ffn = 768, s.vocab = 32000;
  s.context = 256, s.rope_base = 10000.0f, s.tied = true;
  p.push_back({"stories15m", s});
  s = RandomModelSpec{};
  s.name = "SmolLM2-135M";
  s.dim = 576, s.layers = 30, s.heads = 9, s.kv_heads = 3, s.ffn = 1536, s.vocab = 49152;
  s.context = 8192, s.rope_base = 100000.0f, s.tied = true;
  p.push_back({"smollm2-135m", s});
  s = RandomModelSpec{};
  s.name = "TinyLlama-1.1B";
  s.dim = 2048, s.layers = 22, s.heads = 32, s.kv_heads = 4, s.ffn = 5632, s.vocab = 32000;
  s.context = 2048, s.rope_base = 10000.0f, s.tied = false;
  p.push_back({"tinyllama-1.1b", s});
  s = RandomModelSpec{};
  s.name = "Llama-3.2-1B";
  s.dim = 2048, s.layers = 16, s.heads = 32, s.kv_heads = 8, s.ffn = 8192, s.vocab = 128256;
  s.context = 131072, s.rope_base = 500000.0f, s.tied = true, s.head_dim_keys = true;
  s.llama3_rope = true, s.rope_factor = 32.0f, s.rope_low_freq_factor = 1.0f;
  s.rope_high_freq_factor = 4.0f, s.rope_original_context = 8192;
  p.push_back({"llama-3.2-1b", s});
  s = RandomModelSpec{};
  s.name = "Qwen2.5-0.5B", s.architecture = "qwen2";
  s.dim = 896, s.layers = 24, s.heads = 14, s.kv_heads = 2, s.ffn = 4864, s.vocab = 151936;
  s.context = 32768, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  p.push_back({"qwen2.5-0.5b", s});
  s = RandomModelSpec{};
  s.name = "Qwen3-0.6B", s.architecture = "qwen3";
  s.dim = 1024, s.layers = 28, s.heads = 16, s.kv_heads = 8, s.head_dim = 128, s.ffn = 3072;
  s.vocab = 151936, s.context = 40960, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  p.push_back({"qwen3-0.6b", s});
  s = RandomModelSpec{};
  s.name = "Gemma-3-270M", s.architecture = "gemma3";
  s.dim = 640, s.layers = 18, s.heads = 4, s.kv_heads = 1, s.head_dim = 256, s.ffn = 2048;
  s.vocab = 262144, s.context = 32768, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  s.sliding_window = 512, s.sliding_window_pattern = 6, s.rope_base_swa = 10000.0f;
  p.push_back({"gemma3-270m", s});
  s = RandomModelSpec{};
  s.name = "Phi 3.5 mini", s.architecture = "phi3";
  s.dim = 3072, s.layers = 32, s.heads = 32, s.kv_heads = 32, s.ffn = 8192, s.vocab = 32064;
  s.context = 131072, s.rope_base = 10000.0f, s.rms_eps = 1e-5f, s.tied = false;
  s.rope_original_context = 4096, s.rope_factor = 32.0f;
  p.push_back({"phi3.5-mini", s});
  s = RandomModelSpec{};
  s.name = "SmolLM3-3B", s.architecture = "smollm3";
  s.dim = 2048, s.layers = 36, s.heads = 16, s.kv_heads = 4, s.ffn = 11008, s.vocab = 128256;
  s.context = 65536, s.rope_base = 5000000.0f, s.rms_eps = 1e-6f, s.tied = true;
  p.push_back({"smollm3-3b", s});
  s.name = "SmolLM3 tiny";  // its structure at small width: 8 layers, 2 without RoPE
  s.dim = 64, s.layers = 8, s.heads = 4, s.kv_heads = 2, s.ffn = 128, s.vocab = 512;
  p.push_back({"smollm3-tiny", s});
  s = RandomModelSpec{};
  s.name = "LFM2-1.2B", s.architecture = "lfm2";  // conv layers but 2, 5, 8, 10, 12, 14
  s.dim = 2048, s.layers = 16, s.heads = 32, s.kv_heads = 8, s.ffn = 8192, s.vocab = 65536;
  s.context = 128000, s.rope_base = 1000000.0f, s.rms_eps = 1e-5f, s.tied = true;
  s.shortconv_l_cache = 3, s.attention_layers = {2, 5, 8, 10, 12, 14};
  p.push_back({"lfm2-1.2b", s});
  s.name = "LFM2 tiny";  // its structure at small width: 6 layers, attention on 2 and 5
  s.dim = 64, s.layers = 6, s.heads = 4, s.kv_heads = 2, s.ffn = 128, s.vocab = 512;
  p.push_back({"lfm2-tiny", s});
  // Qwen3.5-0.8B (its config.json: 24 layers, 3 gated delta-net ones per full-attention one,
  // partial M-RoPE on 64 of 256 head dims, sections 11/11/10).
  s = RandomModelSpec{};
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
  s.name = "Gemma-4-E2B", s.architecture = "gemma4";
  s.dim = 1536, s.layers = 35, s.heads = 8, s.kv_heads = 1, s.head_dim = 512, s.ffn = 6144;
  s.head_dim_swa = 256, s.vocab = 262144, s.context = 131072, s.rope_base = 1000000.0f;
  s.rms_eps = 1e-6f, s.tied = true, s.sliding_window = 512, s.sliding_window_pattern = 5;
  s.rope_base_swa = 10000.0f, s.shared_kv_layers = 20, s.per_layer_dim = 256;
  s.double_wide_mlp = true, s.partial_rotary_full = 0.25f, s.final_logit_softcapping = 30.0f;
  p.push_back({"gemma4-e2b", s});
  // Its structure at small width: 10 layers (4 and 9 full), the last 5 sharing layers 3 and 4's
  // caches, a window of 16, no attn_v on the full layers.
  s.name = "Gemma 4 tiny";
  s.dim = 64, s.layers = 10, s.heads = 4, s.kv_heads = 2, s.head_dim = 32, s.head_dim_swa = 16;
  s.ffn = 128, s.vocab = 512, s.context = 256, s.sliding_window = 16, s.shared_kv_layers = 5;
  s.per_layer_dim = 16, s.value_from_key = true;
  p.push_back({"gemma4-tiny", s});
  // Qwen3-30B-A3B (its config.json: 48 layers, 128 experts of 768, 8 per token).
  s = RandomModelSpec{};
  s.name = "Qwen3-30B-A3B", s.architecture = "qwen3moe";
  s.dim = 2048, s.layers = 48, s.heads = 32, s.kv_heads = 4, s.head_dim = 128, s.ffn = 6144;
  s.vocab = 151936, s.context = 40960, s.rope_base = 1000000.0f, s.rms_eps = 1e-6f, s.tied = false;
  s.expert_count = 128, s.expert_used = 8, s.expert_ffn = 768;
  p.push_back({"qwen3-30b-a3b", s});
  s.name = "Qwen3-MoE tiny";  // 4 layers, 8 experts of 32, 2 per token
  s.dim = 64, s.layers = 4, s.heads = 4, s.kv_heads = 2, s.head_dim = 16, s.ffn = 128;
  s.vocab = 512, s.context = 4096, s.expert_count = 8, s.expert_used = 2, s.expert_ffn = 32;
  p.push_back({"qwen3moe-tiny", s});
  // LFM2-8B-A1B (its config.json: 24 layers, attention on 2, 6, 10, 14, 18, 21, the first 2
  // dense, 32 experts of 1792, 4 per token, sigmoid routing with an expert bias).
  s = RandomModelSpec{};
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

// FNV-1a of the name, mixed with the seed: one stream per tensor.
uint64_t StreamSeed(uint64_t seed, const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return (h ^ (seed * 0x9E3779B97F4A7C15ull)) | 1;
}

// `values` as an f32 tensor of `shape`, or, if empty, the seeded random values of tensor `name`:
// vectors 1 + U(-0.25, 0.25) (U(-0.5, 0.5) if `centered`), matrices U(-1, 1) / sqrt(columns).
absl::StatusOr<Tensor> RandomTensor(uint64_t seed, const std::string& name,
                                    const std::vector<int64_t>& shape,
                                    const std::vector<float>& values, bool centered) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, Shape(shape)));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, t.MutableValues<float>());
  if (!values.empty()) {
    std::copy(values.begin(), values.end(), v.begin());
    return t;
  }
  uint64_t state = StreamSeed(seed, name);
  auto next = [&state]() {  // xorshift64*, uniform in [-1, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<float>((state * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
  };
  if (shape.size() == 1) {
    for (float& x : v) x = centered ? 0.5f * next() : 1.0f + 0.25f * next();
  } else {
    const float a = 1.0f / std::sqrt(static_cast<float>(shape.back()));
    for (float& x : v) x = a * next();
  }
  return t;
}

// Metadata in the order convert_hf_to_gguf.py writes it: general.*, set_gguf_parameters(),
// quantization version, then the vocabulary.
void AddMetadata(const RandomModelSpec& s, const arch::ArchInfo& row, int64_t n_vocab, int head_dim,
                 const checkpoint::TensorDict* vocab, checkpoint::TensorDict& d) {
  const std::string& a = s.architecture;
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, Width::kU32); };
  auto f32 = [](double v) { return MetadataValue::Float(v, Width::kF32); };
  d.SetMetadata("general.architecture", MetadataValue::String(a));
  d.SetMetadata("general.type", MetadataValue::String("model"));
  d.SetMetadata("general.name", MetadataValue::String(absl::StrCat(s.name, " (edgeq random)")));
  d.SetMetadata(a + ".block_count", u32(s.layers));
  d.SetMetadata(a + ".context_length", u32(s.context));
  d.SetMetadata(a + ".embedding_length", u32(s.dim));
  d.SetMetadata(a + ".feed_forward_length", u32(s.ffn));
  d.SetMetadata(a + ".attention.head_count", u32(s.heads));
  if (s.shortconv_l_cache > 0) {  // per layer, 0 on the conv layers (as the lfm2 converter)
    std::vector<int64_t> kv(static_cast<size_t>(s.layers), 0);
    for (int l : s.attention_layers) {
      if (l >= 0 && l < s.layers) kv[static_cast<size_t>(l)] = s.kv_heads;
    }
    d.SetMetadata(a + ".attention.head_count_kv", MetadataValue::IntArray(kv, Width::kI32));
  } else {
    d.SetMetadata(a + ".attention.head_count_kv", u32(s.kv_heads));
  }
  d.SetMetadata(a + ".rope.freq_base", f32(s.rope_base));
  d.SetMetadata(a + ".attention.layer_norm_rms_epsilon", f32(s.rms_eps));
  if (s.head_dim_keys || s.head_dim > 0) {
    d.SetMetadata(a + ".attention.key_length", u32(head_dim));
    d.SetMetadata(a + ".attention.value_length", u32(head_dim));
  }
  if (row.hf.sliding_window && s.sliding_window > 0) {
    d.SetMetadata(a + ".attention.sliding_window", u32(s.sliding_window));
    d.SetMetadata(a + ".attention.sliding_window_pattern", u32(s.sliding_window_pattern));
    d.SetMetadata(a + ".rope.freq_base_swa", f32(s.rope_base_swa));
  }
  if (row.hf.long_short_rope) {
    d.SetMetadata(a + ".rope.scaling.original_context_length", u32(s.rope_original_context));
    const double scale = static_cast<double>(s.context) / s.rope_original_context;
    d.SetMetadata(
        a + ".rope.scaling.attn_factor",
        f32(scale <= 1.0 ? 1.0
                         : std::sqrt(1.0 + std::log(scale) / std::log(s.rope_original_context))));
  }
  if (row.arch == arch::Arch::kQwen35) {
    std::vector<int64_t> sections(s.rope_sections.begin(), s.rope_sections.end());
    d.SetMetadata(a + ".rope.dimension_sections",
                  MetadataValue::IntArray(std::move(sections), Width::kI32));
    d.SetMetadata(a + ".ssm.conv_kernel", u32(s.ssm_conv_kernel));
    d.SetMetadata(a + ".ssm.state_size", u32(s.ssm_state));
    d.SetMetadata(a + ".ssm.group_count", u32(s.ssm_key_heads));
    d.SetMetadata(a + ".ssm.time_step_rank", u32(s.ssm_value_heads));
    d.SetMetadata(a + ".ssm.inner_size", u32(s.ssm_value_heads * s.ssm_state));
    d.SetMetadata(a + ".full_attention_interval", u32(s.full_attention_interval));
  }
  d.SetMetadata("general.file_type", u32(0));  // LLAMA_FTYPE_ALL_F32
  d.SetMetadata(a + ".vocab_size", u32(n_vocab));
  d.SetMetadata(a + ".rope.dimension_count", u32(s.rope_dims > 0 ? s.rope_dims : head_dim));
  if (s.shortconv_l_cache > 0) {
    d.SetMetadata(a + ".shortconv.l_cache", u32(s.shortconv_l_cache));
  }
  if (s.expert_count > 0) {  // as the Qwen3MoE / LFM2-MoE converters write them
    d.SetMetadata(a + ".expert_count", u32(s.expert_count));
    d.SetMetadata(a + ".expert_used_count", u32(s.expert_used));
    d.SetMetadata(a + ".expert_feed_forward_length", u32(s.expert_ffn));
    if (row.arch == arch::Arch::kLfm2moe) {
      d.SetMetadata(a + ".leading_dense_block_count", u32(s.leading_dense));
      d.SetMetadata(a + ".expert_gating_func", u32(s.expert_gating));
    }
  }
  d.SetMetadata("general.quantization_version", u32(2));
  if (vocab != nullptr) {
    for (const std::string& key : vocab->MetadataKeys()) {
      if (absl::StartsWith(key, "tokenizer.")) d.SetMetadata(key, **vocab->GetMetadata(key));
    }
  }
}

using AddFn = std::function<absl::Status(const std::string& name, std::vector<int64_t> shape,
                                         std::vector<float> values, bool centered)>;

// A qwen35 layer: full attention (attn_q of query and gate rows per head, q/k norms) on every
// full_attention_interval-th layer, else gated delta-net tensors (ssm_a = -exp(A_log) made up
// in [-1, -0.5], so that every head decays).
absl::Status AddQwen35Layer(const RandomModelSpec& s, int l, int head_dim, const AddFn& add) {
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

// An MoE layer's FFN tensors (prefix p = "blk.N."): the router, the experts as 3-D tensors
// [experts, rows, columns], lfm2moe's selection bias (centered: U(-0.5, 0.5), which changes the
// choice among sigmoid probabilities).
absl::Status AddMoeTensors(const RandomModelSpec& s, const arch::ArchInfo& row,
                           const std::string& p, const AddFn& add) {
  const int64_t e = s.expert_count;
  if (s.expert_used <= 0 || s.expert_used > e || s.expert_ffn <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad experts: %d used of %d, width %d (expected 1 to %d used, a positive width)",
        s.expert_used, e, s.expert_ffn, e));
  }
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate_inp.weight", {e, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate_exps.weight", {e, s.expert_ffn, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up_exps.weight", {e, s.expert_ffn, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down_exps.weight", {e, s.dim, s.expert_ffn}, {}, false));
  if (row.arch == arch::Arch::kLfm2moe) {
    EDGEQ_RETURN_IF_ERROR(add(p + "exp_probs_b.bias", {e}, {}, /*centered=*/true));
  }
  return absl::OkStatus();
}

// A tensor `name` of `shape` holding `values`, or RandomTensor's random ones, added to `d`.
absl::Status AddRandomTensor(uint64_t seed, const std::string& name, std::vector<int64_t> shape,
                             std::vector<float> values, bool centered, checkpoint::TensorDict& d) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, RandomTensor(seed, name, shape, values, centered));
  return d.Set(name, std::move(t));
}

// gemma4's metadata, in the order Gemma4Model (convert_hf_to_gguf.py) writes it.
void AddGemma4Metadata(const RandomModelSpec& s, int64_t n_vocab, int hs_swa,
                       const std::vector<int64_t>& ffn, const std::vector<bool>& swa,
                       const checkpoint::TensorDict* vocab, checkpoint::TensorDict& d) {
  const std::string a = "gemma4.";
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, Width::kU32); };
  auto f32 = [](double v) { return MetadataValue::Float(v, Width::kF32); };
  d.SetMetadata("general.architecture", MetadataValue::String("gemma4"));
  d.SetMetadata("general.type", MetadataValue::String("model"));
  d.SetMetadata("general.name", MetadataValue::String(absl::StrCat(s.name, " (edgeq random)")));
  d.SetMetadata(a + "block_count", u32(s.layers));
  d.SetMetadata(a + "context_length", u32(s.context));
  d.SetMetadata(a + "embedding_length", u32(s.dim));
  d.SetMetadata(a + "feed_forward_length",
                s.double_wide_mlp ? MetadataValue::IntArray(ffn, Width::kU32) : u32(s.ffn));
  d.SetMetadata(a + "attention.head_count", u32(s.heads));
  d.SetMetadata(a + "attention.head_count_kv", u32(s.kv_heads));
  d.SetMetadata(a + "rope.freq_base", f32(s.rope_base));
  d.SetMetadata(a + "attention.layer_norm_rms_epsilon", f32(s.rms_eps));
  d.SetMetadata(a + "attention.sliding_window", u32(s.sliding_window));
  d.SetMetadata(a + "rope.freq_base_swa", f32(s.rope_base_swa));
  d.SetMetadata(a + "final_logit_softcapping", f32(s.final_logit_softcapping));
  d.SetMetadata(a + "attention.shared_kv_layers", u32(s.shared_kv_layers));
  d.SetMetadata(a + "embedding_length_per_layer_input", u32(s.per_layer_dim));
  d.SetMetadata(a + "attention.sliding_window_pattern", MetadataValue::BoolArray(swa));
  d.SetMetadata(a + "attention.key_length", u32(s.head_dim));
  d.SetMetadata(a + "attention.value_length", u32(s.head_dim));
  d.SetMetadata(a + "attention.key_length_swa", u32(hs_swa));
  d.SetMetadata(a + "attention.value_length_swa", u32(hs_swa));
  d.SetMetadata(a + "rope.dimension_count", u32(s.head_dim));
  d.SetMetadata(a + "rope.dimension_count_swa", u32(hs_swa));
  d.SetMetadata("general.file_type", u32(0));  // LLAMA_FTYPE_ALL_F32
  d.SetMetadata(a + "vocab_size", u32(n_vocab));
  d.SetMetadata("general.quantization_version", u32(2));
  if (vocab != nullptr) {
    for (const std::string& key : vocab->MetadataKeys()) {
      if (absl::StartsWith(key, "tokenizer.")) d.SetMetadata(key, **vocab->GetMetadata(key));
    }
  }
}

// One gemma4 layer's tensors (no K/V ones on a shared-KV layer).
absl::Status AddGemma4Layer(const RandomModelSpec& s, int l, int hs, int64_t ffn, bool swa,
                            checkpoint::TensorDict& d) {
  const std::string p = absl::StrCat("blk.", l, ".");
  const bool cached = l < s.layers - s.shared_kv_layers;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) {
    return AddRandomTensor(s.seed, p + name, std::move(shape), {}, false, d);
  };
  EDGEQ_RETURN_IF_ERROR(add("attn_norm.weight", {s.dim}));
  EDGEQ_RETURN_IF_ERROR(add("attn_q.weight", {s.heads * hs, s.dim}));
  if (cached) {
    EDGEQ_RETURN_IF_ERROR(add("attn_k.weight", {s.kv_heads * hs, s.dim}));
    if (swa || !s.value_from_key) {
      EDGEQ_RETURN_IF_ERROR(add("attn_v.weight", {s.kv_heads * hs, s.dim}));
    }
    EDGEQ_RETURN_IF_ERROR(add("attn_k_norm.weight", {hs}));
  }
  EDGEQ_RETURN_IF_ERROR(add("attn_output.weight", {s.dim, s.heads * hs}));
  EDGEQ_RETURN_IF_ERROR(add("attn_q_norm.weight", {hs}));
  EDGEQ_RETURN_IF_ERROR(add("post_attention_norm.weight", {s.dim}));
  EDGEQ_RETURN_IF_ERROR(add("ffn_norm.weight", {s.dim}));
  EDGEQ_RETURN_IF_ERROR(add("ffn_gate.weight", {ffn, s.dim}));
  EDGEQ_RETURN_IF_ERROR(add("ffn_up.weight", {ffn, s.dim}));
  EDGEQ_RETURN_IF_ERROR(add("ffn_down.weight", {s.dim, ffn}));
  EDGEQ_RETURN_IF_ERROR(add("post_ffw_norm.weight", {s.dim}));
  if (s.per_layer_dim > 0) {
    EDGEQ_RETURN_IF_ERROR(add("inp_gate.weight", {s.per_layer_dim, s.dim}));
    EDGEQ_RETURN_IF_ERROR(add("proj.weight", {s.dim, s.per_layer_dim}));
    EDGEQ_RETURN_IF_ERROR(add("post_norm.weight", {s.dim}));
  }
  return add("layer_output_scale.weight", {1});
}

// The gemma4 file llama.cpp's Gemma4Model converter would write for these shapes.
absl::StatusOr<checkpoint::TensorDict> Gemma4RandomModel(const RandomModelSpec& s, int64_t n_vocab,
                                                         const checkpoint::TensorDict* vocab) {
  const int hs_full = s.head_dim > 0 ? s.head_dim : s.dim / s.heads;
  const int hs_swa = s.head_dim_swa > 0 ? s.head_dim_swa : hs_full;
  const int cached = s.layers - s.shared_kv_layers;
  const int n = s.sliding_window_pattern;
  if (s.shared_kv_layers < 0 || s.per_layer_dim < 0 || hs_swa % 2 != 0 || s.sliding_window <= 0 ||
      (s.shared_kv_layers > 0 &&
       (cached < 2 || (cached - 2) % n == n - 1 || (cached - 1) % n != n - 1))) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad gemma4 shape: %d layers, %d shared-KV, pattern %d, window %d, swa head dim %d, "
        "per-layer width %d (the last two cached layers must be sliding-window then full)",
        s.layers, s.shared_kv_layers, n, s.sliding_window, hs_swa, s.per_layer_dim));
  }
  std::vector<bool> swa;
  std::vector<int64_t> ffn;
  for (int l = 0; l < s.layers; ++l) {
    swa.push_back(l % n < n - 1);
    ffn.push_back(s.double_wide_mlp && l >= cached ? 2 * s.ffn : s.ffn);
  }
  checkpoint::TensorDict d;
  // Full layers: pairs beyond partial_rotary_full of the head stay unrotated (factor 1e30).
  const int rotated = static_cast<int>(hs_full * s.partial_rotary_full / 2);
  std::vector<float> factors(hs_full / 2, 1e30f);
  std::fill(factors.begin(), factors.begin() + std::min(rotated, hs_full / 2), 1.0f);
  EDGEQ_RETURN_IF_ERROR(
      AddRandomTensor(s.seed, "rope_freqs.weight", {hs_full / 2}, factors, false, d));
  EDGEQ_RETURN_IF_ERROR(
      AddRandomTensor(s.seed, "token_embd.weight", {n_vocab, s.dim}, {}, false, d));
  if (s.per_layer_dim > 0) {
    const int64_t width = static_cast<int64_t>(s.layers) * s.per_layer_dim;
    EDGEQ_RETURN_IF_ERROR(
        AddRandomTensor(s.seed, "per_layer_token_embd.weight", {n_vocab, width}, {}, false, d));
    EDGEQ_RETURN_IF_ERROR(
        AddRandomTensor(s.seed, "per_layer_model_proj.weight", {width, s.dim}, {}, false, d));
    EDGEQ_RETURN_IF_ERROR(
        AddRandomTensor(s.seed, "per_layer_proj_norm.weight", {s.per_layer_dim}, {}, false, d));
  }
  for (int l = 0; l < s.layers; ++l) {
    EDGEQ_RETURN_IF_ERROR(AddGemma4Layer(s, l, swa[l] ? hs_swa : hs_full, ffn[l], swa[l], d));
  }
  EDGEQ_RETURN_IF_ERROR(AddRandomTensor(s.seed, "output_norm.weight", {s.dim}, {}, false, d));
  if (!s.tied) {
    EDGEQ_RETURN_IF_ERROR(AddRandomTensor(s.seed, "output.weight", {n_vocab, s.dim}, {}, false, d));
  }
  AddGemma4Metadata(s, n_vocab, hs_swa, ffn, swa, vocab, d);
  return d;
}

}  // namespace

std::vector<std::string> RandomModelPresetNames() {
  std::vector<std::string> names;
  for (const Preset& p : Presets()) names.push_back(p.key);
  return names;
}

absl::StatusOr<RandomModelSpec> RandomModelPreset(absl::string_view name) {
  const std::string key = absl::AsciiStrToLower(name);
  for (const Preset& p : Presets()) {
    if (key == p.key) return p.spec;
  }
  return absl::InvalidArgumentError(absl::StrFormat("unknown model shape '%s'; known: %s", name,
                                                    absl::StrJoin(RandomModelPresetNames(), ", ")));
}

absl::StatusOr<checkpoint::TensorDict> SyntheticSpmVocabulary(int vocab_size) {
  if (vocab_size < 259) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "synthetic vocabulary of %d pieces: expected at least 259 (3 special + 256 byte pieces)",
        vocab_size));
  }
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
  std::vector<int64_t> types = {2, 3, 3};  // llama.cpp: unknown, control, control
  for (int b = 0; b < 256; ++b) {
    pieces.push_back(absl::StrFormat("<0x%02X>", b));
    types.push_back(6);  // byte
  }
  const std::string space = "\xE2\x96\x81";  // U+2581, SentencePiece's space
  std::vector<std::string> words = {""};
  while (static_cast<int>(pieces.size()) < vocab_size) {
    std::vector<std::string> longer;
    for (const std::string& w : words) {
      for (char c = 'a'; c <= 'z'; ++c) longer.push_back(w + c);
    }
    for (const std::string& w : longer) {
      for (const std::string& piece : {space + w, w}) {
        if (static_cast<int>(pieces.size()) < vocab_size) {
          pieces.push_back(piece);
          types.push_back(1);
        }
      }
    }
    words = std::move(longer);
  }
  std::vector<double> scores(pieces.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = i < 259 ? 0.0 : -static_cast<double>(i);
  checkpoint::TensorDict d;
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String("llama"));
  d.SetMetadata("tokenizer.ggml.pre", MetadataValue::String("default"));
  d.SetMetadata("tokenizer.ggml.tokens", MetadataValue::StringArray(std::move(pieces)));
  d.SetMetadata("tokenizer.ggml.scores", MetadataValue::FloatArray(std::move(scores), Width::kF32));
  d.SetMetadata("tokenizer.ggml.token_type",
                MetadataValue::IntArray(std::move(types), Width::kI32));
  d.SetMetadata("tokenizer.ggml.bos_token_id", MetadataValue::Int(1, Width::kU32));
  d.SetMetadata("tokenizer.ggml.eos_token_id", MetadataValue::Int(2, Width::kU32));
  d.SetMetadata("tokenizer.ggml.unknown_token_id", MetadataValue::Int(0, Width::kU32));
  d.SetMetadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(true));
  d.SetMetadata("tokenizer.ggml.add_eos_token", MetadataValue::Bool(false));
  return d;
}

std::vector<float> Llama3RopeFactors(const RandomModelSpec& spec, int head_dim) {
  // As convert_hf_to_gguf.py's LlamaModel.generate_extra_tensors (float32 frequencies).
  std::vector<float> factors;
  const float low_wavelen = spec.rope_original_context / spec.rope_low_freq_factor;
  const float high_wavelen = spec.rope_original_context / spec.rope_high_freq_factor;
  for (int i = 0; i < head_dim; i += 2) {
    const float freq = 1.0f / std::pow(spec.rope_base, static_cast<float>(i) / head_dim);
    const float wavelen = 2.0f * static_cast<float>(M_PI) / freq;
    if (wavelen < high_wavelen) {
      factors.push_back(1.0f);
    } else if (wavelen > low_wavelen) {
      factors.push_back(spec.rope_factor);
    } else {
      const float smooth = (spec.rope_original_context / wavelen - spec.rope_low_freq_factor) /
                           (spec.rope_high_freq_factor - spec.rope_low_freq_factor);
      factors.push_back(1.0f / ((1.0f - smooth) / spec.rope_factor + smooth));
    }
  }
  return factors;
}

absl::StatusOr<checkpoint::TensorDict> RandomModel(const RandomModelSpec& s,
                                                   const checkpoint::TensorDict* vocab) {
  int64_t n_vocab = s.vocab;
  if (vocab != nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(const MetadataValue* tokens,
                           vocab->GetMetadata("tokenizer.ggml.tokens"));
    if (tokens->kind() != MetadataValue::Kind::kString || !tokens->is_array()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "vocabulary: tokenizer.ggml.tokens is %s, expected a string array", tokens->TypeName()));
    }
    n_vocab = static_cast<int64_t>(tokens->size());
  }
  if (s.dim <= 0 || s.layers <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.ffn <= 0 ||
      n_vocab <= 0 || s.context <= 0 || (s.head_dim == 0 && s.dim % s.heads != 0) ||
      s.heads % s.kv_heads != 0 || s.head_dim < 0 ||
      (s.head_dim > 0 ? s.head_dim : s.dim / s.heads) % 2 != 0 || !(s.rope_base > 0) ||
      !(s.rms_eps > 0) || s.sliding_window < 0 || s.sliding_window_pattern <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad shape: dim %d, layers %d, heads %d, kv heads %d, ffn %d, vocab %d, context %d, rope "
        "base %g, rms eps %g, head dim %d (all positive, an even head dimension, dim a multiple "
        "of heads unless the head dimension is given, heads a multiple of kv heads)",
        s.dim, s.layers, s.heads, s.kv_heads, s.ffn, n_vocab, s.context, s.rope_base, s.rms_eps,
        s.head_dim));
  }
  const std::string& a = s.architecture;
  // The layout of the architecture's row (llm/arch/arch_table.h); another name: llama's.
  const arch::ArchInfo* found = arch::FindByGgufName(a);
  const arch::ArchInfo& row = found != nullptr ? *found : arch::Info(arch::Arch::kLlama);
  const bool fused_ffn = row.ffn == arch::FfnLayout::kFusedGateUp;
  const bool fused_qkv = row.qkv == arch::QkvLayout::kFused;
  const bool post_norms = row.norms == arch::NormPlacement::kPreAndPost;
  const int head_dim = s.head_dim > 0 ? s.head_dim : s.dim / s.heads;
  const int q_dim = head_dim * s.heads, kv_dim = head_dim * s.kv_heads;
  if (row.arch == arch::Arch::kGemma4) return Gemma4RandomModel(s, n_vocab, vocab);
  checkpoint::TensorDict d;
  auto add = [&](const std::string& name, std::vector<int64_t> shape,
                 std::vector<float> values = {}, bool centered = false) -> absl::Status {
    return AddRandomTensor(s.seed, name, std::move(shape), std::move(values), centered, d);
  };
  if (s.llama3_rope) {
    EDGEQ_RETURN_IF_ERROR(add("rope_freqs.weight", {head_dim / 2}, Llama3RopeFactors(s, head_dim)));
  }
  if (row.hf.long_short_rope) {
    std::vector<float> long_f, short_f;
    for (int i = 0; i < head_dim / 2; ++i) {
      const float r = static_cast<float>(i) / static_cast<float>(head_dim / 2);
      short_f.push_back(1.0f + 0.1f * r * r);
      long_f.push_back(1.0f + (s.rope_factor - 1.0f) * r * r);
    }
    EDGEQ_RETURN_IF_ERROR(add("rope_factors_long.weight", {head_dim / 2}, long_f));
    EDGEQ_RETURN_IF_ERROR(add("rope_factors_short.weight", {head_dim / 2}, short_f));
  }
  EDGEQ_RETURN_IF_ERROR(add("token_embd.weight", {n_vocab, s.dim}));
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    if (row.arch == arch::Arch::kQwen35) {
      EDGEQ_RETURN_IF_ERROR(AddQwen35Layer(s, l, head_dim, add));
      continue;
    }
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_norm.weight", {s.dim}));
    if (s.expert_count > 0 && l >= s.leading_dense) {
      EDGEQ_RETURN_IF_ERROR(AddMoeTensors(s, row, p, add));
    } else if (fused_ffn) {
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down.weight", {s.dim, s.ffn}));
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up.weight", {2 * s.ffn, s.dim}));
    } else {
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down.weight", {s.dim, s.ffn}));
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate.weight", {s.ffn, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up.weight", {s.ffn, s.dim}));
    }
    EDGEQ_RETURN_IF_ERROR(add(p + "ffn_norm.weight", {s.dim}));
    if (post_norms) {
      EDGEQ_RETURN_IF_ERROR(add(p + "post_attention_norm.weight", {s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "post_ffw_norm.weight", {s.dim}));
    }
    const bool conv = s.shortconv_l_cache > 0 &&
                      std::find(s.attention_layers.begin(), s.attention_layers.end(), l) ==
                          s.attention_layers.end();
    if (conv) {  // lfm2's short-convolution layer
      EDGEQ_RETURN_IF_ERROR(add(p + "shortconv.conv.weight", {s.dim, s.shortconv_l_cache}));
      EDGEQ_RETURN_IF_ERROR(add(p + "shortconv.in_proj.weight", {3 * s.dim, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "shortconv.out_proj.weight", {s.dim, s.dim}));
      continue;
    }
    // The converter's order (Hugging Face names sorted: k, o, q, v).
    if (fused_qkv) {
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_output.weight", {s.dim, q_dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_qkv.weight", {q_dim + 2 * kv_dim, s.dim}));
    } else {
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_k.weight", {kv_dim, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_output.weight", {s.dim, q_dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_q.weight", {q_dim, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_v.weight", {kv_dim, s.dim}));
    }
    if (row.qkv_bias) {  // biases ~ U(-0.5, 0.5) (the vector default is 1 + U(-0.25, 0.25))
      for (const auto& [name, n] : {std::pair<const char*, int>{"attn_q.bias", q_dim},
                                    {"attn_k.bias", kv_dim},
                                    {"attn_v.bias", kv_dim}}) {
        EDGEQ_RETURN_IF_ERROR(add(p + name, {n}, {}, /*centered=*/true));
      }
    }
    if (row.qk_norm) {
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_k_norm.weight", {head_dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_q_norm.weight", {head_dim}));
    }
  }
  EDGEQ_RETURN_IF_ERROR(
      add(s.shortconv_l_cache > 0 ? "token_embd_norm.weight" : "output_norm.weight", {s.dim}));
  if (!s.tied) EDGEQ_RETURN_IF_ERROR(add("output.weight", {n_vocab, s.dim}));

  AddMetadata(s, row, n_vocab, head_dim, vocab, d);
  return d;
}

}  // namespace llm
}  // namespace edgeq
