#include "llm/arch/common.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/recurrent_state.h"
#include "llm/ops.h"
#include "quantization/encoding.h"
#include "sdk/selection.h"

namespace edgeq {
namespace llm {
namespace {

// The matrix `name`, whose (logical, if quantized) shape must be [rows, cols].
absl::StatusOr<const Tensor*> GetMatrix(const WeightReader& dict, const std::string& name,
                                        int64_t rows, int64_t cols) {
  absl::StatusOr<const Tensor*> w = dict.Get(name);
  if (!w.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected [%d, %d])", name, rows, cols));
  }
  const Shape& logical = (*w)->logical_shape();
  if (logical != Shape({rows, cols})) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' has shape %s, expected [%d, %d]",
                                                      name, logical.ToString(), rows, cols));
  }
  return *w;
}

// The vector `name` (f32 [n]) if the dict has it, else nullptr; InvalidArgument if it has
// another shape or type.
absl::StatusOr<const Tensor*> OptionalVector(const WeightReader& dict, const std::string& name,
                                             int64_t n) {
  absl::StatusOr<const Tensor*> w = dict.Get(name);
  if (!w.ok()) return nullptr;
  if ((*w)->dtype() != DType::kFloat32 || (*w)->is_quantized() || (*w)->shape() != Shape({n})) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s, expected f32 [%d]", name, (*w)->DebugString(), n));
  }
  return *w;
}

// x + the bias `name` [n] if the dict has it.
absl::StatusOr<Value> MaybeBias(Graph& g, const WeightReader& dict, const std::string& name,
                                int64_t n, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* b, OptionalVector(dict, name, n));
  return b == nullptr ? x : ops::Add(x, g.Constant(*b));
}

}  // namespace

namespace arch {
TensorType KvCacheTensorType(KvCacheType type, int64_t kv_heads, int64_t ctx, int64_t head_dim) {
  switch (type) {
    case KvCacheType::kQ8_0:
      return TensorType(DType::kUInt8, Shape({kv_heads, ctx, Q8_0RowBytes(head_dim)}));
    case KvCacheType::kF16:
      return TensorType(DType::kFloat16, Shape({kv_heads, ctx, head_dim}));
    case KvCacheType::kF32:
      break;
  }
  return TensorType(DType::kFloat32, Shape({kv_heads, ctx, head_dim}));
}
}  // namespace arch

namespace io {
std::string KCache(int layer) { return absl::StrCat("cache.", layer, ".k"); }
std::string VCache(int layer) { return absl::StrCat("cache.", layer, ".v"); }
}  // namespace io

absl::StatusOr<LinearWeight> AddLinearWeight(Graph& g, const WeightReader& dict,
                                             const std::string& name, int64_t rows, int64_t cols) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, GetMatrix(dict, name, rows, cols));
  LinearWeight lw;
  if (w->is_quantized()) {
    absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(w->encoding());
    if (!enc.ok()) {
      return absl::UnimplementedError(absl::StrFormat(
          "tensor '%s' has block type %s, which edgeq cannot run", name, w->encoding()));
    }
    lw.encoding = *enc;
  } else if (w->dtype() != DType::kFloat32) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s; expected f32, f16 or a quantized block type", name,
                        DTypeName(w->dtype())));
  }
  lw.w = g.Constant(*w);
  return lw;
}

Value LinearWeight::Apply(Value x) const {
  return encoding != nullptr ? ops::QMatmul(*encoding, x, w) : ops::MatmulTransposed(x, w);
}

// Adds the weight `name` as a constant and returns x · W^T: QMatmul for a quantized weight,
// MatmulTransposed for f32. `rows` x `cols` is the expected logical shape [out, in].
absl::StatusOr<Value> Linear(Graph& g, const WeightReader& dict, const std::string& name,
                             int64_t rows, int64_t cols, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(LinearWeight lw, AddLinearWeight(g, dict, name, rows, cols));
  return lw.Apply(x);
}

absl::StatusOr<Value> Norm(Graph& g, const WeightReader& dict, const std::string& name, int64_t dim,
                           float eps, Value x) {
  absl::StatusOr<const Tensor*> w = dict.Get(name);
  if (!w.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected f32 [%d])", name, dim));
  }
  if ((*w)->dtype() != DType::kFloat32 || (*w)->is_quantized() || (*w)->shape() != Shape({dim})) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s, expected f32 [%d]", name, (*w)->DebugString(), dim));
  }
  return ops::RmsNorm(x, g.Constant(**w), eps);
}

absl::StatusOr<Value> Scalar(Graph& g, float v) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Full({1}, v));
  return g.Constant(t);
}

absl::StatusOr<Value> LayerGraph::Norm(int layer, const char* name, Value x, int64_t n) {
  return llm::Norm(g_, dict_, absl::StrCat("blk.", layer, ".", name),
                   n > 0 ? n : c_.embedding_length, c_.rms_norm_epsilon, x);
}

absl::StatusOr<LayerGraph::QkvWeights> LayerGraph::AddQkvWeights(int layer) {
  const int64_t dim = c_.embedding_length;
  const int64_t q_dim = c_.head_count * c_.head_dim, kv_dim = c_.head_count_kv * c_.head_dim;
  const std::string p = absl::StrCat("blk.", layer, ".");
  QkvWeights w;
  w.fused = dict_.Contains(p + "attn_qkv.weight");
  if (w.fused) {
    EDGEQ_ASSIGN_OR_RETURN(
        w.qkv, AddLinearWeight(g_, dict_, p + "attn_qkv.weight", q_dim + 2 * kv_dim, dim));
    return w;
  }
  const int64_t q_rows = c_.gated_q ? 2 * q_dim : q_dim;
  EDGEQ_ASSIGN_OR_RETURN(w.q, AddLinearWeight(g_, dict_, p + "attn_q.weight", q_rows, dim));
  EDGEQ_ASSIGN_OR_RETURN(w.k, AddLinearWeight(g_, dict_, p + "attn_k.weight", kv_dim, dim));
  EDGEQ_ASSIGN_OR_RETURN(w.v, AddLinearWeight(g_, dict_, p + "attn_v.weight", kv_dim, dim));
  return w;
}

absl::StatusOr<LayerGraph::QkvRows> LayerGraph::ProjectQkv(int layer, const QkvWeights& w, Value h,
                                                           int64_t n, Value pos) {
  const int64_t hs = c_.head_dim, heads = c_.head_count, kvh = c_.head_count_kv;
  const int64_t q_dim = heads * hs, kv_dim = kvh * hs;
  const std::string p = absl::StrCat("blk.", layer, ".");
  QkvRows r;
  Value q, k;
  if (w.fused) {
    EDGEQ_ASSIGN_OR_RETURN(
        Value qkv, MaybeBias(g_, dict_, p + "attn_qkv.bias", q_dim + 2 * kv_dim, w.qkv.Apply(h)));
    q = ops::Slice(qkv, {0, 0}, {n, q_dim});
    k = ops::Slice(qkv, {0, q_dim}, {n, q_dim + kv_dim});
    r.v = ops::Slice(qkv, {0, q_dim + kv_dim}, {n, q_dim + 2 * kv_dim});
  } else {
    const int64_t q_rows = c_.gated_q ? 2 * q_dim : q_dim;
    q = w.q.Apply(h);
    k = w.k.Apply(h);
    r.v = w.v.Apply(h);
    EDGEQ_ASSIGN_OR_RETURN(q, MaybeBias(g_, dict_, p + "attn_q.bias", q_rows, q));
    EDGEQ_ASSIGN_OR_RETURN(k, MaybeBias(g_, dict_, p + "attn_k.bias", kv_dim, k));
    EDGEQ_ASSIGN_OR_RETURN(r.v, MaybeBias(g_, dict_, p + "attn_v.bias", kv_dim, r.v));
  }
  if (c_.gated_q) {  // per head, the query then the output gate (qwen35)
    const Value qg = ops::Reshape(q, {n, heads, 2 * hs});
    q = ops::Slice(qg, {0, 0, 0}, {n, heads, hs});
    r.gate = ops::Reshape(ops::Slice(qg, {0, 0, hs}, {n, heads, 2 * hs}), {n, q_dim});
  } else {
    q = ops::Reshape(q, {n, heads, hs});
  }
  k = ops::Reshape(k, {n, kvh, hs});
  if (c_.qk_norm) {  // RMSNorm of each head (Qwen3, Gemma 3)
    EDGEQ_ASSIGN_OR_RETURN(q, Norm(layer, "attn_q_norm.weight", q, hs));
    EDGEQ_ASSIGN_OR_RETURN(k, Norm(layer, "attn_k_norm.weight", k, hs));
  }
  const bool swa = c_.IsSliding(layer);
  const bool rope = c_.no_rope_layer_step <= 0 || (layer + 1) % c_.no_rope_layer_step != 0;
  if (rope) {
    const RopeMode mode = c_.rope_type == arch::RopeType::kNeox ? RopeMode::kNeox : RopeMode::kNorm;
    q = Rope(q, pos, swa ? freqs_swa : freqs, mode);
    k = Rope(k, pos, swa ? freqs_swa : freqs, mode);
    if (attn_factor.ok()) {
      q = ops::Mul(q, *attn_factor);
      k = ops::Mul(k, *attn_factor);
    }
  }
  r.q = q;
  r.k = k;
  return r;
}

absl::StatusOr<Value> LayerGraph::Attention(int layer, Value h) {
  const int64_t t = t_, dim = c_.embedding_length, hs = c_.head_dim;
  const int64_t kvh = c_.head_count_kv, q_dim = c_.head_count * hs;
  const std::string p = absl::StrCat("blk.", layer, ".");
  const bool swa = c_.IsSliding(layer);
  const Value k_cache = g_.Input(io::KCache(layer)), v_cache = g_.Input(io::VCache(layer));
  EDGEQ_ASSIGN_OR_RETURN(const QkvWeights w, AddQkvWeights(layer));
  EDGEQ_ASSIGN_OR_RETURN(const QkvRows r, ProjectQkv(layer, w, h, t, positions));
  const Value k_new = r.k;                              // [t, kvh, hs]
  const Value v_new = ops::Reshape(r.v, {t, kvh, hs});  // [t, kvh, hs]
  // Fused attention over the cache's first `pos` rows and the block (causal; within the
  // window on sliding-window layers), reading only the visible rows: [t, heads * hs]; it writes
  // the block's K/V rows into the cache (store_kv).
  Value o_rows = ops::Attention(r.q, k_cache, v_cache, k_new, v_new, positions, c_.attention_scale,
                                swa ? c_.sliding_window : 0, true);
  if (c_.gated_q) o_rows = ops::Mul(o_rows, ops::Op("sigmoid", {r.gate}));
  EDGEQ_ASSIGN_OR_RETURN(Value out,
                         Linear(g_, dict_, p + "attn_output.weight", dim, q_dim, o_rows));
  EDGEQ_ASSIGN_OR_RETURN(out, MaybeBias(g_, dict_, p + "attn_output.bias", dim, out));
  AddKvRows(layer, k_new, v_new);
  return out;
}

int LayerGraph::StateSlot(int layer, int k) const {
  for (size_t s = 0; s < c_.recurrent_states.size(); ++s) {
    if (c_.recurrent_states[s].layer == layer && k-- == 0) return static_cast<int>(s);
  }
  return -1;
}

Value LayerGraph::StateInput(int slot) { return g_.Input(io::State(slot)); }

void LayerGraph::SetStateOutput(int slot, Value v) {
  states_set_.resize(c_.recurrent_states.size(), false);
  states_set_[static_cast<size_t>(slot)] = true;
  g_.Output(io::NewState(slot), v);
}

absl::StatusOr<Value> LayerGraph::KeepOutputRow(int layer, Value x) {
  if (!output_row.ok() || layer != c_.block_count - 1) return x;
  if (output_row_kept_) {
    return absl::InternalError(
        absl::StrFormat("layer %d keeps the output row a second time", layer));
  }
  output_row_kept_ = true;
  t_ = 1;
  if (per_layer_inputs.ok()) per_layer_inputs = ops::Gather(per_layer_inputs, output_row);
  real_rows = Value();
  return ops::Gather(x, output_row);  // [1, dim]
}

void LayerGraph::AddKvRows(int layer, Value k, Value v) { kv_rows_[layer] = {k, v}; }

absl::StatusOr<std::pair<Value, Value>> LayerGraph::KvRows(int layer) const {
  auto it = kv_rows_.find(layer);
  if (it == kv_rows_.end()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("layer %d has no K/V rows in this graph", layer));
  }
  return it->second;
}

int64_t FfnChunkRows(int64_t ffn, int64_t t) {
  if (t * ffn * 12 <= kFfnOnePieceBytes) return 0;
  int64_t rows = kFfnChunkRows;
  while (2 * rows * ffn * 12 <= kFfnChunkBytes) rows *= 2;
  return rows;
}

namespace {

// A dense gated feed-forward's weights, added once as constants, applied to any row block.
struct DenseFfn {
  LinearWeight gate, up, down;
  int64_t hidden = 0;
  bool fused = false;  // Phi-3: ffn_up is [2 ffn, dim], the gate rows first
  bool gelu = false;   // Gemma's GeGLU (tanh GELU) instead of SwiGLU
  bool gelu_fp16_table = true;

  // Gate, up, activation and down of x [rows, dim]: [rows, dim].
  Value Rows(Value x, int64_t rows) const {
    Value g, u;
    if (fused) {
      const Value gu = up.Apply(x);
      g = ops::Slice(gu, {0, 0}, {rows, hidden});
      u = ops::Slice(gu, {0, hidden}, {rows, 2 * hidden});
    } else {
      g = gate.Apply(x);
      u = up.Apply(x);
    }
    // SwiGLU in one pass; Gemma's GeGLU as tanh-GELU, then the product.
    const Value gated = gelu ? ops::Mul(GeluTanh(g, gelu_fp16_table), u) : ops::SwiGlu(g, u);
    return down.Apply(gated);
  }
};

absl::StatusOr<DenseFfn> AddDenseFfn(Graph& g, const WeightReader& dict, const ModelConfig& c,
                                     int layer) {
  const int64_t dim = c.embedding_length, hidden = c.LayerFeedForward(layer);
  const std::string p = absl::StrCat("blk.", layer, ".");
  DenseFfn f;
  f.hidden = hidden;
  f.fused = c.fused_gate_up;
  f.gelu = c.ffn_activation == arch::Activation::kGeluTanh;
  f.gelu_fp16_table = c.gelu_fp16_table;
  if (f.fused) {
    EDGEQ_ASSIGN_OR_RETURN(f.up, AddLinearWeight(g, dict, p + "ffn_up.weight", 2 * hidden, dim));
  } else {
    EDGEQ_ASSIGN_OR_RETURN(f.gate, AddLinearWeight(g, dict, p + "ffn_gate.weight", hidden, dim));
    EDGEQ_ASSIGN_OR_RETURN(f.up, AddLinearWeight(g, dict, p + "ffn_up.weight", hidden, dim));
  }
  EDGEQ_ASSIGN_OR_RETURN(f.down, AddLinearWeight(g, dict, p + "ffn_down.weight", dim, hidden));
  return f;
}

// The row ranges [r0, r1) of a block of t rows in chunks of `chunk` rows, the last one taking the
// rest (chunk to 2 chunk - 1 rows); one range if chunk <= 0 or t < 2 chunk.
std::vector<std::pair<int64_t, int64_t>> RowChunks(int64_t t, int64_t chunk) {
  std::vector<std::pair<int64_t, int64_t>> ranges;
  if (chunk <= 0 || t < 2 * chunk) return {{0, t}};
  for (int64_t r0 = 0; r0 < t;) {
    const int64_t r1 = t - r0 < 2 * chunk ? t : r0 + chunk;
    ranges.emplace_back(r0, r1);
    r0 = r1;
  }
  return ranges;
}

}  // namespace

// A mixture-of-experts layer runs the moe op: a build whose op list leaves it out
// (sdk/selection.bzl: no kept architecture with experts and no graph C API) leaves out its graph
// builder (llm/arch/moe.cc) too (README, "Footprint").
constexpr bool kMoeInBuild = selection::Selected(selection::kOps, "moe");
// Per-layer embeddings are Gemma 4's (llm/arch/gemma4.cc): a build without it leaves them out.
constexpr bool kPerLayerInputsInBuild = selection::Selected(selection::kArchs, "gemma4");

absl::StatusOr<Value> LayerGraph::FeedForward(int layer, Value h) {
  if (c_.IsMoeLayer(layer)) {
    if (!kMoeInBuild) {
      return absl::UnimplementedError(absl::StrCat(
          "layer ", layer, ": mixture-of-experts layers are not in this build (built with: ",
          selection::BuiltWith(selection::kArchs), ")"));
    }
    return arch::MoeFeedForward(*this, layer, h);
  }
  const int64_t dim = c_.embedding_length;
  EDGEQ_ASSIGN_OR_RETURN(const DenseFfn ffn, AddDenseFfn(g_, dict_, c_, layer));
  const int64_t chunk =
      ffn_chunk_rows_ == kFfnChunkAuto ? FfnChunkRows(ffn.hidden, t_) : ffn_chunk_rows_;
  const std::vector<std::pair<int64_t, int64_t>> ranges = RowChunks(t_, chunk);
  if (ranges.size() == 1) return ffn.Rows(h, t_);
  // Row chunks: the [t, ffn]-wide intermediates exist for one chunk at a time. Every kernel is
  // row-independent and each chunk starts at a multiple of `chunk` (a power of two >= 64, a
  // multiple of every kernel's row tile), so the rows are computed exactly as in one piece.
  std::vector<Value> parts;
  for (const auto& [r0, r1] : ranges) {
    parts.push_back(ffn.Rows(ops::Slice(h, {r0, 0}, {r1, dim}), r1 - r0));
  }
  return ops::Concat(parts, 0);
}

absl::StatusOr<Value> LayerGraph::NormFeedForwardAdd(int layer, const char* norm, Value x) {
  const int64_t chunk = c_.IsMoeLayer(layer) ? 0
                        : ffn_chunk_rows_ == kFfnChunkAuto
                            ? FfnChunkRows(c_.LayerFeedForward(layer), t_)
                            : ffn_chunk_rows_;
  const std::vector<std::pair<int64_t, int64_t>> ranges = RowChunks(t_, chunk);
  if (ranges.size() == 1) {
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(layer, norm, x));
    EDGEQ_ASSIGN_OR_RETURN(Value f, FeedForward(layer, h));
    return ops::Add(x, f);
  }
  // Per chunk: its rows of x, their norm, feed-forward and residual add (all row by row: the
  // values of the one-piece steps); the normed rows and the intermediates of one chunk at a time.
  const int64_t dim = c_.embedding_length;
  EDGEQ_ASSIGN_OR_RETURN(const DenseFfn ffn, AddDenseFfn(g_, dict_, c_, layer));
  std::vector<Value> parts;
  for (const auto& [r0, r1] : ranges) {
    const Value rows = ops::Slice(x, {r0, 0}, {r1, dim});
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(layer, norm, rows));
    parts.push_back(ops::Add(rows, ffn.Rows(h, r1 - r0)));
  }
  return ops::Concat(parts, 0);
}

int64_t AttentionChunkRows(int64_t row_bytes, int64_t t) {
  return t * row_bytes > kAttentionOnePieceBytes ? kFfnChunkRows : 0;
}

absl::StatusOr<Value> LayerGraph::NormAttentionAdd(int layer, const char* norm, Value x) {
  const int64_t dim = c_.embedding_length, q_dim = c_.head_count * c_.head_dim;
  const int64_t kv_dim = c_.head_count_kv * c_.head_dim;
  const int64_t chunk = ffn_chunk_rows_ == kFfnChunkAuto
                            ? AttentionChunkRows(4 * (dim + q_dim + 2 * kv_dim), t_)
                            : ffn_chunk_rows_;
  const std::vector<std::pair<int64_t, int64_t>> ranges = RowChunks(t_, chunk);
  const std::string p = absl::StrCat("blk.", layer, ".");
  if (ranges.size() == 1 || c_.gated_q || dict_.Contains(p + "attn_qkv.weight")) {
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(layer, norm, x));
    EDGEQ_ASSIGN_OR_RETURN(Value a, Attention(layer, h));
    return ops::Add(x, a);
  }
  return ChunkedAttentionAdd(layer, norm, x, ranges);
}

absl::StatusOr<Value> LayerGraph::ChunkedAttentionAdd(
    int layer, const char* norm, Value x, const std::vector<std::pair<int64_t, int64_t>>& ranges) {
  const int64_t t = t_, dim = c_.embedding_length, hs = c_.head_dim;
  const int64_t kvh = c_.head_count_kv, q_dim = c_.head_count * hs;
  const std::string p = absl::StrCat("blk.", layer, ".");
  const bool swa = c_.IsSliding(layer);
  EDGEQ_ASSIGN_OR_RETURN(const QkvWeights w, AddQkvWeights(layer));
  EDGEQ_ASSIGN_OR_RETURN(const LinearWeight wo,
                         AddLinearWeight(g_, dict_, p + "attn_output.weight", dim, q_dim));
  // Per chunk, the steps of Attention's projections on its rows (all row by row); the runtime
  // computes each chunk's rows into the concatenation's buffer.
  std::vector<Value> qs, ks, vs;
  for (const auto& [r0, r1] : ranges) {
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(layer, norm, ops::Slice(x, {r0, 0}, {r1, dim})));
    EDGEQ_ASSIGN_OR_RETURN(const QkvRows r,
                           ProjectQkv(layer, w, h, r1 - r0, ops::Slice(positions, {r0}, {r1})));
    qs.push_back(r.q);
    ks.push_back(r.k);
    vs.push_back(r.v);
  }
  const Value k_new = ops::Concat(ks, 0);
  const Value v_new = ops::Reshape(ops::Concat(vs, 0), {t, kvh, hs});
  // The whole block's attention (its output may take the query's bytes), as Attention.
  const Value o = ops::Attention(ops::Concat(qs, 0), g_.Input(io::KCache(layer)),
                                 g_.Input(io::VCache(layer)), k_new, v_new, positions,
                                 c_.attention_scale, swa ? c_.sliding_window : 0, true);
  AddKvRows(layer, k_new, v_new);
  // Per chunk, attn_output and the residual add (each written over its rows of x).
  std::vector<Value> parts;
  for (const auto& [r0, r1] : ranges) {
    EDGEQ_ASSIGN_OR_RETURN(Value out, MaybeBias(g_, dict_, p + "attn_output.bias", dim,
                                                wo.Apply(ops::Slice(o, {r0, 0}, {r1, q_dim}))));
    parts.push_back(ops::Add(ops::Slice(x, {r0, 0}, {r1, dim}), out));
  }
  return ops::Concat(parts, 0);
}

absl::StatusOr<std::unique_ptr<Graph>> BuildBodyGraph(const WeightReader& dict,
                                                      const ModelConfig& c, int64_t ctx,
                                                      KvCacheType cache_type,
                                                      const Tensor& inv_freq,
                                                      const Tensor& inv_freq_swa, int64_t t,
                                                      int64_t ffn_chunk_rows, BodyRows rows) {
  const int64_t dim = c.embedding_length, kvh = c.head_count_kv;
  auto graph = std::make_unique<Graph>(
      absl::StrCat(c.architecture, "_t", t, rows == BodyRows::kOutputRow ? "_row" : ""),
      std::vector<TensorType>{});
  Graph& g = *graph;
  const Value tokens = g.AddInput(io::kTokens, TensorType(DType::kInt32, {t}));
  const Value positions = g.AddInput(io::kPositions, TensorType(DType::kInt32, {t}));
  // The caches of the attention layers that have one (not recurrent: lfm2, qwen35; the first
  // CachedLayers(): gemma4's shared layers read an earlier layer's), at the layer's head dimension.
  for (int l = 0; l < c.block_count; ++l) {
    if (!c.HasKvCache(l)) continue;
    const TensorType cache_type_of =
        arch::KvCacheTensorType(cache_type, kvh, ctx, c.LayerHeadDim(l));
    g.AddInput(io::KCache(l), cache_type_of);
    g.AddInput(io::VCache(l), cache_type_of);
  }
  // Recurrent layers: their states and the block's real token count.
  for (size_t s = 0; s < c.recurrent_states.size(); ++s) {
    g.AddInput(io::State(static_cast<int>(s)),
               TensorType(DType::kFloat32, Shape(c.recurrent_states[s].shape)));
  }
  const Value real_rows = c.recurrent_states.empty()
                              ? Value()
                              : g.AddInput(io::kRealRows, TensorType(DType::kInt32, {1}));
  const Value output_row = rows == BodyRows::kOutputRow
                               ? g.AddInput(io::kOutputRow, TensorType(DType::kInt32, {1}))
                               : Value();

  EDGEQ_ASSIGN_OR_RETURN(const Tensor* embedding,
                         GetMatrix(dict, "token_embd.weight", c.vocab_size, dim));
  Value x = ops::Gather(g.Constant(*embedding), tokens);  // [t, dim]
  if (c.embedding_scale != 1.0f) {
    EDGEQ_ASSIGN_OR_RETURN(Value s, Scalar(g, c.embedding_scale));
    x = ops::Mul(x, s);
  }
  LayerGraph b(g, dict, c, t);
  b.set_ffn_chunk_rows(ffn_chunk_rows);
  b.positions = positions;
  b.freqs = g.Constant(inv_freq);
  b.freqs_swa = g.Constant(inv_freq_swa);
  if (c.rope_attn_factor != 1.0f) b.attn_factor = Scalar(g, c.rope_attn_factor);
  b.real_rows = real_rows;
  b.output_row = output_row;
  if (c.embedding_length_per_layer > 0) {
    if (!kPerLayerInputsInBuild) {
      return absl::UnimplementedError(
          absl::StrCat("per-layer embeddings (Gemma 4) are not in this build (built with: ",
                       selection::BuiltWith(selection::kArchs), ")"));
    }
    EDGEQ_ASSIGN_OR_RETURN(b.per_layer_inputs, arch::Gemma4PerLayerInputs(b, tokens, x));
  }
  const arch::LayerFn layer = arch::Info(c.arch).build_layer;
  for (int l = 0; l < c.block_count; ++l) {
    EDGEQ_ASSIGN_OR_RETURN(x, layer(b, l, x));
  }
  if (output_row.ok() && !b.output_row_kept()) {
    return absl::InternalError(absl::StrFormat(
        "the %s layer function does not keep the output row (LayerGraph::KeepOutputRow)",
        c.architecture));
  }
  for (size_t s = 0; s < c.recurrent_states.size(); ++s) {
    if (!b.state_set(static_cast<int>(s))) {
      return absl::InternalError(
          absl::StrFormat("the %s graph sets no new value of recurrent state %d (layer %d)",
                          c.architecture, s, c.recurrent_states[s].layer));
    }
  }
  g.Output(io::kHidden, x);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

// Output norm and classifier: input [1, dim] -> logits [1, vocab].
absl::StatusOr<std::unique_ptr<Graph>> BuildHeadGraph(const WeightReader& dict,
                                                      const ModelConfig& c) {
  const int64_t dim = c.embedding_length;
  auto graph =
      std::make_unique<Graph>(absl::StrCat(c.architecture, "_head"), std::vector<TensorType>{});
  Graph& g = *graph;
  const Value hidden = g.AddInput(io::kHidden, TensorType(DType::kFloat32, {1, dim}));
  EDGEQ_ASSIGN_OR_RETURN(Value x, Norm(g, dict, c.output_norm, dim, c.rms_norm_epsilon, hidden));
  const std::string classifier = c.tied_output ? "token_embd.weight" : "output.weight";
  EDGEQ_ASSIGN_OR_RETURN(Value logits, Linear(g, dict, classifier, c.vocab_size, dim, x));
  EDGEQ_ASSIGN_OR_RETURN(logits, MaybeBias(g, dict, "output.bias", c.vocab_size, logits));
  if (c.final_logit_softcapping > 0) {  // cap * tanh(logits / cap)
    EDGEQ_ASSIGN_OR_RETURN(Value inv_cap, Scalar(g, 1.0f / c.final_logit_softcapping));
    EDGEQ_ASSIGN_OR_RETURN(Value cap, Scalar(g, c.final_logit_softcapping));
    logits = ops::Mul(Tanh(ops::Mul(logits, inv_cap)), cap);
  }
  g.Output(io::kLogits, logits);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

}  // namespace llm
}  // namespace edgeq
