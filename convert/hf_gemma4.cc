// gemma4 (Gemma4ForCausalLM) as llama.cpp's converter reads it (Gemma4Model over Gemma3Model in
// conversion/gemma.py at d32676d7): the per-layer attention keys of config.json, the shapes
// they give each layer's tensors, the per-layer-embedding tensors and the full layers' RoPE
// frequency factors.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "convert/hf_layers.h"
#include "core/status_macros.h"

namespace edgeq {
namespace convert {
namespace internal {
namespace {

using json = nlohmann::json;

// layer_types: one "sliding_attention" or "full_attention" per layer.
absl::StatusOr<std::vector<bool>> ReadSlidingLayers(const Config& c, int64_t layers) {
  const std::string expected =
      absl::StrCat("a list of num_hidden_layers (", layers,
                   ") strings \"sliding_attention\" or \"full_attention\"");
  if (!c.Has("layer_types")) return c.Missing("layer_types", expected);
  const json& v = c.raw()["layer_types"];
  if (!v.is_array() || static_cast<int64_t>(v.size()) != layers) {
    return c.Bad("layer_types", expected);
  }
  std::vector<bool> sliding;
  for (const json& t : v) {
    if (t != json("sliding_attention") && t != json("full_attention")) {
      return c.Bad("layer_types", expected);
    }
    sliding.push_back(t == json("sliding_attention"));
  }
  return sliding;
}

// rope_parameters' entry `kind` ("full_attention", "sliding_attention"): an object, or null if
// absent (required: an error naming it).
absl::StatusOr<const json*> RopeEntry(const Config& c, const char* kind, bool required) {
  const char* key = "rope_parameters";
  const std::string expected =
      "an object with \"full_attention\" {rope_type \"proportional\", partial_rotary_factor, "
      "rope_theta} and \"sliding_attention\" {rope_theta}";
  if (!c.Has(key)) {
    if (!required) return nullptr;
    return c.Missing(key, expected);
  }
  const json& rp = c.raw()[key];
  if (!rp.is_object()) return c.Bad(key, expected);
  if (!rp.contains(kind) || rp[kind].is_null()) {
    if (!required) return nullptr;
    return absl::InvalidArgumentError(absl::StrFormat("%s: missing key \"%s\".\"%s\" (expected %s)",
                                                      c.path(), key, kind, expected));
  }
  if (!rp[kind].is_object()) return c.Bad(key, expected);
  return &rp[kind];
}

// A number in (0, 1] at `entry[key]` (fallback when absent), named `where` in errors.
absl::StatusOr<double> Factor(const Config& c, const json* entry, const char* key,
                              const std::string& where, double fallback) {
  if (entry == nullptr || !entry->contains(key)) return fallback;
  const json& v = (*entry)[key];
  const double f = v.is_number() ? v.get<double>() : -1;
  if (!(f > 0 && f <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: key %s is %s, expected a number in (0, 1]", c.path(), where,
                        checkpoint::internal::JsonForError(v)));
  }
  return f;
}

// The full layers' proportional RoPE (rope_parameters.full_attention), the sliding layers' base
// and rotated width.
absl::Status ReadRope(const Config& c, PerLayerAttention& pl) {
  EDGEQ_ASSIGN_OR_RETURN(const json* full, RopeEntry(c, "full_attention", true));
  if (!full->contains("rope_type") || (*full)["rope_type"] != json("proportional")) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: key \"rope_parameters\".\"full_attention\".\"rope_type\" is %s, expected "
        "\"proportional\" (Gemma 4's full layers)",
        c.path(),
        full->contains("rope_type") ? checkpoint::internal::JsonForError((*full)["rope_type"])
                                    : std::string("absent")));
  }
  if (!full->contains("partial_rotary_factor")) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: missing key \"rope_parameters\".\"full_attention\".\"partial_rotary_factor\" "
        "(expected a number in (0, 1])",
        c.path()));
  }
  EDGEQ_ASSIGN_OR_RETURN(
      const double full_factor,
      Factor(c, full, "partial_rotary_factor",
             "\"rope_parameters\".\"full_attention\".\"partial_rotary_factor\"", 1.0));
  pl.rotated_pairs =
      static_cast<int64_t>(std::floor(static_cast<double>(pl.head_dim_full) * full_factor / 2));
  EDGEQ_ASSIGN_OR_RETURN(const json* swa, RopeEntry(c, "sliding_attention", false));
  if (swa != nullptr && swa->contains("rope_theta")) {
    const json& t = (*swa)["rope_theta"];
    if (!t.is_number() || !(t.get<double>() > 0) || !(t.get<double>() <= 3.4e38)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: key \"rope_parameters\".\"sliding_attention\".\"rope_theta\" is %s, expected a "
          "positive number (a finite float)",
          c.path(), checkpoint::internal::JsonForError(t)));
    }
    pl.has_theta_swa = true;
    pl.theta_swa = t.get<double>();
  }
  // The converter reads partial_rotary_factor of rope_parameters itself (1 when absent, as it
  // is beside the per-kind entries) for the sliding layers.
  const json& rp = c.raw()["rope_parameters"];
  EDGEQ_ASSIGN_OR_RETURN(const double swa_factor,
                         Factor(c, &rp, "partial_rotary_factor",
                                "\"rope_parameters\".\"partial_rotary_factor\"", 1.0));
  pl.rope_dims_swa =
      static_cast<int64_t>(std::floor(static_cast<double>(pl.head_dim_swa) * swa_factor));
  return absl::OkStatus();
}

// Experts (Gemma 4 26B-A4B) are refused: edgeq runs the dense Gemma 4 layers; so is
// attn_logit_softcapping (Gemma3Model asserts there is none).
absl::Status RefuseExperts(const Config& c) {
  if (c.Has("attn_logit_softcapping")) {
    return c.Bad("attn_logit_softcapping", "absent or null (Gemma 3 and 4 cap only the logits)");
  }
  EDGEQ_ASSIGN_OR_RETURN(const bool moe, c.Bool("enable_moe_block", false));
  if (moe) {
    return c.Bad("enable_moe_block",
                 "false (edgeq runs the dense Gemma 4 layers, not the 26B-A4B experts)");
  }
  for (const char* key : {"num_experts", "num_local_experts"}) {
    if (c.Has(key) && c.raw()[key] != json(0)) {
      return c.Bad(key, "absent or 0 (edgeq runs the dense Gemma 4 layers)");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadPerLayerAttention(const Config& c, int64_t layers, int64_t vocab,
                                   HfLayout& layout) {
  PerLayerAttention& pl = layout.per_layer;
  EDGEQ_RETURN_IF_ERROR(RefuseExperts(c));
  EDGEQ_ASSIGN_OR_RETURN(pl.sliding, ReadSlidingLayers(c, layers));
  EDGEQ_ASSIGN_OR_RETURN(pl.head_dim_swa, c.PositiveInt("head_dim", kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(pl.head_dim_full, c.PositiveInt("global_head_dim", kMaxHeads));
  if (pl.head_dim_full % 2 != 0) return c.Bad("global_head_dim", "an even head dimension");
  EDGEQ_ASSIGN_OR_RETURN(const int64_t heads, c.PositiveInt("num_attention_heads", kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(pl.kv_heads_swa,
                         c.OptionalPositiveInt("num_key_value_heads", heads, kMaxHeads));
  pl.kv_array = c.Has("num_global_key_value_heads");
  EDGEQ_ASSIGN_OR_RETURN(pl.kv_heads_full, c.OptionalPositiveInt("num_global_key_value_heads",
                                                                 pl.kv_heads_swa, kMaxHeads));
  if (heads % pl.kv_heads_full != 0) {
    return c.Bad("num_global_key_value_heads",
                 absl::StrCat("a divisor of num_attention_heads ", heads));
  }
  EDGEQ_ASSIGN_OR_RETURN(pl.shared_kv, c.NonNegativeInt("num_kv_shared_layers", layers));
  if (c.Has("hidden_size_per_layer_input") &&
      c.raw()["hidden_size_per_layer_input"] != json(0)) {  // "or 0": null and 0 are none
    EDGEQ_ASSIGN_OR_RETURN(pl.per_layer_dim,
                           c.PositiveInt("hidden_size_per_layer_input", kMaxWidth));
  }
  EDGEQ_ASSIGN_OR_RETURN(pl.per_layer_vocab,
                         c.OptionalPositiveInt("vocab_size_per_layer_input", vocab, kMaxVocab));
  EDGEQ_ASSIGN_OR_RETURN(pl.double_wide, c.Bool("use_double_wide_mlp", false));
  EDGEQ_ASSIGN_OR_RETURN(pl.k_eq_v, c.Bool("attention_k_eq_v", false));
  EDGEQ_ASSIGN_OR_RETURN(pl.ffn, c.PositiveInt("intermediate_size", kMaxWidth / 2));
  // Gemma3Model: sliding_window unless sliding_window_pattern is 1.
  if (!(c.Has("sliding_window_pattern") && c.raw()["sliding_window_pattern"] == json(1))) {
    EDGEQ_ASSIGN_OR_RETURN(pl.window, c.PositiveInt("sliding_window"));
  }
  if (c.Has("final_logit_softcapping") && c.raw()["final_logit_softcapping"] != json(0)) {
    EDGEQ_ASSIGN_OR_RETURN(pl.softcap, c.PositiveFloat("final_logit_softcapping"));
  }
  return ReadRope(c, pl);
}

std::optional<std::vector<int64_t>> PerLayerAttentionShape(const PerLayerAttention& pl,
                                                           int64_t heads, int64_t dim,
                                                           absl::string_view g) {
  const int64_t width = static_cast<int64_t>(pl.sliding.size()) * pl.per_layer_dim;
  if (g == "per_layer_token_embd.weight") return std::vector<int64_t>{pl.per_layer_vocab, width};
  if (g == "per_layer_model_proj.weight") return std::vector<int64_t>{width, dim};
  if (g == "per_layer_proj_norm.weight") return std::vector<int64_t>{pl.per_layer_dim};
  if (g.substr(0, 4) != "blk.") return std::nullopt;
  const size_t dot = g.find('.', 4);
  const std::optional<int64_t> layer = ParseDecimalInt64(g.substr(4, dot - 4));
  if (!layer.has_value() || *layer < 0 || *layer >= static_cast<int64_t>(pl.sliding.size())) {
    return std::nullopt;  // beyond num_hidden_layers: refused by name later
  }
  const absl::string_view tail = g.substr(dot + 1);
  const int64_t hs = pl.HeadDim(*layer), kv = pl.KvHeads(*layer), ffn = pl.Ffn(*layer);
  using V = std::vector<int64_t>;
  if (tail == "attn_q.weight") return V{heads * hs, dim};
  if (tail == "attn_k.weight" || tail == "attn_v.weight") return V{kv * hs, dim};
  if (tail == "attn_output.weight") return V{dim, heads * hs};
  if (tail == "attn_q_norm.weight" || tail == "attn_k_norm.weight") return V{hs};
  if (tail == "ffn_gate.weight" || tail == "ffn_up.weight") return V{ffn, dim};
  if (tail == "ffn_down.weight") return V{dim, ffn};
  if (tail == "inp_gate.weight") return V{pl.per_layer_dim, dim};
  if (tail == "proj.weight") return V{dim, pl.per_layer_dim};
  if (tail == "layer_output_scale.weight") return V{1};
  return std::nullopt;
}

std::string PerLayerEmbeddingName(absl::string_view hf) {
  if (hf == "model.embed_tokens_per_layer.weight") return "per_layer_token_embd.weight";
  if (hf == "model.per_layer_model_projection.weight") return "per_layer_model_proj.weight";
  if (hf == "model.per_layer_projection_norm.weight") return "per_layer_proj_norm.weight";
  return "";
}

absl::StatusOr<Tensor> PerLayerRopeFreqs(const PerLayerAttention& pl) {
  const int64_t pairs = pl.head_dim_full / 2;
  std::vector<float> f(static_cast<size_t>(pairs), 1e30f);
  for (int64_t i = 0; i < pl.rotated_pairs && i < pairs; ++i) f[static_cast<size_t>(i)] = 1.0f;
  return Tensor::FromValues<float>(Shape{pairs}, f);
}

void AddPerLayerAttentionKeys(const std::string& a, const PerLayerAttention& pl,
                              checkpoint::TensorDict& d) {
  using checkpoint::MetadataValue;
  using W = MetadataValue::Width;
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, W::kU32); };
  if (pl.softcap > 0) {
    d.SetMetadata(a + ".final_logit_softcapping", MetadataValue::Float(pl.softcap, W::kF32));
  }
  if (pl.window > 0) d.SetMetadata(a + ".attention.sliding_window", u32(pl.window));
  d.SetMetadata(a + ".attention.shared_kv_layers", u32(pl.shared_kv));
  d.SetMetadata(a + ".embedding_length_per_layer_input", u32(pl.per_layer_dim));
  d.SetMetadata(a + ".attention.sliding_window_pattern", MetadataValue::BoolArray(pl.sliding));
  d.SetMetadata(a + ".attention.key_length", u32(pl.head_dim_full));
  d.SetMetadata(a + ".attention.value_length", u32(pl.head_dim_full));
  d.SetMetadata(a + ".attention.key_length_swa", u32(pl.head_dim_swa));
  d.SetMetadata(a + ".attention.value_length_swa", u32(pl.head_dim_swa));
  const int64_t layers = static_cast<int64_t>(pl.sliding.size());
  if (pl.double_wide) {  // a Python list: GGUF INT32 elements
    std::vector<int64_t> ffn;
    for (int64_t l = 0; l < layers; ++l) ffn.push_back(pl.Ffn(l));
    d.SetMetadata(a + ".feed_forward_length", MetadataValue::IntArray(ffn, W::kI32));
  }
  if (pl.kv_array) {
    std::vector<int64_t> kv;
    for (int64_t l = 0; l < layers; ++l) kv.push_back(pl.KvHeads(l));
    d.SetMetadata(a + ".attention.head_count_kv", MetadataValue::IntArray(kv, W::kI32));
  }
  d.SetMetadata(a + ".rope.dimension_count", u32(pl.head_dim_full));
  d.SetMetadata(a + ".rope.dimension_count_swa", u32(pl.rope_dims_swa));
}

}  // namespace internal
}  // namespace convert
}  // namespace edgeq
