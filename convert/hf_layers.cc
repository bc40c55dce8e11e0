#include "convert/hf_layers.h"

#include <cmath>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"

namespace edgeq {
namespace convert {
namespace internal {
namespace {

namespace arch = llm::arch;
using json = nlohmann::json;

constexpr int64_t kMaxExperts = 1 << 16;
constexpr int64_t kMaxConvTaps = 1 << 16;

bool RowMaps(const arch::ArchInfo& row, absl::string_view gguf) {
  for (size_t i = 0; i < row.hf_tensor_count; ++i) {
    if (gguf == row.hf_tensors[i].gguf) return true;
  }
  return false;
}

// layer_types (["conv", "full_attention", ...]: lfm2's converter counts every entry but "conv"
// as attention, lfm2moe's only "full_attention"; other values are refused here), else
// full_attn_idxs (the attention layers' indices, from which transformers' Lfm2Config derives
// layer_types).
absl::StatusOr<std::vector<bool>> ReadLayerTypes(const Config& c, int64_t layers) {
  std::vector<bool> attention(static_cast<size_t>(layers), false);
  const json& raw = c.raw();
  if (c.Has("layer_types")) {
    const json& v = raw["layer_types"];
    const std::string expected = absl::StrCat("a list of num_hidden_layers (", layers,
                                              ") strings \"conv\" or \"full_attention\"");
    if (!v.is_array() || static_cast<int64_t>(v.size()) != layers)
      return c.Bad("layer_types", expected);
    for (int64_t l = 0; l < layers; ++l) {
      const json& t = v[static_cast<size_t>(l)];
      if (t != json("conv") && t != json("full_attention")) return c.Bad("layer_types", expected);
      attention[static_cast<size_t>(l)] = t == json("full_attention");
    }
    return attention;
  }
  if (!c.Has("full_attn_idxs")) {
    return c.Missing("layer_types", absl::StrCat("a list of num_hidden_layers (", layers,
                                                 ") strings \"conv\" or \"full_attention\", or "
                                                 "full_attn_idxs"));
  }
  const json& v = raw["full_attn_idxs"];
  const std::string expected = absl::StrCat("a list of distinct layer indices in 0..", layers - 1);
  if (!v.is_array() || static_cast<int64_t>(v.size()) > layers) {
    return c.Bad("full_attn_idxs", expected);
  }
  for (const json& i : v) {
    if (!i.is_number_integer() || i.get<int64_t>() < 0 || i.get<int64_t>() >= layers ||
        attention[static_cast<size_t>(i.get<int64_t>())]) {
      return c.Bad("full_attn_idxs", expected);
    }
    attention[static_cast<size_t>(i.get<int64_t>())] = true;
  }
  return attention;
}

absl::Status ReadExperts(const Config& c, const arch::ArchInfo& row, int64_t layers,
                         HfLayout& out) {
  EDGEQ_ASSIGN_OR_RETURN(out.experts, c.PositiveInt("num_experts", kMaxExperts));
  EDGEQ_ASSIGN_OR_RETURN(out.experts_used, c.PositiveInt("num_experts_per_tok", out.experts));
  EDGEQ_ASSIGN_OR_RETURN(out.expert_ffn, c.PositiveInt("moe_intermediate_size", kMaxWidth));
  if (row.hf.dense_layers_key != nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(out.leading_dense, c.NonNegativeInt(row.hf.dense_layers_key, layers));
    return absl::OkStatus();
  }
  out.leading_dense = 0;
  // Qwen3-MoE: llama.cpp's qwen3moe has experts on every layer, as with these defaults.
  const json& raw = c.raw();
  if (c.Has("mlp_only_layers") &&
      !(raw["mlp_only_layers"].is_array() && raw["mlp_only_layers"].empty())) {
    return c.Bad("mlp_only_layers", "[] (llama.cpp's qwen3moe has experts on every layer)");
  }
  if (c.Has("decoder_sparse_step") && raw["decoder_sparse_step"] != json(1)) {
    return c.Bad("decoder_sparse_step", "1 (llama.cpp's qwen3moe has experts on every layer)");
  }
  return absl::OkStatus();
}

}  // namespace

bool IsHybrid(const arch::ArchInfo& row) { return RowMaps(row, "shortconv.conv.weight"); }
bool IsMoe(const arch::ArchInfo& row) { return RowMaps(row, "ffn_gate_exps.weight"); }
bool IsLinearAttention(const arch::ArchInfo& row) { return RowMaps(row, "ssm_a"); }
bool IsPerLayerAttention(const arch::ArchInfo& row) {
  return RowMaps(row, "layer_output_scale.weight");
}

absl::StatusOr<int64_t> ReadFeedForwardLength(const Config& c, const arch::ArchInfo& row) {
  if (!row.hf.block_ff_dim) return c.PositiveInt("intermediate_size", kMaxWidth);
  // LFM2Model._add_feed_forward_length.
  const char* key = c.Has("block_ff_dim") ? "block_ff_dim" : "intermediate_size";
  EDGEQ_ASSIGN_OR_RETURN(int64_t ff, c.PositiveInt(key, kMaxWidth));
  if (!c.Has("block_auto_adjust_ff_dim")) {
    return c.Missing("block_auto_adjust_ff_dim", "true or false");
  }
  EDGEQ_ASSIGN_OR_RETURN(const bool adjust, c.Bool("block_auto_adjust_ff_dim", false));
  if (!adjust) return ff;
  ff = 2 * ff / 3;
  if (c.Has("block_ffn_dim_multiplier")) {
    EDGEQ_ASSIGN_OR_RETURN(const double mult, c.PositiveFloat("block_ffn_dim_multiplier"));
    const double scaled = std::floor(mult * static_cast<double>(ff));
    if (!(scaled >= 1 && scaled <= kMaxWidth)) {
      return c.Bad("block_ffn_dim_multiplier",
                   absl::StrCat("a factor giving a width in 1..", kMaxWidth, " from ", ff));
    }
    ff = static_cast<int64_t>(scaled);
  }
  EDGEQ_ASSIGN_OR_RETURN(const int64_t multiple, c.PositiveInt("block_multiple_of", kMaxWidth));
  ff = multiple * ((ff + multiple - 1) / multiple);
  if (ff > kMaxWidth) {
    return c.Bad(key, absl::StrCat("a width giving at most ", kMaxWidth, " after auto-adjust"));
  }
  return ff;
}

absl::StatusOr<double> ReadRmsEps(const Config& c, const arch::ArchInfo& row) {
  const char* key = row.hf.eps_key;
  if (!c.Has(key) && row.hf.eps_fallback_key != nullptr) key = row.hf.eps_fallback_key;
  if (!c.Has(key) && row.hf.default_rms_eps > 0) return row.hf.default_rms_eps;
  return c.PositiveFloat(key);
}

absl::StatusOr<HfLayout> ReadLayout(const Config& c, const arch::ArchInfo& row, int64_t layers,
                                    int64_t head_dim) {
  HfLayout out;
  if (IsLinearAttention(row)) EDGEQ_RETURN_IF_ERROR(ReadLinearAttention(c, layers, head_dim, out));
  if (IsPerLayerAttention(row)) {
    EDGEQ_ASSIGN_OR_RETURN(const int64_t vocab, c.PositiveInt("vocab_size", kMaxVocab));
    EDGEQ_RETURN_IF_ERROR(ReadPerLayerAttention(c, layers, vocab, out));
  }
  if (IsHybrid(row)) {
    EDGEQ_ASSIGN_OR_RETURN(out.attention, ReadLayerTypes(c, layers));
    EDGEQ_ASSIGN_OR_RETURN(out.conv_l_cache, c.PositiveInt("conv_L_cache", kMaxConvTaps));
  }
  if (IsMoe(row)) EDGEQ_RETURN_IF_ERROR(ReadExperts(c, row, layers, out));
  return out;
}

bool LayerNeedsTensor(const HfLayout& layout, int64_t layer, absl::string_view tail) {
  if (!LayerHasTensor(layout, layer, tail)) return false;
  const PerLayerAttention& pl = layout.per_layer;
  if (!pl.active()) return true;
  if (tail == "layer_output_scale.weight") return false;
  if (tail == "attn_k.weight" || tail == "attn_k_norm.weight") return !pl.Shared(layer);
  if (tail == "attn_v.weight") {
    return !pl.Shared(layer) && (pl.sliding[static_cast<size_t>(layer)] || !pl.k_eq_v);
  }
  return true;
}

bool LayerHasTensor(const HfLayout& layout, int64_t layer, absl::string_view tail) {
  if (absl::StartsWith(tail, "shortconv.")) return !layout.IsAttention(layer);
  if (layout.per_layer.active() &&
      (tail == "inp_gate.weight" || tail == "proj.weight" || tail == "post_norm.weight")) {
    return layout.per_layer.per_layer_dim > 0;
  }
  if (layout.linear_attention() && LinearAttentionShape(layout.linear, 1, tail).has_value()) {
    return !layout.IsAttention(layer);
  }
  static const char* const kAttention[] = {"attn_q.weight",      "attn_k.weight",
                                           "attn_v.weight",      "attn_output.weight",
                                           "attn_q_norm.weight", "attn_k_norm.weight"};
  for (const char* a : kAttention) {
    if (tail == a) return layout.IsAttention(layer);
  }
  if (tail == "ffn_gate.weight" || tail == "ffn_up.weight" || tail == "ffn_down.weight") {
    return !layout.IsMoe(layer);
  }
  if (absl::StartsWith(tail, "ffn_gate_inp.") || absl::EndsWith(tail, "_exps.weight") ||
      absl::StartsWith(tail, "exp_probs_b.")) {
    return layout.IsMoe(layer);
  }
  return true;
}

absl::StatusOr<std::optional<ExpertPart>> MatchExpertTensor(const arch::ArchInfo& row,
                                                            const std::string& hf,
                                                            int64_t experts) {
  const std::string prefix = "model.layers.";
  if (!absl::StartsWith(hf, prefix)) return std::nullopt;
  const size_t dot = hf.find('.', prefix.size());
  if (dot == std::string::npos) return std::nullopt;
  const std::string tail = hf.substr(dot + 1);
  for (size_t i = 0; i < row.hf_tensor_count; ++i) {
    const absl::string_view pattern = row.hf_tensors[i].hf;
    const size_t star = pattern.find('*');
    if (star == absl::string_view::npos || tail.size() <= pattern.size() - 1 ||
        !absl::StartsWith(tail, pattern.substr(0, star)) ||
        !absl::EndsWith(tail, pattern.substr(star + 1))) {
      continue;
    }
    const std::string index = tail.substr(star, tail.size() - (pattern.size() - 1));
    const std::optional<int64_t> layer =
        ParseDecimalInt64(hf.substr(prefix.size(), dot - prefix.size()));
    const std::optional<int64_t> expert = ParseDecimalInt64(index);
    if (!layer.has_value() || *layer < 0 || *layer >= kMaxLayers || !expert.has_value() ||
        *expert < 0 || *expert >= experts) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s: expected decimal layer and expert indices (experts 0..%d, num_experts in "
          "config.json)",
          QuoteForError(hf, 128), experts - 1));
    }
    return ExpertPart{*layer, *expert, absl::StrCat("blk.", *layer, ".", row.hf_tensors[i].gguf)};
  }
  return std::nullopt;
}

namespace {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  float v;
  if (exp == 0) {
    v = std::ldexp(static_cast<float>(mant), -24);
  } else if (exp == 31) {
    v = mant ? NAN : INFINITY;
  } else {
    v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  }
  return sign ? -v : v;
}

}  // namespace

absl::StatusOr<Tensor> ToF32(const std::string& name, const Tensor& t, float add) {
  const int64_t n = t.logical_shape().num_elements();
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kFloat32, t.logical_shape()));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, out.MutableValues<float>());
  const absl::Span<const uint8_t> bytes = t.bytes();
  if (t.encoding().empty() && t.dtype() == DType::kFloat32 && bytes.size() == 4 * size_t(n)) {
    std::memcpy(v.data(), bytes.data(), bytes.size());
  } else if (t.encoding().empty() && t.dtype() == DType::kFloat16 &&
             bytes.size() == 2 * size_t(n)) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      v[i] = HalfToFloat(h);
    }
  } else if (t.encoding() == "bf16" && bytes.size() == 2 * size_t(n)) {
    for (int64_t i = 0; i < n; ++i) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      const uint32_t bits = uint32_t{h} << 16;
      std::memcpy(&v[i], &bits, 4);
    }
  } else {
    return absl::UnimplementedError(absl::StrFormat("tensor %s is %s; expected f32, f16 or bf16",
                                                    QuoteForError(name, 128), t.DebugString()));
  }
  if (add != 0.0f) {
    for (float& x : v) x += add;
  }
  return out;
}

absl::StatusOr<Tensor> WithLogicalShape(const Tensor& t, const std::vector<int64_t>& dims) {
  if (t.encoding().empty()) return t.Reshape(Shape(dims));
  std::vector<int64_t> physical = dims;
  physical.back() *= 2;  // bf16: two bytes per element
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, t.Reshape(Shape(physical)));
  out.SetQuantization(t.encoding(), Shape(dims));
  return out;
}

absl::StatusOr<Tensor> MergeExperts(const std::string& gguf,
                                    const std::vector<std::pair<std::string, const Tensor*>>& parts,
                                    const std::vector<int64_t>& shape) {
  const int64_t experts = static_cast<int64_t>(parts.size());
  const Tensor& first = *parts[0].second;
  for (const auto& [name, t] : parts) {
    if (t->logical_shape().dims() != shape) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor %s has shape [%s], expected [%d, %d] (from config.json)",
                          QuoteForError(name, 128), absl::StrJoin(t->logical_shape().dims(), ", "),
                          shape[0], shape[1]));
    }
    if (t->dtype() != first.dtype() || t->encoding() != first.encoding()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor %s is %s, expected %s as %s (the experts of %s share one type)",
                          QuoteForError(name, 128), t->DebugString(), first.DebugString(),
                          QuoteForError(parts[0].first, 128), gguf));
    }
  }
  const size_t bytes = first.bytes().size();
  std::vector<int64_t> physical = first.shape().dims();
  physical.insert(physical.begin(), experts);
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(first.dtype(), Shape(physical)));
  if (!first.encoding().empty()) {
    out.SetQuantization(first.encoding(), Shape({experts, shape[0], shape[1]}));
  }
  uint8_t* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  for (int64_t e = 0; e < experts; ++e) {
    std::memcpy(dst + static_cast<size_t>(e) * bytes, parts[e].second->bytes().data(), bytes);
  }
  return out;
}

}  // namespace internal
}  // namespace convert
}  // namespace edgeq
