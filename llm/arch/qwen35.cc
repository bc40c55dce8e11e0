// qwen35 (Qwen3.5 small, dense): hybrid layers (llama.cpp's src/models/qwen35.cpp). Every
// full_attention_interval-th layer is gated full attention (LayerGraph::Attention with the row's
// QkvLayout::kGatedQ: attn_q gives each head's query and an output gate, q/k head norms, partial
// M-RoPE, attention, times sigmoid(gate)); the others are
// gated delta-net linear attention (attn_qkv -> the causal short convolution with state
// (op ssm_conv) -> SiLU -> q, k, v heads; the gated delta rule with its recurrent state (op
// gated_delta_net); RMSNorm of each head times silu(attn_gate); ssm_out). Each layer:
// x += mixer(attn_norm(x)); x += ffn(post_attention_norm(x)) (SwiGLU).
//
// M-RoPE (rope.dimension_sections, llama.cpp's IMROPE): each rotated pair takes the angle of its
// section's position stream (time, height, width). For text tokens llama.cpp gives the three
// streams the same position, so every pair turns by p * base^(-2i / n_rot), over the first n_rot
// (rope.dimension_count) dimensions paired as halves: plain NEOX RoPE on n_rot dimensions, which
// is what runs here. Qwen35Config refuses sections under which a pair would read the fourth
// stream (not the token position in llama.cpp).
//
// The MTP/NextN layers (nextn_predict_layers, the last blk.N after the trunk) are loaded and
// marked used; the graph does not run them (as llama.cpp's main pass).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"
#include "llm/arch/recurrent_state.h"
#include "llm/ops.h"

namespace edgeq {
namespace llm {
namespace arch {
namespace {

using checkpoint::MetadataValue;

// <arch>.nextn_predict_layers (0 when absent): below block_count.
absl::StatusOr<int64_t> ReadNextn(const checkpoint::TensorDict& d, const ModelConfig& c) {
  const std::string key = Key(c.architecture, "nextn_predict_layers");
  if (!d.HasMetadata(key)) return 0;
  absl::StatusOr<int64_t> v = d.GetInt(key);
  if (!v.ok()) return absl::InvalidArgumentError(v.status().message());
  if (*v < 0 || *v >= c.block_count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %d; expected 0 <= n < %s = %d", key, *v,
                        Key(c.architecture, "block_count"), c.block_count));
  }
  return *v;
}

// recurrent_layers from <arch>.attention.recurrent_layers (one integer or bool per layer,
// MTP layers included) or <arch>.full_attention_interval (default 4).
absl::Status ReadLayerTypes(const checkpoint::TensorDict& d, int64_t all_layers, ModelConfig* c) {
  const std::string& a = c->architecture;
  const std::string key = Key(a, "attention.recurrent_layers");
  c->recurrent_layers.assign(c->block_count, false);
  if (d.HasMetadata(key)) {
    const MetadataValue* v = *d.GetMetadata(key);
    if ((v->kind() != MetadataValue::Kind::kInt && v->kind() != MetadataValue::Kind::kBool) ||
        static_cast<int64_t>(v->ints().size()) != all_layers) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' is %s; expected %d integers or bools", key,
                          v->TypeName(), all_layers));
    }
    for (int l = 0; l < c->block_count; ++l) c->recurrent_layers[l] = v->ints()[l] != 0;
    return absl::OkStatus();
  }
  EDGEQ_ASSIGN_OR_RETURN(int64_t interval,
                         OptionalInt(d, Key(a, "full_attention_interval"), 4, kMaxLayers));
  for (int l = 0; l < c->block_count; ++l) c->recurrent_layers[l] = (l + 1) % interval != 0;
  return absl::OkStatus();
}

// <arch>.rope.dimension_sections: 3 or 4 integers; every rotated pair must take the time, height
// or width stream under llama.cpp's IMROPE assignment (the streams text tokens share).
absl::Status ReadSections(const checkpoint::TensorDict& d, const ModelConfig& c) {
  const std::string key = Key(c.architecture, "rope.dimension_sections");
  if (!d.HasMetadata(key)) {
    return absl::InvalidArgumentError(absl::StrFormat("missing metadata key '%s'", key));
  }
  const MetadataValue* v = *d.GetMetadata(key);
  if (v->kind() != MetadataValue::Kind::kInt || v->ints().size() < 3 || v->ints().size() > 4) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %s; expected 3 or 4 integers", key, v->TypeName()));
  }
  int64_t s[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < v->ints().size(); ++i) {
    s[i] = v->ints()[i];
    if (s[i] < 0 || s[i] > kMaxHeadDim) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' is %s; expected sections in [0, %d]", key,
                          v->DebugString(), kMaxHeadDim));
    }
  }
  const int64_t total = s[0] + s[1] + s[2] + s[3];
  for (int64_t pair = 0; pair < c.rope_dimension_count / 2 && total > 0; ++pair) {
    const int64_t sector = pair % total;
    const bool text_stream = (sector % 3 == 0 && sector < 3 * s[0]) ||
                             (sector % 3 == 1 && sector < 3 * s[1]) ||
                             (sector % 3 == 2 && sector < 3 * s[2]);
    if (!text_stream) {
      return absl::UnimplementedError(absl::StrFormat(
          "metadata key '%s' is %s: rotated pair %d would take the fourth position stream; only "
          "sections covering the %d pairs with time/height/width are supported",
          key, v->DebugString(), pair, c.rope_dimension_count / 2));
    }
  }
  return absl::OkStatus();
}

// The logical shape of `name` must be `want`.
absl::Status ExpectTensor(const checkpoint::TensorDict& d, const std::string& name,
                          const Shape& want, absl::string_view why) {
  absl::StatusOr<const Tensor*> t = d.Get(name);
  if (!t.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected %s: %s)", name, want.ToString(), why));
  }
  if ((*t)->logical_shape() != want) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' has shape %s; expected %s (%s)",
                                                      name, (*t)->logical_shape().ToString(),
                                                      want.ToString(), why));
  }
  return absl::OkStatus();
}

// The first full-attention and the first linear-attention layer's tensors against the keys
// (Load checks every layer's; these bound the state and cache sizes before they are allocated).
absl::Status CheckLayerShapes(const checkpoint::TensorDict& d, const ModelConfig& c) {
  const std::string& a = c.architecture;
  const int64_t dim = c.embedding_length, hs = c.head_dim;
  const int64_t s = c.ssm_state_size, hk = c.ssm_group_count, hv = c.ssm_time_step_rank;
  const std::string heads_why =
      absl::StrFormat("%s = %d, %s = %d, head dimension %d", Key(a, "attention.head_count"),
                      c.head_count, Key(a, "attention.head_count_kv"), c.head_count_kv, hs);
  const std::string ssm_why =
      absl::StrFormat("%s = %d, %s = %d, %s = %d", Key(a, "ssm.state_size"), s,
                      Key(a, "ssm.group_count"), hk, Key(a, "ssm.time_step_rank"), hv);
  bool attention_seen = false, linear_seen = false;
  for (int l = 0; l < c.block_count; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    if (!c.recurrent_layers[l] && !attention_seen) {
      attention_seen = true;
      EDGEQ_RETURN_IF_ERROR(
          ExpectTensor(d, p + "attn_q.weight", Shape({2 * c.head_count * hs, dim}), heads_why));
      EDGEQ_RETURN_IF_ERROR(
          ExpectTensor(d, p + "attn_k.weight", Shape({c.head_count_kv * hs, dim}), heads_why));
    } else if (c.recurrent_layers[l] && !linear_seen) {
      linear_seen = true;
      const int64_t conv_dim = 2 * hk * s + hv * s;
      EDGEQ_RETURN_IF_ERROR(ExpectTensor(d, p + "ssm_a", Shape({hv}), ssm_why));
      EDGEQ_RETURN_IF_ERROR(ExpectTensor(d, p + "ssm_norm.weight", Shape({s}), ssm_why));
      EDGEQ_RETURN_IF_ERROR(
          ExpectTensor(d, p + "ssm_conv1d.weight", Shape({conv_dim, c.ssm_conv_kernel}), ssm_why));
    }
  }
  return absl::OkStatus();
}

// The f32 vector `name` [n] as a constant.
absl::StatusOr<Value> Vector(LayerGraph& b, const std::string& name, int64_t n) {
  absl::StatusOr<const Tensor*> w = b.weights().Get(name);
  if (!w.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected f32 [%d])", name, n));
  }
  if ((*w)->dtype() != DType::kFloat32 || (*w)->is_quantized() || (*w)->shape() != Shape({n})) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s, expected f32 [%d]", name, (*w)->DebugString(), n));
  }
  return b.graph().Constant(**w);
}

// Gated delta-net linear attention of the normed h [t, dim] with the layer's two states.
absl::StatusOr<Value> LinearAttention(LayerGraph& b, int layer, Value h) {
  const ModelConfig& c = b.config();
  Graph& g = b.graph();
  const WeightReader& w = b.weights();
  const int64_t t = b.t(), dim = c.embedding_length, s = c.ssm_state_size;
  const int64_t hk = c.ssm_group_count, hv = c.ssm_time_step_rank;
  const int64_t key_dim = hk * s, value_dim = hv * s, conv_dim = 2 * key_dim + value_dim;
  const std::string p = absl::StrCat("blk.", layer, ".");
  EDGEQ_ASSIGN_OR_RETURN(Value qkv, Linear(g, w, p + "attn_qkv.weight", conv_dim, dim, h));
  EDGEQ_ASSIGN_OR_RETURN(Value z, Linear(g, w, p + "attn_gate.weight", value_dim, dim, h));
  EDGEQ_ASSIGN_OR_RETURN(Value beta, Linear(g, w, p + "ssm_beta.weight", hv, dim, h));
  EDGEQ_ASSIGN_OR_RETURN(Value alpha, Linear(g, w, p + "ssm_alpha.weight", hv, dim, h));
  EDGEQ_ASSIGN_OR_RETURN(Value dt_bias, Vector(b, p + "ssm_dt.bias", hv));
  EDGEQ_ASSIGN_OR_RETURN(Value a, Vector(b, p + "ssm_a", hv));
  absl::StatusOr<const Tensor*> conv_w = w.Get(p + "ssm_conv1d.weight");
  const int64_t k = c.ssm_conv_kernel;
  if (!conv_w.ok() || (*conv_w)->dtype() != DType::kFloat32 || (*conv_w)->is_quantized() ||
      (*conv_w)->shape() != Shape({conv_dim, k})) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%sssm_conv1d.weight' is %s, expected f32 [%d, %d]", p,
                        conv_w.ok() ? (*conv_w)->DebugString() : "missing", conv_dim, k));
  }
  const int conv_slot = b.StateSlot(layer, 0), delta_slot = b.StateSlot(layer, 1);
  const SsmConvResult conv =
      SsmConv(qkv, b.StateInput(conv_slot), g.Constant(**conv_w), b.real_rows);
  b.SetStateOutput(conv_slot, conv.new_state);
  const Value mixed = ops::Silu(conv.y);  // [t, conv_dim]: q, k, v heads
  const Value q = ops::Reshape(ops::Slice(mixed, {0, 0}, {t, key_dim}), {t, hk, s});
  const Value kk = ops::Reshape(ops::Slice(mixed, {0, key_dim}, {t, 2 * key_dim}), {t, hk, s});
  const Value v = ops::Reshape(ops::Slice(mixed, {0, 2 * key_dim}, {t, conv_dim}), {t, hv, s});
  const std::vector<Value> delta = ops::OpOutputs(
      "gated_delta_net", {q, kk, v, alpha, beta, dt_bias, a, b.StateInput(delta_slot), b.real_rows},
      {{"epsilon", static_cast<double>(c.rms_norm_epsilon)}});
  if (delta.size() != 2 || !g.status().ok()) {
    return g.status().ok() ? absl::InternalError("gated_delta_net gave no state output")
                           : g.status();
  }
  b.SetStateOutput(delta_slot, delta[1]);
  // RMSNorm of each head by ssm_norm, times silu(z) (llama.cpp's build_norm_gated).
  EDGEQ_ASSIGN_OR_RETURN(Value o, b.Norm(layer, "ssm_norm.weight", delta[0], s));
  o = ops::Mul(o, ops::Silu(ops::Reshape(z, {t, hv, s})));
  return Linear(g, w, p + "ssm_out.weight", dim, value_dim, ops::Reshape(o, {t, value_dim}));
}

// The MTP/NextN layers' tensors (when present), marked used: loaded, not run.
absl::Status MarkNextnUsed(LayerGraph& b) {
  static constexpr const char* kNames[] = {"attn_norm.weight",
                                           "post_attention_norm.weight",
                                           "attn_q.weight",
                                           "attn_k.weight",
                                           "attn_v.weight",
                                           "attn_output.weight",
                                           "attn_q_norm.weight",
                                           "attn_k_norm.weight",
                                           "ffn_gate.weight",
                                           "ffn_up.weight",
                                           "ffn_down.weight",
                                           "nextn.eh_proj.weight",
                                           "nextn.enorm.weight",
                                           "nextn.hnorm.weight",
                                           "nextn.embed_tokens.weight",
                                           "nextn.shared_head_head.weight",
                                           "nextn.shared_head_norm.weight"};
  const ModelConfig& c = b.config();
  for (int l = c.block_count; l < c.block_count + c.nextn_layers; ++l) {
    for (const char* name : kNames) {
      const std::string full = absl::StrCat("blk.", l, ".", name);
      if (b.weights().Contains(full)) EDGEQ_RETURN_IF_ERROR(b.weights().Get(full).status());
    }
  }
  return absl::OkStatus();
}

}  // namespace

// The ssm.* keys, nextn_predict_layers (the trunk is block_count minus them), the layer types,
// the M-RoPE sections, and the shapes they imply.
absl::Status Qwen35Config(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string& a = c->architecture;
  EDGEQ_ASSIGN_OR_RETURN(int64_t conv, RequiredInt(d, Key(a, "ssm.conv_kernel"), 64));
  EDGEQ_ASSIGN_OR_RETURN(int64_t state, RequiredInt(d, Key(a, "ssm.state_size"), kMaxHeadDim));
  EDGEQ_ASSIGN_OR_RETURN(int64_t groups, RequiredInt(d, Key(a, "ssm.group_count"), kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(int64_t rank, RequiredInt(d, Key(a, "ssm.time_step_rank"), kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(int64_t inner, RequiredInt(d, Key(a, "ssm.inner_size"), kMaxFeedForward));
  if (conv < 2 || rank % groups != 0 || inner != rank * state) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata keys '%s' = %d, '%s' = %d, '%s' = %d, '%s' = %d contradict: expected a kernel "
        "of at least 2, value heads a multiple of key heads and inner size = value heads x "
        "state size",
        Key(a, "ssm.conv_kernel"), conv, Key(a, "ssm.time_step_rank"), rank,
        Key(a, "ssm.group_count"), groups, Key(a, "ssm.inner_size"), inner));
  }
  c->ssm_conv_kernel = static_cast<int>(conv);
  c->ssm_state_size = static_cast<int>(state);
  c->ssm_group_count = static_cast<int>(groups);
  c->ssm_time_step_rank = static_cast<int>(rank);
  c->ssm_inner_size = static_cast<int>(inner);
  EDGEQ_ASSIGN_OR_RETURN(int64_t nextn, ReadNextn(d, *c));
  const int64_t all_layers = c->block_count;
  c->nextn_layers = static_cast<int>(nextn);
  c->block_count -= c->nextn_layers;
  EDGEQ_RETURN_IF_ERROR(ReadLayerTypes(d, all_layers, c));
  EDGEQ_RETURN_IF_ERROR(ReadSections(d, *c));
  EDGEQ_RETURN_IF_ERROR(CheckLayerShapes(d, *c));
  c->layer_shapes_checked = true;
  // Per linear-attention layer: the convolution's last k - 1 inputs [k - 1, conv channels] and
  // the delta-rule state [value heads, state, state] (llm/arch/recurrent_state.h).
  const int64_t conv_dim = 2 * groups * state + rank * state;
  for (int l = 0; l < c->block_count; ++l) {
    if (!c->IsRecurrent(l)) continue;
    c->recurrent_states.push_back({l, {conv - 1, conv_dim}});
    c->recurrent_states.push_back({l, {rank, state, state}});
  }
  return absl::OkStatus();
}

absl::StatusOr<Value> Qwen35Layer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value h, b.Norm(layer, "attn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value mixed, b.config().IsRecurrent(layer) ? LinearAttention(b, layer, h)
                                                                    : b.Attention(layer, h));
  x = ops::Add(mixed, x);
  EDGEQ_ASSIGN_OR_RETURN(x, b.KeepOutputRow(layer, x));
  EDGEQ_ASSIGN_OR_RETURN(h, b.Norm(layer, "post_attention_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, b.FeedForward(layer, h));
  if (layer == b.config().block_count - 1) EDGEQ_RETURN_IF_ERROR(MarkNextnUsed(b));
  return ops::Add(ffn, x);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
