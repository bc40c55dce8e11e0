// qwen35 (Qwen3_5ForCausalLM) as llama.cpp's converter reads it (Qwen3_5TextModel, from
// _LinearAttentionVReorderBase and Qwen3NextModel in conversion/qwen.py at d32676d7): the
// gated delta-net keys of config.json and the transforms of those layers' tensors.
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "convert/hf_layers.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "quantization/block_layout.h"

namespace edgeq {
namespace convert {
namespace internal {
namespace {

using json = nlohmann::json;

constexpr int64_t kMaxConvKernel = 1 << 16;

// rope_parameters (else rope_scaling), as the converter's TextModel reads it (a rope_parameters
// key, even null, is the one read); null if none or null.
const json* RopeParameters(const Config& c) {
  const char* key = c.raw().contains("rope_parameters") ? "rope_parameters" : "rope_scaling";
  return c.Has(key) ? &c.raw()[key] : nullptr;
}

// partial_rotary_factor (rope_parameters' first, as the converter mirrors the top-level one into
// it only when absent; default 0.25, Qwen3NextModel's) -> rope.dimension_count
// int(head_dim * factor), which must be an even width in 2..head_dim.
absl::StatusOr<int64_t> ReadRopeDims(const Config& c, const json* rp, int64_t head_dim) {
  const char* key = "partial_rotary_factor";
  const json* v = nullptr;
  if (rp != nullptr && rp->contains(key)) {
    v = &(*rp)[key];
  } else if (c.Has(key)) {
    v = &c.raw()[key];
  }
  if (v == nullptr) return head_dim / 4;  // int(head_dim * 0.25)
  const double f = v->is_number() ? v->get<double>() : -1;
  const double dims = std::floor(static_cast<double>(head_dim) * f);
  if (!(f > 0 && f <= 1) || dims < 2 || static_cast<int64_t>(dims) % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: key \"%s\" is %s, expected a factor in (0, 1] giving an even number of rotated "
        "dimensions of head_dim %d",
        c.path(), key, checkpoint::internal::JsonForError(*v), head_dim));
  }
  return static_cast<int64_t>(dims);
}

// rope_parameters' mrope_section padded to 4 (_Qwen35MRopeMixin's default [11, 11, 10, 0]);
// rope_type must be "default" (the converter writes no scaling for it; others are refused).
absl::Status ReadRopeSections(const Config& c, const json* rp, LinearAttention& la) {
  la.rope_sections = {11, 11, 10, 0};
  if (rp == nullptr) return absl::OkStatus();
  const std::string where =
      c.raw().contains("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (!rp->is_object()) return c.Bad(where, "an object");
  for (const char* key : {"rope_type", "type"}) {
    if (rp->contains(key) && (*rp)[key] != json("default")) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: key \"%s\".\"%s\" is %s, expected \"default\" (Qwen3.5's interleaved M-RoPE "
          "without scaling)",
          c.path(), where, key, checkpoint::internal::JsonForError((*rp)[key])));
    }
  }
  if (!rp->contains("mrope_section")) return absl::OkStatus();
  const json& s = (*rp)["mrope_section"];
  bool ok = s.is_array() && !s.empty() && s.size() <= 4;
  for (size_t i = 0; ok && i < s.size(); ++i) {
    ok = s[i].is_number_integer() && s[i].get<int64_t>() >= 0 && s[i].get<int64_t>() <= kMaxHeads;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: key \"%s\".\"mrope_section\" is %s, expected 1 to 4 integers in 0..%d",
                        c.path(), where, checkpoint::internal::JsonForError(s), kMaxHeads));
  }
  la.rope_sections.assign(4, 0);
  for (size_t i = 0; i < s.size(); ++i) la.rope_sections[i] = s[i].get<int64_t>();
  return absl::OkStatus();
}

// layer_types, when given, must place the layers as full_attention_interval does (llama.cpp's
// qwen35 reads only the interval).
absl::Status CheckLayerTypes(const Config& c, int64_t layers, int64_t interval) {
  if (!c.Has("layer_types")) return absl::OkStatus();
  const json& v = c.raw()["layer_types"];
  bool ok = v.is_array() && static_cast<int64_t>(v.size()) == layers;
  for (int64_t l = 0; ok && l < layers; ++l) {
    ok = v[static_cast<size_t>(l)] ==
         json((l + 1) % interval == 0 ? "full_attention" : "linear_attention");
  }
  if (ok) return absl::OkStatus();
  return c.Bad(
      "layer_types",
      absl::StrCat("a list of num_hidden_layers (", layers,
                   ") strings, \"full_attention\" on every full_attention_interval-th (", interval,
                   ") layer and \"linear_attention\" on the others (llama.cpp places "
                   "qwen35's layers by full_attention_interval)"));
}

// v heads grouped by k head (g * r + j) -> tiled (j * hk + g), `block` rows (or columns) each:
// the position in the source of block `dst` of the output.
int64_t SourceBlock(int64_t dst, int64_t key_heads, int64_t per_key) {
  const int64_t j = dst / key_heads, g = dst % key_heads;
  return g * per_key + j;
}

// A copy of `t` (its logical rows [first, first + heads * block) reordered as SourceBlock says,
// by rows or, with `columns`, every row's columns [0, heads * block)).
absl::StatusOr<Tensor> ReorderValueHeads(const std::string& hf, const Tensor& t,
                                         const LinearAttention& la, int64_t first, int64_t block,
                                         bool columns) {
  const std::vector<int64_t>& dims = t.logical_shape().dims();
  const int64_t rows = dims[0];
  const int64_t cols = dims.size() == 2 ? dims[1] : 1;
  const int64_t heads = la.value_heads, per_key = la.value_heads / la.key_heads;
  const size_t bytes = t.bytes().size();
  if (rows <= 0 || bytes % static_cast<size_t>(rows) != 0 ||
      (bytes / rows) % static_cast<size_t>(cols) != 0 ||
      (columns ? cols != heads * block : first + heads * block != rows)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor %s (%s): expected %d value heads of %d %s to reorder", QuoteForError(hf, 128),
        t.DebugString(), heads, block, columns ? "columns" : "rows"));
  }
  const size_t row_bytes = bytes / rows, col_bytes = row_bytes / cols;
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(t.dtype(), t.shape()));
  if (!t.encoding().empty()) out.SetQuantization(t.encoding(), t.logical_shape());
  const uint8_t* src = t.bytes().data();
  uint8_t* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  std::memcpy(dst, src, bytes);
  if (columns) {
    const size_t span = block * col_bytes;
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t h = 0; h < heads; ++h) {
        std::memcpy(dst + r * row_bytes + h * span,
                    src + r * row_bytes + SourceBlock(h, la.key_heads, per_key) * span, span);
      }
    }
  } else {
    const size_t span = block * row_bytes;
    for (int64_t h = 0; h < heads; ++h) {
      std::memcpy(dst + first * row_bytes + h * span,
                  src + first * row_bytes + SourceBlock(h, la.key_heads, per_key) * span, span);
    }
  }
  return out;
}

// float -> bfloat16 -> float, round to nearest even (torch's bf16 rounding; NaN stays NaN).
float RoundToBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return x;
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

}  // namespace

absl::Status ReadLinearAttention(const Config& c, int64_t layers, int64_t head_dim,
                                 HfLayout& layout) {
  LinearAttention& la = layout.linear;
  EDGEQ_ASSIGN_OR_RETURN(la.key_heads, c.PositiveInt("linear_num_key_heads", kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(la.value_heads, c.PositiveInt("linear_num_value_heads", kMaxHeads));
  if (la.value_heads % la.key_heads != 0) {
    return c.Bad("linear_num_value_heads",
                 absl::StrCat("a multiple of linear_num_key_heads ", la.key_heads));
  }
  EDGEQ_ASSIGN_OR_RETURN(la.head_dim, c.PositiveInt("linear_key_head_dim", kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t value_dim,
                         c.PositiveInt("linear_value_head_dim", kMaxHeads));
  if (value_dim != la.head_dim) {
    return c.Bad("linear_value_head_dim",
                 absl::StrCat("linear_key_head_dim ", la.head_dim,
                              " (edgeq's qwen35 runs value heads as wide as the key heads)"));
  }
  EDGEQ_ASSIGN_OR_RETURN(la.conv_kernel, c.PositiveInt("linear_conv_kernel_dim", kMaxConvKernel));
  if (la.conv_kernel < 2) {
    return c.Bad("linear_conv_kernel_dim", absl::StrCat("an integer in 2..", kMaxConvKernel));
  }
  EDGEQ_ASSIGN_OR_RETURN(la.interval,
                         c.OptionalPositiveInt("full_attention_interval", 4, kMaxLayers));
  EDGEQ_RETURN_IF_ERROR(CheckLayerTypes(c, layers, la.interval));
  EDGEQ_ASSIGN_OR_RETURN(const bool gate, c.Bool("attn_output_gate", true));
  if (!gate) {
    return c.Bad("attn_output_gate",
                 "true (qwen35's q_proj holds each head's query and its output gate)");
  }
  const json* rp = RopeParameters(c);
  EDGEQ_RETURN_IF_ERROR(ReadRopeSections(c, rp, la));
  EDGEQ_ASSIGN_OR_RETURN(la.rope_dims, ReadRopeDims(c, rp, head_dim));
  layout.attention.assign(static_cast<size_t>(layers), false);
  for (int64_t l = 0; l < layers; ++l) {
    layout.attention[static_cast<size_t>(l)] = (l + 1) % la.interval == 0;
  }
  return absl::OkStatus();
}

std::optional<std::vector<int64_t>> LinearAttentionShape(const LinearAttention& la, int64_t dim,
                                                         absl::string_view tail) {
  if (tail == "attn_qkv.weight") return std::vector<int64_t>{la.conv_channels(), dim};
  if (tail == "attn_gate.weight") return std::vector<int64_t>{la.value_dim(), dim};
  if (tail == "ssm_beta.weight" || tail == "ssm_alpha.weight") {
    return std::vector<int64_t>{la.value_heads, dim};
  }
  if (tail == "ssm_conv1d.weight") return std::vector<int64_t>{la.conv_channels(), la.conv_kernel};
  if (tail == "ssm_dt.bias" || tail == "ssm_a") return std::vector<int64_t>{la.value_heads};
  if (tail == "ssm_norm.weight") return std::vector<int64_t>{la.head_dim};
  if (tail == "ssm_out.weight") return std::vector<int64_t>{dim, la.value_dim()};
  return std::nullopt;
}

absl::StatusOr<Tensor> ConvertLinearAttentionTensor(const LinearAttention& la,
                                                    absl::string_view tail, const std::string& hf,
                                                    const Tensor& source, Tensor in) {
  if (la.key_heads != la.value_heads) {  // _LinearAttentionVReorderBase.modify_tensors
    const int64_t hd = la.head_dim;
    if (tail == "attn_qkv.weight" || tail == "ssm_conv1d.weight") {  // the v rows
      EDGEQ_ASSIGN_OR_RETURN(in, ReorderValueHeads(hf, in, la, 2 * la.key_dim(), hd, false));
    } else if (tail == "attn_gate.weight") {
      EDGEQ_ASSIGN_OR_RETURN(in, ReorderValueHeads(hf, in, la, 0, hd, false));
    } else if (tail == "ssm_beta.weight" || tail == "ssm_alpha.weight" || tail == "ssm_a" ||
               tail == "ssm_dt.bias") {
      EDGEQ_ASSIGN_OR_RETURN(in, ReorderValueHeads(hf, in, la, 0, 1, false));
    } else if (tail == "ssm_out.weight") {
      EDGEQ_ASSIGN_OR_RETURN(in, ReorderValueHeads(hf, in, la, 0, hd, true));
    }
  }
  if (tail == "ssm_a") {  // Qwen3NextModel: -torch.exp(A_log), in A_log's type
    if (in.dtype() != DType::kFloat32 || !in.encoding().empty()) {
      return absl::InternalError(absl::StrCat("ssm_a from ", hf, " is not f32"));
    }
    const bool bf16 = source.encoding() == "bf16";
    const bool f16 = source.encoding().empty() && source.dtype() == DType::kFloat16;
    EDGEQ_ASSIGN_OR_RETURN(Tensor out, in.Clone());
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, out.MutableValues<float>());
    for (float& x : v) {
      // exp in double rounded once to float: the correctly rounded f32 result (but for a
      // double-rounding tie); torch's f32 exp (Sleef, within 1 ulp) may differ from it by 1 ulp.
      float e = static_cast<float>(std::exp(static_cast<double>(x)));
      if (bf16) e = RoundToBf16(e);
      if (f16) e = blocks::Fp16ToFloat(blocks::FloatToFp16(e));
      x = -e;
    }
    return out;
  }
  if (tail == "ssm_conv1d.weight") {  // always f32 (the converter's SSM_CONV1D rule)
    return ToF32(hf, in, 0.0f);
  }
  return in;
}

void AddLinearAttentionKeys(const std::string& a, const LinearAttention& la,
                            checkpoint::TensorDict& d) {
  using checkpoint::MetadataValue;
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, MetadataValue::Width::kU32); };
  d.SetMetadata(a + ".ssm.conv_kernel", u32(la.conv_kernel));
  d.SetMetadata(a + ".ssm.state_size", u32(la.head_dim));
  d.SetMetadata(a + ".ssm.group_count", u32(la.key_heads));
  d.SetMetadata(a + ".ssm.time_step_rank", u32(la.value_heads));
  d.SetMetadata(a + ".ssm.inner_size", u32(la.value_dim()));
  d.SetMetadata(a + ".full_attention_interval", u32(la.interval));
}

}  // namespace internal
}  // namespace convert
}  // namespace edgeq
