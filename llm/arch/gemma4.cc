// gemma4 (Gemma 4 E2B/E4B text; llama.cpp's src/models/gemma4.cpp): gemma3's layer (embeddings
// scaled by sqrt(dim), q/k head norms, post-norms, GeGLU) with
//  - sliding-window and full layers by a per-layer pattern, each kind with its own head
//    dimension (attention.key_length / key_length_swa), RoPE base and rotated dimensions; the
//    full layers' RoPE divides by rope_freqs.weight (1e30 on the pairs Gemma 4 leaves unrotated),
//  - scores not scaled (1.0), V rows RMS-normed without a weight, V = K without attn_v,
//  - KV-cache sharing: the last attention.shared_kv_layers layers project no K/V and read the
//    cache of the last cached layer of their kind (ModelConfig::KvLayer),
//  - per-layer embeddings: per_layer_token_embd rows plus a projection of the embeddings give
//    each layer an extra input, gated into the residual after the FFN,
//  - an optional scalar layer_output_scale per layer and final-logit soft-capping (default 30).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"
#include "llm/ops.h"

namespace edgeq {
namespace llm {
namespace arch {
namespace {

using checkpoint::MetadataValue;

// <arch>.attention.sliding_window_pattern: one bool per layer (true: sliding window), as the
// converter writes it from config.json's layer_types.
absl::Status ReadSlidingPattern(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string key = Key(c->architecture, "attention.sliding_window_pattern");
  if (!d.HasMetadata(key)) {
    return absl::InvalidArgumentError(absl::StrFormat("missing metadata key '%s'", key));
  }
  const MetadataValue* v = *d.GetMetadata(key);
  if (!v->is_array() ||
      (v->kind() != MetadataValue::Kind::kBool && v->kind() != MetadataValue::Kind::kInt) ||
      static_cast<int64_t>(v->size()) != c->block_count) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %s; expected %d bools (one per layer)", key,
                        v->TypeName(), c->block_count));
  }
  c->sliding_layers.clear();
  for (int64_t x : v->ints()) c->sliding_layers.push_back(x != 0);
  return absl::OkStatus();
}

// The head and rotated dimensions of the sliding-window layers.
absl::Status ReadSwaDims(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string& a = c->architecture;
  const std::string k_key = Key(a, "attention.key_length_swa");
  EDGEQ_ASSIGN_OR_RETURN(int64_t hs, OptionalInt(d, k_key, c->head_dim, kMaxHeadDim));
  EDGEQ_ASSIGN_OR_RETURN(int64_t vs,
                         OptionalInt(d, Key(a, "attention.value_length_swa"), hs, kMaxHeadDim));
  if (vs != hs) {
    return absl::UnimplementedError(absl::StrFormat(
        "metadata keys '%s' = %d and '%s' = %d differ; only equal key and value head dimensions "
        "are supported",
        k_key, hs, Key(a, "attention.value_length_swa"), vs));
  }
  const std::string rot_key = Key(a, "rope.dimension_count_swa");
  EDGEQ_ASSIGN_OR_RETURN(int64_t rot,
                         OptionalInt(d, rot_key, std::min<int64_t>(hs, c->rope_dimension_count)));
  if (hs % 2 != 0 || rot > hs || rot % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata keys '%s' = %d and '%s' = %d: expected an even head dimension and an even "
        "rotated count <= it",
        k_key, hs, rot_key, rot));
  }
  c->head_dim_swa = static_cast<int>(hs);
  c->rope_dimension_count_swa = static_cast<int>(rot);
  return absl::OkStatus();
}

// attention.shared_kv_layers: the layers read by the shared ones must exist and be of their kind.
absl::Status ReadSharedKv(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string key = Key(c->architecture, "attention.shared_kv_layers");
  int64_t shared = 0;
  if (d.HasMetadata(key)) {
    absl::StatusOr<int64_t> v = d.GetInt(key);
    if (!v.ok()) return absl::InvalidArgumentError(v.status().message());
    shared = *v;
  }
  if (shared < 0 || shared > c->block_count - 2 || (shared > 0 && c->block_count - shared < 2)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %d; expected 0 or at most %s - 2 = %d", key, shared,
                        Key(c->architecture, "block_count"), c->block_count - 2));
  }
  c->shared_kv_layers = static_cast<int>(shared);
  for (int l = c->CachedLayers(); l < c->block_count; ++l) {
    const int src = c->KvLayer(l);
    if (c->IsSliding(src) != c->IsSliding(l)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "metadata key '%s' = %d: shared layer %d (%s) would read layer %d's cache, which is "
          "%s; expected the last two cached layers to be sliding-window then full",
          key, shared, l, c->IsSliding(l) ? "sliding-window" : "full", src,
          c->IsSliding(src) ? "sliding-window" : "full"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// <arch>.attention.sliding_window (required), .attention.sliding_window_pattern (a bool per
// layer), .rope.freq_base_swa (default 10000), .attention.key_length_swa /
// .rope.dimension_count_swa, .attention.shared_kv_layers (default 0),
// .embedding_length_per_layer_input (0: none), .final_logit_softcapping (default 30, as
// llama.cpp's hparams).
absl::Status Gemma4Config(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string& a = c->architecture;
  if (d.HasMetadata(Key(a, "expert_count"))) {
    return absl::UnimplementedError(absl::StrFormat(
        "metadata key '%s': gemma4 with experts (26B-A4B) is not supported; the dense "
        "E2B/E4B/31B layers are",
        Key(a, "expert_count")));
  }
  c->attention_scale = 1.0f;  // Gemma 4 does not scale the scores
  c->value_norm = true;
  EDGEQ_ASSIGN_OR_RETURN(int64_t window, RequiredInt(d, Key(a, "attention.sliding_window")));
  c->sliding_window = static_cast<int>(window);
  EDGEQ_RETURN_IF_ERROR(ReadSlidingPattern(d, c));
  EDGEQ_ASSIGN_OR_RETURN(double base_swa, OptionalFloat(d, Key(a, "rope.freq_base_swa"), 1e4));
  c->rope_freq_base_swa = static_cast<float>(base_swa);
  EDGEQ_RETURN_IF_ERROR(ReadSwaDims(d, c));
  EDGEQ_RETURN_IF_ERROR(ReadSharedKv(d, c));
  const std::string pl_key = Key(a, "embedding_length_per_layer_input");
  if (d.HasMetadata(pl_key)) {
    absl::StatusOr<int64_t> pl = d.GetInt(pl_key);
    if (!pl.ok()) return absl::InvalidArgumentError(pl.status().message());
    if (*pl < 0 || *pl > kMaxEmbedding) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "metadata key '%s' is %d; expected 0 (none) to %d", pl_key, *pl, kMaxEmbedding));
    }
    c->embedding_length_per_layer = static_cast<int>(*pl);
  }
  const std::string cap_key = Key(a, "final_logit_softcapping");
  EDGEQ_ASSIGN_OR_RETURN(double cap, OptionalFloat(d, cap_key, 30.0, /*positive=*/false));
  if (cap < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %g; expected >= 0", cap_key, cap));
  }
  c->final_logit_softcapping = static_cast<float>(cap);
  return absl::OkStatus();
}

absl::StatusOr<Value> Gemma4PerLayerInputs(LayerGraph& b, Value tokens, Value x) {
  const ModelConfig& c = b.config();
  Graph& g = b.graph();
  const int64_t t = b.t(), dim = c.embedding_length, layers = c.block_count;
  const int64_t pl = c.embedding_length_per_layer, width = layers * pl;
  const char* name = "per_layer_token_embd.weight";
  absl::StatusOr<const Tensor*> rows = b.weights().Get(name);
  if (!rows.ok() || (*rows)->logical_shape() != Shape({c.vocab_size, width})) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s; expected [%d, %d] (vocabulary, layers x %s)", name,
                        rows.ok() ? (*rows)->logical_shape().ToString() : "missing", c.vocab_size,
                        width, Key(c.architecture, "embedding_length_per_layer_input")));
  }
  // The token's rows scaled by sqrt(per-layer width) ...
  Value tok = ops::Gather(g.Constant(**rows), tokens);  // [t, layers * pl]
  EDGEQ_ASSIGN_OR_RETURN(Value tok_scale, Scalar(g, std::sqrt(static_cast<float>(pl))));
  tok = ops::Mul(tok, tok_scale);
  // ... plus the RMS-normed projection of the scaled embeddings / sqrt(dim), times 1/sqrt(2).
  EDGEQ_ASSIGN_OR_RETURN(Value proj,
                         Linear(g, b.weights(), "per_layer_model_proj.weight", width, dim, x));
  EDGEQ_ASSIGN_OR_RETURN(Value proj_scale, Scalar(g, 1.0f / std::sqrt(static_cast<float>(dim))));
  proj = ops::Reshape(ops::Mul(proj, proj_scale), {t, layers, pl});
  EDGEQ_ASSIGN_OR_RETURN(
      proj, Norm(g, b.weights(), "per_layer_proj_norm.weight", pl, c.rms_norm_epsilon, proj));
  proj = ops::Reshape(proj, {t, width});
  EDGEQ_ASSIGN_OR_RETURN(Value half, Scalar(g, 1.0f / std::sqrt(2.0f)));
  return ops::Mul(ops::Add(proj, tok), half);
}

namespace {

// Self-attention of the normed h [t, dim] (gemma4.cpp's Q, K, V and build_attn): [t, dim].
absl::StatusOr<Value> Gemma4Attention(LayerGraph& b, int layer, Value h) {
  const ModelConfig& c = b.config();
  Graph& g = b.graph();
  const WeightReader& w = b.weights();
  const int64_t t = b.t(), dim = c.embedding_length, hs = c.LayerHeadDim(layer);
  const int64_t heads = c.head_count, kvh = c.head_count_kv;
  const int64_t q_dim = heads * hs, kv_dim = kvh * hs;
  const std::string p = absl::StrCat("blk.", layer, ".");
  const bool swa = c.IsSliding(layer);
  const Value freqs = swa ? b.freqs_swa : b.freqs;
  EDGEQ_ASSIGN_OR_RETURN(Value q, Linear(g, w, p + "attn_q.weight", q_dim, dim, h));
  EDGEQ_ASSIGN_OR_RETURN(q,
                         b.Norm(layer, "attn_q_norm.weight", ops::Reshape(q, {t, heads, hs}), hs));
  q = Rope(q, b.positions, freqs, RopeMode::kNeox);
  const int src = c.KvLayer(layer);
  Value k_new, v_new;
  if (src == layer) {
    EDGEQ_ASSIGN_OR_RETURN(Value k, Linear(g, w, p + "attn_k.weight", kv_dim, dim, h));
    Value v = k;  // without attn_v, V is K (before its norm)
    if (w.Contains(p + "attn_v.weight")) {
      EDGEQ_ASSIGN_OR_RETURN(v, Linear(g, w, p + "attn_v.weight", kv_dim, dim, h));
    }
    EDGEQ_ASSIGN_OR_RETURN(k,
                           b.Norm(layer, "attn_k_norm.weight", ops::Reshape(k, {t, kvh, hs}), hs));
    EDGEQ_ASSIGN_OR_RETURN(Tensor ones, Tensor::Full({hs}, 1.0f));
    v = ops::RmsNorm(ops::Reshape(v, {t, kvh, hs}), g.Constant(ones), c.rms_norm_epsilon);
    k_new = Rope(k, b.positions, freqs, RopeMode::kNeox);
    v_new = v;
    b.AddKvRows(layer, k_new, v_new);
  } else {
    // A shared layer: a file may still hold its K/V weights (llama.cpp loads and ignores them).
    for (const char* name : {"attn_k.weight", "attn_v.weight", "attn_k_norm.weight"}) {
      if (w.Contains(p + name)) EDGEQ_RETURN_IF_ERROR(w.Get(p + name).status());
    }
    EDGEQ_ASSIGN_OR_RETURN(auto rows, b.KvRows(src));
    k_new = rows.first;
    v_new = rows.second;
  }
  const Value o =
      ops::Attention(q, g.Input(io::KCache(src)), g.Input(io::VCache(src)), k_new, v_new,
                     b.positions, c.attention_scale, swa ? c.sliding_window : 0, src == layer);
  return Linear(g, w, p + "attn_output.weight", dim, q_dim, o);
}

// The per-layer embedding of `layer` gated into x [t, dim].
absl::StatusOr<Value> PerLayerEmbedding(LayerGraph& b, int layer, Value x) {
  const ModelConfig& c = b.config();
  Graph& g = b.graph();
  const int64_t t = b.t(), dim = c.embedding_length, pl = c.embedding_length_per_layer;
  const std::string p = absl::StrCat("blk.", layer, ".");
  EDGEQ_ASSIGN_OR_RETURN(Value gate, Linear(g, b.weights(), p + "inp_gate.weight", pl, dim, x));
  gate = GeluTanh(gate, c.gelu_fp16_table);
  const Value in = ops::Slice(b.per_layer_inputs, {0, layer * pl}, {t, (layer + 1) * pl});
  EDGEQ_ASSIGN_OR_RETURN(Value proj,
                         Linear(g, b.weights(), p + "proj.weight", dim, pl, ops::Mul(gate, in)));
  EDGEQ_ASSIGN_OR_RETURN(proj, b.Norm(layer, "post_norm.weight", proj));
  return ops::Add(x, proj);
}

}  // namespace

absl::StatusOr<Value> Gemma4Layer(LayerGraph& b, int layer, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value h, b.Norm(layer, "attn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value attn, Gemma4Attention(b, layer, h));
  EDGEQ_ASSIGN_OR_RETURN(attn, b.Norm(layer, "post_attention_norm.weight", attn));
  x = ops::Add(attn, x);
  EDGEQ_ASSIGN_OR_RETURN(x, b.KeepOutputRow(layer, x));
  EDGEQ_ASSIGN_OR_RETURN(h, b.Norm(layer, "ffn_norm.weight", x));
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, b.FeedForward(layer, h));
  EDGEQ_ASSIGN_OR_RETURN(ffn, b.Norm(layer, "post_ffw_norm.weight", ffn));
  x = ops::Add(ffn, x);
  if (b.config().embedding_length_per_layer > 0) {
    EDGEQ_ASSIGN_OR_RETURN(x, PerLayerEmbedding(b, layer, x));
  }
  const std::string scale = absl::StrCat("blk.", layer, ".layer_output_scale.weight");
  if (b.weights().Contains(scale)) {
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* s, b.weights().Get(scale));
    if (s->is_quantized() || s->dtype() != DType::kFloat32 || s->shape() != Shape({1})) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor '%s' is %s, expected f32 [1]", scale, s->DebugString()));
    }
    x = ops::Mul(x, b.graph().Constant(*s));
  }
  return x;
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
