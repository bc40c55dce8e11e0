// lfm2 (LFM2 / LFM2.5 dense, Liquid AI): gated short-convolution layers with a conv state mixed
// with GQA attention layers (q/k head norms, RoPE on halves), every layer followed by a SwiGLU
// FFN; the output norm is the tensor llama.cpp names token_embd_norm (llama.cpp's
// src/models/lfm2.cpp). Which layers convolve: <arch>.attention.head_count_kv is one value per
// layer, 0 on the conv layers (ModelConfig::recurrent_layers).
//
// A conv layer of h = attn_norm(x) [t, dim]: shortconv.in_proj [3 dim, dim] gives b, c, x'
// (thirds, in that order); y = out_proj(c * conv(b * x')), conv the causal depthwise
// convolution of <arch>.shortconv.l_cache taps (shortconv.conv [dim, l_cache]) over the last
// l_cache - 1 inputs b * x' (the layer's recurrent state [l_cache - 1, dim]) and the block.
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"
#include "llm/arch/recurrent_state.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace llm {
namespace arch {

// The most convolution taps (LFM2: 3).
inline constexpr int64_t kMaxConvTaps = 64;

// <arch>.shortconv.l_cache (required); one state per conv layer; no sliding window.
absl::Status Lfm2Config(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string& a = c->architecture;
  EDGEQ_ASSIGN_OR_RETURN(int64_t taps, RequiredInt(d, Key(a, "shortconv.l_cache"), kMaxConvTaps));
  if (taps < 2) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata key '%s' is %d; expected at least 2 taps", Key(a, "shortconv.l_cache"), taps));
  }
  EDGEQ_ASSIGN_OR_RETURN(int64_t window, OptionalInt(d, Key(a, "attention.sliding_window"), 0));
  if (window > 0) {
    return absl::UnimplementedError(
        absl::StrFormat("metadata key '%s' is %d; sliding-window lfm2 attention is not supported "
                        "(expected no window)",
                        Key(a, "attention.sliding_window"), window));
  }
  const std::string causal = Key(a, "attention.causal");
  if (d.HasMetadata(causal)) {
    absl::StatusOr<bool> on = d.GetBool(causal);
    if (!on.ok()) return absl::InvalidArgumentError(on.status().message());
    if (!*on) {
      return absl::UnimplementedError(absl::StrFormat(
          "metadata key '%s' is false; only causal lfm2 models are supported", causal));
    }
  }
  c->output_norm = "token_embd_norm.weight";
  c->recurrent_layers.resize(static_cast<size_t>(c->block_count), false);
  for (int l = 0; l < c->block_count; ++l) {
    if (c->IsRecurrent(l)) {
      c->recurrent_states.push_back({l, {taps - 1, c->embedding_length}});
    }
  }
  return absl::OkStatus();
}

namespace {

// The taps `name` as f32 [dim, taps]: llama.cpp's files keep them f32; a quantized, f16 or bf16
// copy (edgeq quantize's fallback for 3 columns) is decoded here.
absl::StatusOr<Tensor> ConvWeight(const WeightReader& weights, const std::string& name, int64_t dim,
                                  int64_t taps) {
  absl::StatusOr<const Tensor*> w = weights.Get(name);
  if (!w.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected f32 [%d, %d])", name, dim, taps));
  }
  const Tensor& t = **w;
  if (t.logical_shape() == Shape({dim, taps}) && t.is_quantized()) {
    absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(t.encoding());
    if (enc.ok()) return (*enc)->Dequantize(t);
  }
  if (t.dtype() != DType::kFloat32 || t.is_quantized() || t.shape() != Shape({dim, taps})) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' is %s, expected f32 [%d, %d]",
                                                      name, t.DebugString(), dim, taps));
  }
  return t;
}

// The short-convolution block of a conv layer on h = attn_norm(x): [t, dim].
absl::StatusOr<Value> ShortConv(LayerGraph& b, int layer, Value h) {
  const ModelConfig& c = b.config();
  const int64_t dim = c.embedding_length;
  const std::string p = absl::StrCat("blk.", layer, ".");
  const int slot = b.StateSlot(layer);
  const int64_t taps = c.recurrent_states[static_cast<size_t>(slot)].shape[0] + 1;
  EDGEQ_ASSIGN_OR_RETURN(Value bcx, Linear(b.graph(), b.weights(), p + "shortconv.in_proj.weight",
                                           3 * dim, dim, h));  // [t, 3 dim]
  const int64_t t = b.t();
  const Value gate_b = ops::Slice(bcx, {0, 0}, {t, dim});
  const Value gate_c = ops::Slice(bcx, {0, dim}, {t, 2 * dim});
  const Value in = ops::Slice(bcx, {0, 2 * dim}, {t, 3 * dim});
  EDGEQ_ASSIGN_OR_RETURN(Tensor w, ConvWeight(b.weights(), p + "shortconv.conv.weight", dim, taps));
  const SsmConvResult conv =
      SsmConv(ops::Mul(gate_b, in), b.StateInput(slot), b.graph().Constant(w), b.real_rows);
  b.SetStateOutput(slot, conv.new_state);
  return Linear(b.graph(), b.weights(), p + "shortconv.out_proj.weight", dim, dim,
                ops::Mul(gate_c, conv.y));
}

}  // namespace

absl::StatusOr<Value> Lfm2Layer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value h, b.Norm(layer, "attn_norm.weight", x));
  Value mixed;
  if (b.config().IsRecurrent(layer)) {
    EDGEQ_ASSIGN_OR_RETURN(mixed, ShortConv(b, layer, h));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(mixed, b.Attention(layer, h));
  }
  x = ops::Add(x, mixed);
  EDGEQ_ASSIGN_OR_RETURN(x, b.KeepOutputRow(layer, x));
  EDGEQ_ASSIGN_OR_RETURN(h, b.Norm(layer, "ffn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, b.FeedForward(layer, h));
  return ops::Add(x, ffn);
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
