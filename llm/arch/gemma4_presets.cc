// Random-model presets of gemma4 (llm/random_model.h) and its whole file, which shares little
// with the common layouts: per-layer sliding-window flags and head sizes, shared-KV layers
// without K/V tensors, per-layer embeddings, a double-wide FFN on the shared layers and
// rope_freqs for the full layers' partial rotation, as llama.cpp's Gemma4Model converter writes
// them.
#include <algorithm>
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

std::vector<NamedPreset<RandomModelSpec>> Gemma4Presets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  RandomModelSpec s;
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
  return p;
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
  AddTokenizerKeys(vocab, d);
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

[[maybe_unused]] const bool kRegistered = RegisterRandomArchitecture(
    {.gguf_name = "gemma4", .presets = Gemma4Presets, .model = Gemma4RandomModel});

}  // namespace
}  // namespace llm
}  // namespace edgeq
