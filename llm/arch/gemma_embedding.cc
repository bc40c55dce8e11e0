// gemma-embedding (EmbeddingGemma), as llama.cpp's src/models/gemma-embedding.cpp: gemma3 layers
// (embeddings x sqrt(dim), RMSNorm before and after each sub-block, q/k head norms, RoPE on
// halves with the sliding-window layers' own base, GeGLU with ggml's fp16-table GELU) with
// bidirectional attention, the sliding-window layers seeing positions within half the window
// either side; then the output norm. The dense projections after pooling: BuildDenseGraph.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/bert.h"
#include "llm/ops.h"

namespace edgeq {
namespace llm {
namespace arch {
namespace {

// ggml_rope's angles per position for `pairs` pairs: base^(-2i/dims), as theta_scale powers.
absl::StatusOr<Tensor> InvFreq(float base, int64_t dims) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, {dims / 2}));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> f, t.MutableValues<float>());
  const float theta_scale = std::pow(base, -2.0f / static_cast<float>(dims));
  float theta = 1.0f;
  for (float& v : f) {
    v = theta;
    theta *= theta_scale;
  }
  return t;
}

struct GemmaInputs {
  Value positions, mask, mask_swa, freqs, freqs_swa;
};

// Bidirectional grouped-query attention of the normed x [t, dim]: [t, dim].
absl::StatusOr<Value> GemmaAttention(Graph& g, const WeightReader& w, const EncoderConfig& c,
                                     const GemmaInputs& in, int layer, int64_t t, Value x) {
  const std::string p = absl::StrCat("blk.", layer, ".");
  const int64_t h = c.heads, kvh = c.kv_heads, hs = c.head_dim, group = h / kvh;
  EDGEQ_ASSIGN_OR_RETURN(Value q, Linear(g, w, p + "attn_q.weight", h * hs, c.dim, x));
  EDGEQ_ASSIGN_OR_RETURN(Value k, Linear(g, w, p + "attn_k.weight", kvh * hs, c.dim, x));
  EDGEQ_ASSIGN_OR_RETURN(Value v, Linear(g, w, p + "attn_v.weight", kvh * hs, c.dim, x));
  EDGEQ_ASSIGN_OR_RETURN(
      q, Norm(g, w, p + "attn_q_norm.weight", hs, c.rms_eps, ops::Reshape(q, {t, h, hs})));
  EDGEQ_ASSIGN_OR_RETURN(
      k, Norm(g, w, p + "attn_k_norm.weight", hs, c.rms_eps, ops::Reshape(k, {t, kvh, hs})));
  const bool swa = c.sliding_window > 0 && c.sliding_layers[layer];
  q = Rope(q, in.positions, swa ? in.freqs_swa : in.freqs, RopeMode::kNeox);
  k = Rope(k, in.positions, swa ? in.freqs_swa : in.freqs, RopeMode::kNeox);
  EDGEQ_ASSIGN_OR_RETURN(Value scale, Scalar(g, 1.0f / std::sqrt(static_cast<float>(hs))));
  q = ops::Mul(q, scale);
  // Heads g*j .. g*j+g-1 share kv head j: q as [kv heads, group * t, hs].
  q = ops::Reshape(ops::Transpose(q, {1, 0, 2}), {kvh, group * t, hs});
  k = ops::Transpose(k, {1, 0, 2});
  v = ops::Transpose(ops::Reshape(v, {t, kvh, hs}), {1, 0, 2});
  Value scores = ops::Reshape(ops::MatmulTransposed(q, k), {h, t, t});
  scores = ops::Add(scores, swa ? in.mask_swa : in.mask);
  Value probs = ops::Reshape(ops::Softmax(scores), {kvh, group * t, t});
  Value out = ops::Reshape(ops::Matmul(probs, v), {h, t, hs});
  out = ops::Reshape(ops::Transpose(out, {1, 0, 2}), {t, h * hs});
  return Linear(g, w, p + "attn_output.weight", c.dim, h * hs, out);
}

absl::StatusOr<Value> GemmaLayer(Graph& g, const WeightReader& w, const EncoderConfig& c,
                                 const GemmaInputs& in, int layer, int64_t t, Value x) {
  const std::string p = absl::StrCat("blk.", layer, ".");
  EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(g, w, p + "attn_norm.weight", c.dim, c.rms_eps, x));
  EDGEQ_ASSIGN_OR_RETURN(Value attn, GemmaAttention(g, w, c, in, layer, t, h));
  EDGEQ_ASSIGN_OR_RETURN(attn,
                         Norm(g, w, p + "post_attention_norm.weight", c.dim, c.rms_eps, attn));
  x = ops::Add(attn, x);
  EDGEQ_ASSIGN_OR_RETURN(h, Norm(g, w, p + "ffn_norm.weight", c.dim, c.rms_eps, x));
  EDGEQ_ASSIGN_OR_RETURN(Value gate, Linear(g, w, p + "ffn_gate.weight", c.ffn, c.dim, h));
  EDGEQ_ASSIGN_OR_RETURN(Value up, Linear(g, w, p + "ffn_up.weight", c.ffn, c.dim, h));
  Value act = ops::Mul(GeluTanh(gate, /*half_precision_table=*/true), up);
  EDGEQ_ASSIGN_OR_RETURN(Value ffn, Linear(g, w, p + "ffn_down.weight", c.dim, c.ffn, act));
  EDGEQ_ASSIGN_OR_RETURN(ffn, Norm(g, w, p + "post_ffw_norm.weight", c.dim, c.rms_eps, ffn));
  return ops::Add(ffn, x);
}

}  // namespace

absl::Status GemmaEmbeddingConfig(const checkpoint::TensorDict& d, EncoderConfig* c) {
  const std::string& a = c->architecture;
  EDGEQ_ASSIGN_OR_RETURN(c->kv_heads,
                         OptionalInt(d, Key(a, "attention.head_count_kv"), c->heads, kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(
      c->head_dim, OptionalInt(d, Key(a, "attention.key_length"), c->dim / c->heads, kMaxHeadDim));
  if (c->heads % c->kv_heads != 0 || c->head_dim % 2 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %d heads, %d kv heads, head dimension %d; expected heads a multiple of kv heads "
        "and an even head dimension",
        a, c->heads, c->kv_heads, c->head_dim));
  }
  EDGEQ_ASSIGN_OR_RETURN(double eps,
                         OptionalFloat(d, Key(a, "attention.layer_norm_rms_epsilon"), 1e-6));
  c->rms_eps = static_cast<float>(eps);
  EDGEQ_ASSIGN_OR_RETURN(c->sliding_window, OptionalInt(d, Key(a, "attention.sliding_window"), 0));
  EDGEQ_ASSIGN_OR_RETURN(int64_t period,
                         OptionalInt(d, Key(a, "attention.sliding_window_pattern"), 6));
  for (int64_t l = 0; l < c->layers; ++l) c->sliding_layers.push_back(l % period < period - 1);
  EDGEQ_ASSIGN_OR_RETURN(double base_swa,
                         OptionalFloat(d, Key(a, "rope.freq_base_swa"), c->rope_base));
  c->rope_base_swa = static_cast<float>(base_swa);
  EDGEQ_ASSIGN_OR_RETURN(c->dense_2_out,
                         OptionalInt(d, Key(a, "dense_2_feat_out"), 0, kMaxEmbedding));
  EDGEQ_ASSIGN_OR_RETURN(c->dense_3_in,
                         OptionalInt(d, Key(a, "dense_3_feat_in"), 0, kMaxEmbedding));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Graph>> BuildGemmaEmbeddingGraph(const WeightReader& w,
                                                                const EncoderConfig& c, int64_t t) {
  auto graph =
      std::make_unique<Graph>(absl::StrCat(c.architecture, "_t", t), std::vector<TensorType>{});
  Graph& g = *graph;
  GemmaInputs in;
  const Value tokens = g.AddInput(io::kTokens, TensorType(DType::kInt32, {t}));
  in.positions = g.AddInput(io::kPositions, TensorType(DType::kInt32, {t}));
  in.mask = g.AddInput(kAttentionMask, TensorType(DType::kFloat32, {t, t}));
  in.mask_swa = g.AddInput(kAttentionMaskSwa, TensorType(DType::kFloat32, {t, t}));
  EDGEQ_ASSIGN_OR_RETURN(Tensor freqs, InvFreq(c.rope_base, c.head_dim));
  EDGEQ_ASSIGN_OR_RETURN(Tensor freqs_swa, InvFreq(c.rope_base_swa, c.head_dim));
  in.freqs = g.Constant(freqs);
  in.freqs_swa = g.Constant(freqs_swa);
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* embd, w.Get("token_embd.weight"));
  EDGEQ_ASSIGN_OR_RETURN(Value scale, Scalar(g, std::sqrt(static_cast<float>(c.dim))));
  Value x = ops::Mul(ops::Gather(g.Constant(*embd), tokens), scale);
  for (int l = 0; l < c.layers; ++l) {
    EDGEQ_ASSIGN_OR_RETURN(x, GemmaLayer(g, w, c, in, l, t, x));
  }
  EDGEQ_ASSIGN_OR_RETURN(x, Norm(g, w, "output_norm.weight", c.dim, c.rms_eps, x));
  g.Output(io::kHidden, x);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

absl::StatusOr<std::unique_ptr<Graph>> BuildDenseGraph(const WeightReader& w,
                                                       const EncoderConfig& c) {
  const bool d2 = w.Contains("dense_2.weight"), d3 = w.Contains("dense_3.weight");
  if (!d2 && !d3) return nullptr;
  if (d2 != d3 || c.dense_2_out <= 0 || c.dense_3_in != c.dense_2_out) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: dense_2/dense_3 with feature sizes %d, %d; expected both tensors and "
                        "dense_2_feat_out == dense_3_feat_in",
                        c.architecture, c.dense_2_out, c.dense_3_in));
  }
  auto graph =
      std::make_unique<Graph>(absl::StrCat(c.architecture, "_dense"), std::vector<TensorType>{});
  Graph& g = *graph;
  Value x = g.AddInput(io::kHidden, TensorType(DType::kFloat32, {1, c.dim}));
  EDGEQ_ASSIGN_OR_RETURN(x, Linear(g, w, "dense_2.weight", c.dense_2_out, c.dim, x));
  EDGEQ_ASSIGN_OR_RETURN(x, Linear(g, w, "dense_3.weight", c.dim, c.dense_2_out, x));
  g.Output(io::kHidden, x);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
