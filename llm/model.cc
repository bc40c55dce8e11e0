#include "llm/model.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "checkpoint/formats.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/ops.h"
#include "quantization/block_layout.h"
#include "quantization/encoding.h"
#include "quantization/internal/codecs.h"
#include "runtime/custom_op.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

constexpr int kDefaultMaxContext = 4096;

// ---- ceilings ----
// Every hyperparameter is checked against these (above every released model) and against the
// tensors actually present before anything proportional to it is allocated, so that a file
// declaring 2^30 layers or a 2^30-wide head is refused at once with little memory.
constexpr int64_t kMaxLayers = 4096;
constexpr int64_t kMaxEmbedding = int64_t{1} << 20;
constexpr int64_t kMaxFeedForward = int64_t{1} << 22;
constexpr int64_t kMaxHeads = int64_t{1} << 14;
constexpr int64_t kMaxHeadDim = int64_t{1} << 14;
constexpr int64_t kMaxVocab = int64_t{1} << 24;
constexpr int64_t kMaxContext = int64_t{1} << 30;

// ---- metadata ----

std::string Key(const std::string& arch, absl::string_view name) {
  return absl::StrCat(arch, ".", name);
}

// A positive integer at most `max` (an integer type: a bool or a string is refused, naming the
// key and the stored type).
absl::StatusOr<int64_t> RequiredInt(const TensorDict& d, const std::string& key,
                                    int64_t max = kMaxContext) {
  if (!d.HasMetadata(key)) {
    return absl::InvalidArgumentError(absl::StrFormat("missing metadata key '%s'", key));
  }
  absl::StatusOr<int64_t> v = d.GetInt(key);
  if (!v.ok()) return absl::InvalidArgumentError(v.status().message());
  const MetadataValue& m = **d.GetMetadata(key);
  if (m.width() == MetadataValue::Width::kU64 && *v < 0) {  // above INT64_MAX
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %s; expected a positive count of at most %d", key,
                        m.DebugString(), max));
  }
  if (*v <= 0 || *v > max) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata key '%s' is %d; expected a positive count of at most %d", key, *v, max));
  }
  return *v;
}

absl::StatusOr<int64_t> OptionalInt(const TensorDict& d, const std::string& key, int64_t dflt,
                                    int64_t max = kMaxContext) {
  if (!d.HasMetadata(key)) return dflt;
  return RequiredInt(d, key, max);
}

// The layer of a "blk.N.*" tensor name (N strictly decimal), or -1 for another name, or -2 for
// a "blk." name without a valid layer number.
int64_t LayerOf(absl::string_view name) {
  if (!absl::StartsWith(name, "blk.")) return -1;
  name.remove_prefix(4);
  const size_t dot = name.find('.');
  if (dot == absl::string_view::npos) return -2;
  std::optional<int64_t> n = ParseDecimalInt64(name.substr(0, dot));
  return n.has_value() && *n >= 0 ? *n : -2;
}

// `layers` (the value of `key`) against the tensors present: every blk.N tensor must have
// N < layers, and every layer 0..layers-1 must have a tensor. Runs in the number of tensors,
// whatever `layers` says.
absl::Status CheckLayersPresent(const TensorDict& d, const std::string& key, int64_t layers) {
  if (layers > static_cast<int64_t>(d.size())) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata key '%s' is %d but the file has only %d tensors (a layer needs several)", key,
        layers, d.size()));
  }
  std::vector<bool> present(static_cast<size_t>(layers), false);
  for (const std::string& name : d.Keys()) {
    const int64_t l = LayerOf(name);
    if (l == -1) continue;
    if (l == -2) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s: expected blk.N.* with N a layer number (decimal, below %s = %d)",
          QuoteForError(name), key, layers));
    }
    if (l >= layers) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s is of layer %d, beyond %s = %d: the file has more layers than it declares",
          QuoteForError(name), l, key, layers));
    }
    present[static_cast<size_t>(l)] = true;
  }
  for (int64_t l = 0; l < layers; ++l) {
    if (!present[static_cast<size_t>(l)]) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "metadata key '%s' is %d but layer %d has no tensor (blk.%d.*)", key, layers, l, l));
    }
  }
  return absl::OkStatus();
}

// The logical shape of `name` must be [rows, cols]; `why` names the keys the expectation comes
// from. InvalidArgument naming the tensor, both shapes and the keys otherwise.
absl::Status ExpectShape(const TensorDict& d, const std::string& name, int64_t rows, int64_t cols,
                         absl::string_view why) {
  absl::StatusOr<const Tensor*> t = d.Get(name);
  if (!t.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected [%d, %d]: %s)", name, rows, cols, why));
  }
  const Shape& s = (*t)->logical_shape();
  if (s != Shape({rows, cols})) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor '%s' has shape %s; expected [%d, %d] (%s)", name, s.ToString(), rows, cols, why));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> OptionalFloat(const TensorDict& d, const std::string& key, double dflt,
                                     bool positive = true) {
  if (!d.HasMetadata(key)) return dflt;
  absl::StatusOr<double> v = d.GetFloat(key);
  if (!v.ok()) return absl::InvalidArgumentError(v.status().message());
  if (!std::isfinite(*v) || (positive && !(*v > 0))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %g; expected a positive number", key, *v));
  }
  return *v;
}

// The shape of a tensor (its logical shape if quantized), or NotFound.
const Shape* ShapeOf(const TensorDict& d, const std::string& name) {
  absl::StatusOr<const Tensor*> t = d.Get(name);
  return t.ok() ? &(*t)->logical_shape() : nullptr;
}

// ---- graph building ----

// The weights the graphs are built from. Records every tensor a builder reads, so that Load can
// refuse a file with tensors it would silently ignore (a sixth layer behind block_count = 5, a
// misspelt name).
class WeightReader {
 public:
  WeightReader(const TensorDict& dict, std::set<std::string>* used) : dict_(dict), used_(used) {}
  absl::StatusOr<const Tensor*> Get(const std::string& name) const {
    absl::StatusOr<const Tensor*> t = dict_.Get(name);
    if (t.ok()) used_->insert(name);
    return t;
  }
  bool Contains(const std::string& name) const { return dict_.Contains(name); }

 private:
  const TensorDict& dict_;
  std::set<std::string>* used_;
};

absl::StatusOr<Tensor> ToF32(const Tensor& t) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(DType::kFloat32, t.shape()));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, out.MutableValues<float>());
  const uint16_t* src = static_cast<const uint16_t*>(t.raw_data());
  for (size_t i = 0; i < dst.size(); ++i) {
    uint16_t h;
    std::memcpy(&h, src + i, 2);
    dst[i] = blocks::Fp16ToFloat(h);
  }
  return out;
}

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

// Adds the weight `name` as a constant and returns x · W^T: QMatmul for a quantized weight,
// MatmulTransposed for f32. `rows` x `cols` is the expected logical shape [out, in].
absl::StatusOr<Value> Linear(Graph& g, const WeightReader& dict, const std::string& name,
                             int64_t rows, int64_t cols, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, GetMatrix(dict, name, rows, cols));
  if (w->is_quantized()) {
    absl::StatusOr<const QuantizationEncoding*> enc = FindEncoding(w->encoding());
    if (!enc.ok()) {
      return absl::UnimplementedError(absl::StrFormat(
          "tensor '%s' has block type %s, which edgeq cannot run", name, w->encoding()));
    }
    return ops::QMatmul(**enc, x, g.Constant(*w));
  }
  if (w->dtype() != DType::kFloat32) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s; expected f32, f16 or a quantized block type", name,
                        DTypeName(w->dtype())));
  }
  return ops::MatmulTransposed(x, g.Constant(*w));
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

// Bytes of one head_dim-long KV cache row in q8_0 (GGML block_q8_0: 34 per 32 values).
int64_t Q8_0RowBytes(int64_t head_dim) { return head_dim / 32 * 34; }

absl::StatusOr<Value> Scalar(Graph& g, float v) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Full({1}, v));
  return g.Constant(t);
}

// The decoder body for a block of `t` consecutive tokens at positions pos..pos+t-1, after
// positions 0..pos-1 are in the caches. Inputs: tokens i32 [t], positions i32 [t] (pos..pos+t-1;
// the attention reads the caches' first pos rows), then K and V caches [kv heads, ctx, head dim]
// per layer. Outputs: the hidden states [t, dim] after the last block, then the block's K and V
// rows [t, kv heads, head dim] per layer. `inv_freq` is the RoPE angle table of the global
// layers, `inv_freq_swa` that of the sliding-window layers.
absl::StatusOr<std::unique_ptr<Graph>> BuildBody(const WeightReader& dict, const ModelConfig& c,
                                                 int64_t ctx, KvCacheType cache_type,
                                                 const Tensor& inv_freq, const Tensor& inv_freq_swa,
                                                 int64_t t) {
  const int64_t dim = c.embedding_length, hidden = c.feed_forward_length;
  const int64_t hs = c.head_dim, heads = c.head_count, kvh = c.head_count_kv;
  const int64_t q_dim = heads * hs, kv_dim = kvh * hs;
  const float eps = c.rms_norm_epsilon;
  const RopeMode rope_mode = c.rope_type == "neox" ? RopeMode::kNeox : RopeMode::kNorm;
  std::vector<TensorType> input_types = {TensorType(DType::kInt32, {t}),
                                         TensorType(DType::kInt32, {t})};
  // The caches: f32 [kv heads, ctx, hs], or q8_0 rows u8 [kv heads, ctx, hs / 32 * 34].
  const TensorType cache_type_of =
      cache_type == KvCacheType::kQ8_0
          ? TensorType(DType::kUInt8, Shape({kvh, ctx, Q8_0RowBytes(hs)}))
          : TensorType(DType::kFloat32, Shape({kvh, ctx, hs}));
  for (int l = 0; l < c.block_count; ++l) {
    input_types.push_back(cache_type_of);  // K cache
    input_types.push_back(cache_type_of);  // V cache
  }
  auto graph = std::make_unique<Graph>(absl::StrCat(c.architecture, "_t", t), input_types);
  Graph& g = *graph;
  const Value tokens = g.Input(0), positions = g.Input(1);

  EDGEQ_ASSIGN_OR_RETURN(const Tensor* embedding,
                         GetMatrix(dict, "token_embd.weight", c.vocab_size, dim));
  Value x = ops::Gather(g.Constant(*embedding), tokens);  // [t, dim]
  if (c.embedding_scale != 1.0f) {
    EDGEQ_ASSIGN_OR_RETURN(Value s, Scalar(g, c.embedding_scale));
    x = ops::Mul(x, s);
  }
  const Value freqs = g.Constant(inv_freq);
  const Value freqs_swa = g.Constant(inv_freq_swa);
  Value attn_factor;
  if (c.rope_attn_factor != 1.0f) {
    EDGEQ_ASSIGN_OR_RETURN(attn_factor, Scalar(g, c.rope_attn_factor));
  }

  std::vector<Value> outputs(1);  // hidden states first
  for (int l = 0; l < c.block_count; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    const bool swa = c.sliding_window > 0 && l < static_cast<int>(c.sliding_layers.size()) &&
                     c.sliding_layers[l];
    const Value k_cache = g.Input(2 + 2 * l), v_cache = g.Input(3 + 2 * l);
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(g, dict, p + "attn_norm.weight", dim, eps, x));
    Value q, k, v;
    if (dict.Contains(p + "attn_qkv.weight")) {
      // Fused Q, K, V rows (Phi-3): [q_dim + 2 kv_dim, dim].
      EDGEQ_ASSIGN_OR_RETURN(Value qkv,
                             Linear(g, dict, p + "attn_qkv.weight", q_dim + 2 * kv_dim, dim, h));
      EDGEQ_ASSIGN_OR_RETURN(qkv, MaybeBias(g, dict, p + "attn_qkv.bias", q_dim + 2 * kv_dim, qkv));
      q = ops::Slice(qkv, {0, 0}, {t, q_dim});
      k = ops::Slice(qkv, {0, q_dim}, {t, q_dim + kv_dim});
      v = ops::Slice(qkv, {0, q_dim + kv_dim}, {t, q_dim + 2 * kv_dim});
    } else {
      EDGEQ_ASSIGN_OR_RETURN(q, Linear(g, dict, p + "attn_q.weight", q_dim, dim, h));
      EDGEQ_ASSIGN_OR_RETURN(k, Linear(g, dict, p + "attn_k.weight", kv_dim, dim, h));
      EDGEQ_ASSIGN_OR_RETURN(v, Linear(g, dict, p + "attn_v.weight", kv_dim, dim, h));
      EDGEQ_ASSIGN_OR_RETURN(q, MaybeBias(g, dict, p + "attn_q.bias", q_dim, q));
      EDGEQ_ASSIGN_OR_RETURN(k, MaybeBias(g, dict, p + "attn_k.bias", kv_dim, k));
      EDGEQ_ASSIGN_OR_RETURN(v, MaybeBias(g, dict, p + "attn_v.bias", kv_dim, v));
    }
    q = ops::Reshape(q, {t, heads, hs});
    k = ops::Reshape(k, {t, kvh, hs});
    if (c.qk_norm) {  // RMSNorm of each head (Qwen3, Gemma 3)
      EDGEQ_ASSIGN_OR_RETURN(q, Norm(g, dict, p + "attn_q_norm.weight", hs, eps, q));
      EDGEQ_ASSIGN_OR_RETURN(k, Norm(g, dict, p + "attn_k_norm.weight", hs, eps, k));
    }
    q = Rope(q, positions, swa ? freqs_swa : freqs, rope_mode);
    k = Rope(k, positions, swa ? freqs_swa : freqs, rope_mode);
    if (attn_factor.ok()) {
      q = ops::Mul(q, attn_factor);
      k = ops::Mul(k, attn_factor);
    }
    const Value k_new = k;                              // [t, kvh, hs]
    const Value v_new = ops::Reshape(v, {t, kvh, hs});  // [t, kvh, hs]
    // Fused attention over the cache's first `pos` rows and the block (causal; within the
    // window on sliding-window layers), reading only the visible rows: [t, heads * hs].
    const Value o_rows = ops::Attention(q, k_cache, v_cache, k_new, v_new, positions,
                                        c.attention_scale, swa ? c.sliding_window : 0);
    EDGEQ_ASSIGN_OR_RETURN(Value attn_out,
                           Linear(g, dict, p + "attn_output.weight", dim, q_dim, o_rows));
    EDGEQ_ASSIGN_OR_RETURN(attn_out, MaybeBias(g, dict, p + "attn_output.bias", dim, attn_out));
    if (c.post_norms) {  // Gemma 3
      EDGEQ_ASSIGN_OR_RETURN(attn_out,
                             Norm(g, dict, p + "post_attention_norm.weight", dim, eps, attn_out));
    }
    x = ops::Add(x, attn_out);
    EDGEQ_ASSIGN_OR_RETURN(h, Norm(g, dict, p + "ffn_norm.weight", dim, eps, x));
    Value gate, up;
    if (c.fused_gate_up) {  // Phi-3: ffn_up is [2 ffn, dim], the gate rows first
      EDGEQ_ASSIGN_OR_RETURN(Value gu, Linear(g, dict, p + "ffn_up.weight", 2 * hidden, dim, h));
      gate = ops::Slice(gu, {0, 0}, {t, hidden});
      up = ops::Slice(gu, {0, hidden}, {t, 2 * hidden});
    } else {
      EDGEQ_ASSIGN_OR_RETURN(gate, Linear(g, dict, p + "ffn_gate.weight", hidden, dim, h));
      EDGEQ_ASSIGN_OR_RETURN(up, Linear(g, dict, p + "ffn_up.weight", hidden, dim, h));
    }
    // SwiGLU in one pass; Gemma's GeGLU as tanh-GELU, then the product.
    const Value gated = c.ffn_activation == "gelu_tanh"
                            ? ops::Mul(GeluTanh(gate, /*half_precision_table=*/true), up)
                            : ops::SwiGlu(gate, up);
    EDGEQ_ASSIGN_OR_RETURN(Value down, Linear(g, dict, p + "ffn_down.weight", dim, hidden, gated));
    if (c.post_norms) {
      EDGEQ_ASSIGN_OR_RETURN(down, Norm(g, dict, p + "post_ffw_norm.weight", dim, eps, down));
    }
    x = ops::Add(x, down);
    outputs.push_back(k_new);
    outputs.push_back(v_new);
  }
  outputs[0] = x;
  g.Output(outputs);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

// Output norm and classifier: input [1, dim] -> logits [1, vocab].
absl::StatusOr<std::unique_ptr<Graph>> BuildHead(const WeightReader& dict, const ModelConfig& c) {
  const int64_t dim = c.embedding_length;
  auto graph =
      std::make_unique<Graph>(absl::StrCat(c.architecture, "_head"),
                              std::vector<TensorType>{TensorType(DType::kFloat32, {1, dim})});
  Graph& g = *graph;
  EDGEQ_ASSIGN_OR_RETURN(Value x,
                         Norm(g, dict, "output_norm.weight", dim, c.rms_norm_epsilon, g.Input(0)));
  const std::string classifier = c.tied_output ? "token_embd.weight" : "output.weight";
  EDGEQ_ASSIGN_OR_RETURN(Value logits, Linear(g, dict, classifier, c.vocab_size, dim, x));
  EDGEQ_ASSIGN_OR_RETURN(logits, MaybeBias(g, dict, "output.bias", c.vocab_size, logits));
  if (c.final_logit_softcapping > 0) {  // cap * tanh(logits / cap)
    EDGEQ_ASSIGN_OR_RETURN(Value inv_cap, Scalar(g, 1.0f / c.final_logit_softcapping));
    EDGEQ_ASSIGN_OR_RETURN(Value cap, Scalar(g, c.final_logit_softcapping));
    logits = ops::Mul(Tanh(ops::Mul(logits, inv_cap)), cap);
  }
  g.Output(logits);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

}  // namespace

std::vector<std::string> SupportedArchitectures() {
  return {"llama", "qwen2", "qwen3", "gemma3", "phi3"};
}

absl::StatusOr<ModelConfig> ModelConfig::FromMetadata(const TensorDict& d) {
  ModelConfig c;
  if (!d.HasMetadata("general.architecture")) {
    return absl::InvalidArgumentError("missing metadata key 'general.architecture'");
  }
  absl::StatusOr<std::string> arch = d.GetString("general.architecture");
  if (!arch.ok()) return absl::InvalidArgumentError(arch.status().message());
  const std::vector<std::string> supported = SupportedArchitectures();
  if (std::find(supported.begin(), supported.end(), *arch) == supported.end()) {
    return absl::UnimplementedError(
        absl::StrFormat("architecture %s is not supported; supported: %s", QuoteForError(*arch),
                        absl::StrJoin(supported, ", ")));
  }
  const std::string& a = *arch;
  c.architecture = a;
  EDGEQ_ASSIGN_OR_RETURN(int64_t ctx, RequiredInt(d, Key(a, "context_length"), kMaxContext));
  EDGEQ_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(d, Key(a, "embedding_length"), kMaxEmbedding));
  EDGEQ_ASSIGN_OR_RETURN(int64_t layers, RequiredInt(d, Key(a, "block_count"), kMaxLayers));
  // Before anything is built per layer: the declared layers are the ones present.
  EDGEQ_RETURN_IF_ERROR(CheckLayersPresent(d, Key(a, "block_count"), layers));
  EDGEQ_ASSIGN_OR_RETURN(int64_t ffn,
                         RequiredInt(d, Key(a, "feed_forward_length"), kMaxFeedForward));
  EDGEQ_ASSIGN_OR_RETURN(int64_t heads, RequiredInt(d, Key(a, "attention.head_count"), kMaxHeads));
  c.context_length = static_cast<int>(ctx);
  c.embedding_length = static_cast<int>(dim);
  c.block_count = static_cast<int>(layers);
  c.feed_forward_length = static_cast<int>(ffn);
  c.head_count = static_cast<int>(heads);
  // head_count_kv: a scalar, or one value per layer (all equal here).
  const std::string kv_key = Key(a, "attention.head_count_kv");
  int64_t kv = heads;
  if (d.HasMetadata(kv_key)) {
    const MetadataValue* v = *d.GetMetadata(kv_key);
    if (v->kind() != MetadataValue::Kind::kInt || v->size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' is %s; expected an integer", kv_key, v->TypeName()));
    }
    kv = v->ints()[0];
    for (int64_t x : v->ints()) {
      if (x != kv) {
        return absl::UnimplementedError(absl::StrFormat(
            "metadata key '%s' gives different kv head counts per layer (%s); not supported",
            kv_key, v->DebugString()));
      }
    }
  }
  if (kv <= 0 || kv > heads || heads % kv != 0) {  // (a u64 above INT64_MAX is negative here)
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %d; expected a divisor of %s = %d", kv_key, kv,
                        Key(a, "attention.head_count"), heads));
  }
  c.head_count_kv = static_cast<int>(kv);
  const std::string key_len = Key(a, "attention.key_length");
  const std::string value_len = Key(a, "attention.value_length");
  if (!d.HasMetadata(key_len) && dim % heads != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata keys '%s' = %d and '%s' = %d contradict: the embedding length is not a multiple "
        "of the head count (and there is no '%s')",
        Key(a, "embedding_length"), dim, Key(a, "attention.head_count"), heads, key_len));
  }
  EDGEQ_ASSIGN_OR_RETURN(int64_t head_dim, OptionalInt(d, key_len, dim / heads, kMaxHeadDim));
  EDGEQ_ASSIGN_OR_RETURN(int64_t v_dim, OptionalInt(d, value_len, head_dim, kMaxHeadDim));
  if (v_dim != head_dim) {
    return absl::UnimplementedError(absl::StrFormat(
        "metadata keys '%s' = %d and '%s' = %d differ; only equal key and value head dimensions "
        "are supported",
        key_len, head_dim, value_len, v_dim));
  }
  if (head_dim % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("head dimension %d is odd; RoPE needs an even one", head_dim));
  }
  c.head_dim = static_cast<int>(head_dim);
  const std::string rot_key = Key(a, "rope.dimension_count");
  EDGEQ_ASSIGN_OR_RETURN(int64_t n_rot, OptionalInt(d, rot_key, head_dim));
  if (n_rot > head_dim || n_rot % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %d; expected an even count <= the head dimension %d",
                        rot_key, n_rot, head_dim));
  }
  c.rope_dimension_count = static_cast<int>(n_rot);
  EDGEQ_ASSIGN_OR_RETURN(double base, OptionalFloat(d, Key(a, "rope.freq_base"), 10000.0));
  c.rope_freq_base = static_cast<float>(base);
  const std::string eps_key = Key(a, "attention.layer_norm_rms_epsilon");
  if (!d.HasMetadata(eps_key)) {
    return absl::InvalidArgumentError(absl::StrFormat("missing metadata key '%s'", eps_key));
  }
  EDGEQ_ASSIGN_OR_RETURN(double eps, OptionalFloat(d, eps_key, 1e-5));
  c.rms_norm_epsilon = static_cast<float>(eps);

  // RoPE scaling.
  const std::string type_key = Key(a, "rope.scaling.type");
  if (d.HasMetadata(type_key)) {
    absl::StatusOr<std::string> type = d.GetString(type_key);
    if (!type.ok()) return absl::InvalidArgumentError(type.status().message());
    c.rope_scaling_type = *type;
  }
  const std::string factor_key = Key(a, "rope.scaling.factor");
  EDGEQ_ASSIGN_OR_RETURN(double factor, OptionalFloat(d, factor_key, 1.0));
  c.rope_scaling_factor = static_cast<float>(factor);
  const bool has_freqs = d.Contains("rope_freqs.weight");
  if (c.rope_scaling_type == "none" || c.rope_scaling_type.empty()) {
    c.rope_scaling_type = "none";
  } else if (c.rope_scaling_type == "linear") {
    if (!d.HasMetadata(factor_key)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "missing metadata key '%s' (required by %s = linear)", factor_key, type_key));
    }
  } else if (c.rope_scaling_type == "llama3") {
    if (!has_freqs) {
      if (!d.HasMetadata(factor_key)) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "missing metadata key '%s' (required by %s = llama3 without rope_freqs.weight)",
            factor_key, type_key));
      }
      EDGEQ_ASSIGN_OR_RETURN(int64_t orig,
                             RequiredInt(d, Key(a, "rope.scaling.original_context_length")));
      c.rope_scaling_original_context_length = static_cast<int>(orig);
    }
    EDGEQ_ASSIGN_OR_RETURN(double low,
                           OptionalFloat(d, Key(a, "rope.scaling.low_freq_factor"), 1.0));
    EDGEQ_ASSIGN_OR_RETURN(double high,
                           OptionalFloat(d, Key(a, "rope.scaling.high_freq_factor"), 4.0));
    if (!(high > low)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "metadata keys '%s' = %g and '%s' = %g contradict: the high factor must exceed the low",
          Key(a, "rope.scaling.high_freq_factor"), high, Key(a, "rope.scaling.low_freq_factor"),
          low));
    }
    c.rope_scaling_low_freq_factor = static_cast<float>(low);
    c.rope_scaling_high_freq_factor = static_cast<float>(high);
  } else {
    return absl::UnimplementedError(
        absl::StrFormat("metadata key '%s' is %s; supported: none, linear, llama3", type_key,
                        QuoteForError(c.rope_scaling_type)));
  }
  if (has_freqs) {
    const Tensor* f = *d.Get("rope_freqs.weight");
    if (f->is_quantized() || f->dtype() != DType::kFloat32 || f->shape() != Shape({n_rot / 2})) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor 'rope_freqs.weight' is %s, expected f32 [%d] (%s / 2)",
                          f->DebugString(), n_rot / 2, rot_key));
    }
  }

  // Architecture structure.
  c.attention_scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  if (a != "llama") c.rope_type = "neox";
  if (a == "qwen3" || a == "gemma3") c.qk_norm = true;
  if (a == "gemma3") {
    c.post_norms = true;
    c.ffn_activation = "gelu_tanh";
    c.embedding_scale = std::sqrt(static_cast<float>(dim));
    if (layers == 62) c.attention_scale = 1.0f / std::sqrt(static_cast<float>(dim / heads));
    const std::string window_key = Key(a, "attention.sliding_window");
    EDGEQ_ASSIGN_OR_RETURN(int64_t window, OptionalInt(d, window_key, 0));
    if (window > 0) {
      c.sliding_window = static_cast<int>(window);
      EDGEQ_ASSIGN_OR_RETURN(int64_t period,
                             OptionalInt(d, Key(a, "attention.sliding_window_pattern"), 6));
      for (int64_t l = 0; l < layers; ++l) c.sliding_layers.push_back(l % period < period - 1);
      EDGEQ_ASSIGN_OR_RETURN(double base_swa, OptionalFloat(d, Key(a, "rope.freq_base_swa"), 1e4));
      c.rope_freq_base_swa = static_cast<float>(base_swa);
    }
    EDGEQ_ASSIGN_OR_RETURN(double cap, OptionalFloat(d, Key(a, "final_logit_softcapping"), 0.0,
                                                     /*positive=*/false));
    if (cap < 0) {
      return absl::InvalidArgumentError(absl::StrFormat("metadata key '%s' is %g; expected >= 0",
                                                        Key(a, "final_logit_softcapping"), cap));
    }
    c.final_logit_softcapping = static_cast<float>(cap);
  }
  if (a == "phi3") c.fused_gate_up = !d.Contains("blk.0.ffn_gate.weight");
  EDGEQ_ASSIGN_OR_RETURN(double attn_factor,
                         OptionalFloat(d, Key(a, "rope.scaling.attn_factor"), 1.0));
  c.rope_attn_factor = static_cast<float>(attn_factor);
  const bool has_long = d.Contains("rope_factors_long.weight");
  const bool has_short = d.Contains("rope_factors_short.weight");
  if (has_long || has_short) {
    if (!has_long || !has_short || has_freqs) {
      return absl::InvalidArgumentError(
          "tensors 'rope_factors_long.weight' and 'rope_factors_short.weight' must come together "
          "and without 'rope_freqs.weight'");
    }
    for (const char* name : {"rope_factors_long.weight", "rope_factors_short.weight"}) {
      const Tensor* f = *d.Get(name);
      if (f->is_quantized() || f->dtype() != DType::kFloat32 || f->shape() != Shape({n_rot / 2})) {
        return absl::InvalidArgumentError(
            absl::StrFormat("tensor '%s' is %s, expected f32 [%d] (%s / 2)", name, f->DebugString(),
                            n_rot / 2, rot_key));
      }
    }
    c.has_rope_factors = true;
    EDGEQ_ASSIGN_OR_RETURN(int64_t orig,
                           OptionalInt(d, Key(a, "rope.scaling.original_context_length"), ctx));
    c.rope_scaling_original_context_length = static_cast<int>(orig);
  }

  // Vocabulary: <arch>.vocab_size, the tokenizer's tokens, the embedding's rows must agree.
  const std::string vocab_key = Key(a, "vocab_size");
  int64_t vocab = 0;
  std::string vocab_source;
  if (d.HasMetadata(vocab_key)) {
    EDGEQ_ASSIGN_OR_RETURN(vocab, RequiredInt(d, vocab_key, kMaxVocab));
    vocab_source = absl::StrCat("metadata key '", vocab_key, "'");
  }
  if (d.HasMetadata("tokenizer.ggml.tokens")) {
    const MetadataValue* tokens = *d.GetMetadata("tokenizer.ggml.tokens");
    const int64_t n = static_cast<int64_t>(tokens->size());
    if (vocab != 0 && n != vocab) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key 'tokenizer.ggml.tokens' has %d tokens but %s is %d", n,
                          vocab_source, vocab));
    }
    if (vocab == 0) {
      vocab = n;
      vocab_source = "metadata key 'tokenizer.ggml.tokens'";
    }
  }
  const Shape* emb = ShapeOf(d, "token_embd.weight");
  if (emb == nullptr) {
    return absl::InvalidArgumentError("tensor 'token_embd.weight' is missing");
  }
  if (emb->rank() != 2 || emb->dim(1) != dim || (vocab != 0 && emb->dim(0) != vocab)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor 'token_embd.weight' has shape %s; expected [%s, %d] (%s, %s)",
                        emb->ToString(), vocab != 0 ? absl::StrCat(vocab) : "vocab", dim,
                        vocab != 0 ? vocab_source : "any vocabulary", Key(a, "embedding_length")));
  }
  if (emb->dim(0) > kMaxVocab) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor 'token_embd.weight' has %d rows; expected a vocabulary of at most %d", emb->dim(0),
        kMaxVocab));
  }
  c.vocab_size = static_cast<int>(emb->dim(0));
  // The head count and dimensions against layer 0's tensors (Load checks every layer's; these
  // bound what Load allocates before it gets there: the RoPE tables, the caches).
  const int64_t q_dim = heads * head_dim, kv_dim = kv * head_dim;
  const std::string heads_why =
      absl::StrFormat("%s = %d, %s = %d, head dimension %d", Key(a, "attention.head_count"), heads,
                      kv_key, kv, head_dim);
  if (d.Contains("blk.0.attn_qkv.weight")) {
    EDGEQ_RETURN_IF_ERROR(
        ExpectShape(d, "blk.0.attn_qkv.weight", q_dim + 2 * kv_dim, dim, heads_why));
  } else {
    EDGEQ_RETURN_IF_ERROR(ExpectShape(d, "blk.0.attn_q.weight", q_dim, dim, heads_why));
    EDGEQ_RETURN_IF_ERROR(ExpectShape(d, "blk.0.attn_k.weight", kv_dim, dim, heads_why));
  }
  EDGEQ_RETURN_IF_ERROR(
      ExpectShape(d, "blk.0.ffn_down.weight", dim, ffn,
                  absl::StrCat(Key(a, "embedding_length"), ", ", Key(a, "feed_forward_length"))));
  c.tied_output = !d.Contains("output.weight");
  if (c.tied_output && d.HasMetadata("llama2c.shared_classifier")) {
    absl::StatusOr<bool> shared = d.GetBool("llama2c.shared_classifier");
    if (!shared.ok()) return absl::InvalidArgumentError(shared.status().message());
    if (!*shared) {
      return absl::InvalidArgumentError(
          "metadata key 'llama2c.shared_classifier' is false but tensor 'output.weight' is "
          "missing");
    }
  }
  return c;
}

namespace {

// The common part of ModelConfig::ToString.
std::string BaseDescription(const ModelConfig& c) {
  return absl::StrFormat(
      "%s: %d layers, embedding %d, ffn %d, %d heads (%d kv, dim %d), vocab %d, context %d, rope "
      "base %g%s%s, rms eps %g, %s output",
      c.architecture, c.block_count, c.embedding_length, c.feed_forward_length, c.head_count,
      c.head_count_kv, c.head_dim, c.vocab_size, c.context_length, c.rope_freq_base,
      c.rope_dimension_count != c.head_dim ? absl::StrCat(" (", c.rope_dimension_count, " dims)")
                                           : "",
      c.rope_scaling_type != "none" ? absl::StrCat(", scaling ", c.rope_scaling_type) : "",
      c.rms_norm_epsilon, c.tied_output ? "tied" : "separate");
}

}  // namespace

std::string ModelConfig::ToString() const {
  std::string extra;
  if (sliding_window > 0) {
    const int n = static_cast<int>(std::count(sliding_layers.begin(), sliding_layers.end(), true));
    absl::StrAppendFormat(&extra, ", sliding window %d on %d of %d layers (rope base %g)",
                          sliding_window, n, block_count, rope_freq_base_swa);
  }
  if (has_rope_factors) {
    absl::StrAppendFormat(&extra, ", rope factors long/short (original context %d)",
                          rope_scaling_original_context_length);
  }
  if (rope_attn_factor != 1.0f)
    absl::StrAppendFormat(&extra, ", rope attn factor %g", rope_attn_factor);
  if (final_logit_softcapping > 0) {
    absl::StrAppendFormat(&extra, ", logit soft-cap %g", final_logit_softcapping);
  }
  return absl::StrCat(BaseDescription(*this), extra);
}

absl::StatusOr<Model::Block> Model::LoadBlock(int64_t t) {
  Block b;
  b.t = t;
  const WeightReader weights(weights_, &used_tensors_);
  EDGEQ_ASSIGN_OR_RETURN(
      b.graph, BuildBody(weights, config_, context_, kv_cache_type_, inv_freq_, inv_freq_swa_, t));
  const auto start = std::chrono::steady_clock::now();
  EDGEQ_ASSIGN_OR_RETURN(edgeq::Model model, session_->Load(*b.graph));
  prepare_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  b.model = std::make_unique<edgeq::Model>(std::move(model));
  EDGEQ_ASSIGN_OR_RETURN(b.tokens, Tensor::Create(DType::kInt32, {t}));
  EDGEQ_ASSIGN_OR_RETURN(b.positions, Tensor::Create(DType::kInt32, {t}));
  return b;
}

namespace {

// Drops the pages of `mapping` wholly inside [data, data + bytes_read) that `done` (the state of
// the constant being copied) has not dropped yet: called with growing bytes_read while a kernel
// repacks a weight, so that the copy and the mapped original are never both resident.
struct DropState {
  const void* data = nullptr;
  uintptr_t done = 0;  // pages below this address are dropped
};
void DropMappedPages(absl::Span<const uint8_t> mapping, const void* data, size_t bytes_read,
                     DropState* state) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mapping.data()), hi = lo + mapping.size();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes_read;
  if (mapping.empty() || begin < lo || end > hi) return;
  if (state->data != data) *state = {data, (begin + page - 1) / page * page};
  // The last page may hold bytes still to be read: only whole pages below `end`.
  const uintptr_t last = end / page * page;
  if (last <= state->done) return;
  madvise(reinterpret_cast<void*>(state->done), last - state->done, MADV_DONTNEED);
  state->done = last;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const std::string& path,
                                                   const ModelOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint c, checkpoint::OpenCheckpoint(path));
  ModelOptions with_mapping = options;
  with_mapping.mapped_file = c.file_bytes;
  absl::StatusOr<std::unique_ptr<Model>> m = Load(c.dict, with_mapping);
  if (!m.ok())
    return absl::Status(m.status().code(), absl::StrCat(path, ": ", m.status().message()));
  return m;
}

absl::StatusOr<std::unique_ptr<Model>> Model::Load(const TensorDict& dict,
                                                   const ModelOptions& options) {
  EDGEQ_RETURN_IF_ERROR(RegisterLlmOps());
  EDGEQ_ASSIGN_OR_RETURN(ModelConfig c, ModelConfig::FromMetadata(dict));
  if (options.prefill_block < 0 || options.prefill_block > kMaxUbatchSize) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ModelOptions.prefill_block (ubatch) must be in [0, %d], got %d",
                        kMaxUbatchSize, options.prefill_block));
  }
  if (options.context_length < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "ModelOptions.context_length must be >= 0, got %d", options.context_length));
  }
  if (options.num_threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrFormat("ModelOptions.num_threads must be >= 1, got %d", options.num_threads));
  }
  if (options.kv_cache_type == KvCacheType::kQ8_0 && c.head_dim % 32 != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the q8_0 KV cache needs a head dimension that is a multiple of 32; this model's is %d "
        "(use the f32 cache)",
        c.head_dim));
  }
  std::unique_ptr<Model> m(new Model());
  m->config_ = c;
  m->kv_cache_type_ = options.kv_cache_type;
  m->context_ = options.context_length > 0 ? options.context_length
                                           : std::min(c.context_length, kDefaultMaxContext);
  m->weight_bytes_ = dict.TotalBytes();
  // f16 matrices run as "f16"-encoded weights (the same bytes, viewed as uint8 blocks of one
  // value: qmatmul's f16 kernels, the gather's f16 decoder); other f16 tensors (norms, factors)
  // become f32.
  for (const std::string& name : dict.Keys()) {
    const Tensor& t = **dict.Get(name);
    if (!t.is_quantized() && t.dtype() == DType::kFloat16 && t.rank() == 2) {
      auto keep = std::make_shared<Tensor>(t);
      EDGEQ_ASSIGN_OR_RETURN(
          Tensor f16, Tensor::View(DType::kUInt8, Shape({t.shape().dim(0), 2 * t.shape().dim(1)}),
                                   t.raw_data(), t.size_bytes(), keep));
      f16.SetQuantization("f16", t.shape());
      EDGEQ_RETURN_IF_ERROR(m->weights_.Set(name, std::move(f16)));
    } else if (!t.is_quantized() && t.dtype() == DType::kFloat16) {
      EDGEQ_ASSIGN_OR_RETURN(Tensor f32, ToF32(t));
      EDGEQ_RETURN_IF_ERROR(m->weights_.Set(name, std::move(f32)));
    } else {
      EDGEQ_RETURN_IF_ERROR(m->weights_.Set(name, t));
    }
  }
  for (const std::string& key : dict.MetadataKeys()) {
    m->weights_.SetMetadata(key, **dict.GetMetadata(key));
  }
  // RoPE angle per position of each pair: base^(-2i/n_rot) (computed as run.c does), divided by
  // the pair's frequency factor (rope_freqs.weight, phi3's long or short factors, or llama3's
  // from the metadata) and by a linear scaling factor. Sliding-window layers: their own base, no
  // factors or scaling (llama.cpp's rope_freq_base_train_swa, rope_freq_scale_train_swa = 1).
  const int pairs = c.rope_dimension_count / 2;
  const float* factors = nullptr;
  if (m->weights_.Contains("rope_freqs.weight")) {
    factors = (*m->weights_.Get("rope_freqs.weight"))->Values<float>()->data();
  } else if (c.has_rope_factors) {
    const char* name = m->context_ > c.rope_scaling_original_context_length
                           ? "rope_factors_long.weight"
                           : "rope_factors_short.weight";
    factors = (*m->weights_.Get(name))->Values<float>()->data();
  }
  for (const bool swa : {false, true}) {
    Tensor& table = swa ? m->inv_freq_swa_ : m->inv_freq_;
    EDGEQ_ASSIGN_OR_RETURN(table, Tensor::Create(DType::kFloat32, {pairs}));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> inv, table.MutableValues<float>());
    const float base = swa ? c.rope_freq_base_swa : c.rope_freq_base;
    for (int i = 0; i < pairs; ++i) {
      float f = 1.0f / std::pow(base, static_cast<float>(2 * i) /
                                          static_cast<float>(c.rope_dimension_count));
      if (swa) {
        inv[i] = f;
        continue;
      }
      if (factors != nullptr) {
        f /= factors[i];
      } else if (c.rope_scaling_type == "llama3") {
        // Llama 3.1's frequency factors from the scaling keys.
        const float low_wavelen =
            c.rope_scaling_original_context_length / c.rope_scaling_low_freq_factor;
        const float high_wavelen =
            c.rope_scaling_original_context_length / c.rope_scaling_high_freq_factor;
        const float wavelen = 2.0f * static_cast<float>(M_PI) / f;
        if (wavelen > low_wavelen) {
          f /= c.rope_scaling_factor;
        } else if (wavelen >= high_wavelen) {
          const float smooth =
              (c.rope_scaling_original_context_length / wavelen - c.rope_scaling_low_freq_factor) /
              (c.rope_scaling_high_freq_factor - c.rope_scaling_low_freq_factor);
          f /= 1.0f / ((1.0f - smooth) / c.rope_scaling_factor + smooth);
        }
      }
      if (c.rope_scaling_type == "linear") f /= c.rope_scaling_factor;
      inv[i] = f;
    }
  }

  const int64_t ctx = m->context_, hs = c.head_dim, kvh = c.head_count_kv;
  // The graphs built once without loading them: every tensor's presence and shape is checked
  // before anything is allocated or repacked for them.
  {
    const WeightReader reader(m->weights_, &m->used_tensors_);
    EDGEQ_RETURN_IF_ERROR(
        BuildBody(reader, c, ctx, m->kv_cache_type_, m->inv_freq_, m->inv_freq_swa_, 1).status());
    EDGEQ_RETURN_IF_ERROR(BuildHead(reader, c).status());
  }
  // Every tensor of the file must be used: one the graphs would ignore (a layer beyond the
  // declared ones, an unknown or misspelt name) means the file is not what its metadata says.
  for (const char* name :
       {"rope_freqs.weight", "rope_factors_long.weight", "rope_factors_short.weight"}) {
    if (dict.Contains(name)) m->used_tensors_.insert(name);
  }
  for (const std::string& name : dict.Keys()) {
    if (m->used_tensors_.count(name) == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s is not used by the %s model (%s = %d); expected only the tensors of its "
          "layers, embedding, output and RoPE factors",
          QuoteForError(name), c.architecture, Key(c.architecture, "block_count"), c.block_count));
    }
  }
  SessionOptions so{.num_threads = options.num_threads, .isa_cap = options.isa_cap};
  if (!options.mapped_file.empty()) {
    Model* model = m.get();
    const absl::Span<const uint8_t> mapping = options.mapped_file;
    so.on_constant_copied = [model, mapping](const void* data, size_t bytes) {
      model->ReleaseCopiedWeight(mapping, data, bytes);
    };
    auto state = std::make_shared<DropState>();
    so.on_constant_bytes_read = [mapping, state](const void* data, size_t bytes_read) {
      DropMappedPages(mapping, data, bytes_read, state.get());
    };
  }
  m->session_ = std::make_unique<InferenceSession>(std::move(so));
  EDGEQ_ASSIGN_OR_RETURN(m->decode_, m->LoadBlock(1));
  // The prefill blocks are built on first use (BlockOfSize).
  m->block_sizes_ =
      PrefillBlockSizes(static_cast<int>(std::min<int64_t>(options.prefill_block, ctx)));
  m->blocks_.resize(m->block_sizes_.size());
  EDGEQ_ASSIGN_OR_RETURN(m->head_graph_,
                         BuildHead(WeightReader(m->weights_, &m->used_tensors_), c));
  const auto head_start = std::chrono::steady_clock::now();
  EDGEQ_ASSIGN_OR_RETURN(edgeq::Model head, m->session_->Load(*m->head_graph_));
  m->prepare_seconds_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - head_start).count();
  m->head_ = std::make_unique<edgeq::Model>(std::move(head));
  EDGEQ_ASSIGN_OR_RETURN(m->head_input_, Tensor::Create(DType::kFloat32, {1, c.embedding_length}));
  for (int l = 0; l < c.block_count; ++l) {
    m->input_names_.push_back(absl::StrCat("input", 2 + 2 * l));
    m->input_names_.push_back(absl::StrCat("input", 3 + 2 * l));
    m->output_names_.push_back(absl::StrCat("output", 1 + 2 * l));
    m->output_names_.push_back(absl::StrCat("output", 2 + 2 * l));
    Tensor kc, vc;
    if (m->kv_cache_type_ == KvCacheType::kQ8_0) {
      const Shape rows({kvh, ctx, Q8_0RowBytes(hs)});
      EDGEQ_ASSIGN_OR_RETURN(kc, Tensor::Create(DType::kUInt8, rows));
      EDGEQ_ASSIGN_OR_RETURN(vc, Tensor::Create(DType::kUInt8, rows));
    } else {
      EDGEQ_ASSIGN_OR_RETURN(kc, Tensor::Create(DType::kFloat32, {kvh, ctx, hs}));
      EDGEQ_ASSIGN_OR_RETURN(vc, Tensor::Create(DType::kFloat32, {kvh, ctx, hs}));
    }
    m->k_cache_.push_back(std::move(kc));
    m->v_cache_.push_back(std::move(vc));
  }
  return m;
}

const char* KvCacheTypeName(KvCacheType type) {
  return type == KvCacheType::kQ8_0 ? "q8_0" : "f32";
}

uint64_t Model::kv_cache_bytes() const {
  uint64_t bytes = 0;
  for (const Tensor& t : k_cache_) bytes += t.size_bytes();
  for (const Tensor& t : v_cache_) bytes += t.size_bytes();
  return bytes;
}

absl::StatusOr<Tensor> Model::RunBlock(Block& b, absl::Span<const int> tokens, int pos) {
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> tv, b.tokens.MutableValues<int32_t>());
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> pv, b.positions.MutableValues<int32_t>());
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (int64_t i = 0; i < b.t; ++i) {
    tv[i] = i < n ? tokens[i] : 0;
    pv[i] = pos + static_cast<int>(i);
  }
  // NamedTensor holds pointers to these members, which stay in place during the call.
  std::vector<NamedTensor>& in = inputs_;
  in.clear();
  in.emplace_back("input0", b.tokens);
  in.emplace_back("input1", b.positions);
  for (int l = 0; l < config_.block_count; ++l) {
    in.emplace_back(input_names_[2 * l], k_cache_[l]);
    in.emplace_back(input_names_[2 * l + 1], v_cache_[l]);
  }
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, b.model->Execute(in));
  // Store the block's real K and V rows ([t, kv heads, hs]; the first n) into the caches
  // ([kv heads, ctx, hs]) at pos..pos+n-1.
  const int64_t hs = config_.head_dim, ctx = context_, kvh = config_.head_count_kv;
  for (int l = 0; l < config_.block_count; ++l) {
    for (int which = 0; which < 2; ++which) {
      EDGEQ_ASSIGN_OR_RETURN(Tensor rows, out.Get(output_names_[2 * l + which]));
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> src, rows.Values<float>());
      Tensor& cache = which == 0 ? k_cache_[l] : v_cache_[l];
      if (kv_cache_type_ == KvCacheType::kQ8_0) {
        const int64_t row_bytes = Q8_0RowBytes(hs);
        EDGEQ_ASSIGN_OR_RETURN(absl::Span<uint8_t> dst, cache.MutableValues<uint8_t>());
        for (int64_t i = 0; i < n; ++i) {
          for (int64_t h = 0; h < kvh; ++h) {
            quantization_internal::QuantizeRowQ8_0(
                src.data() + (i * kvh + h) * hs, dst.data() + (h * ctx + pos + i) * row_bytes, hs);
          }
        }
        continue;
      }
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, cache.MutableValues<float>());
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t h = 0; h < kvh; ++h) {
          std::memcpy(dst.data() + (h * ctx + pos + i) * hs, src.data() + (i * kvh + h) * hs,
                      hs * sizeof(float));
        }
      }
    }
  }
  return out.Get("output0");
}

absl::StatusOr<absl::Span<const float>> Model::RunHead(const float* row) {
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, head_input_.MutableValues<float>());
  std::memcpy(dst.data(), row, dst.size() * sizeof(float));
  const NamedTensor in[1] = {NamedTensor("input0", head_input_)};
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, head_->Execute(in));
  EDGEQ_ASSIGN_OR_RETURN(Tensor logits, out.Get("output0"));
  return logits.Values<float>();
}

absl::Status Model::Check(absl::Span<const int> tokens, int pos) const {
  if (tokens.empty()) return absl::InvalidArgumentError("Prefill: no tokens given");
  for (int token : tokens) {
    if (token < 0 || token >= config_.vocab_size) {
      return absl::OutOfRangeError(
          absl::StrFormat("token %d is outside the vocabulary [0, %d)", token, config_.vocab_size));
    }
  }
  const int64_t end = static_cast<int64_t>(pos) + static_cast<int64_t>(tokens.size());
  if (pos < 0 || end > context_) {
    return absl::OutOfRangeError(absl::StrFormat("positions %d..%d are outside the context [0, %d)",
                                                 pos, end - 1, context_));
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Span<const float>> Model::Forward(int token, int pos) {
  const int one[1] = {token};
  return Prefill(absl::MakeConstSpan(one), pos);
}

absl::StatusOr<Model::Block*> Model::BlockOfSize(int size) {
  if (size <= 1) return &decode_;
  const size_t k = std::find(block_sizes_.begin(), block_sizes_.end(), size) - block_sizes_.begin();
  if (k == block_sizes_.size()) {
    return absl::InternalError(absl::StrFormat("no prefill block of %d tokens", size));
  }
  if (blocks_[k] == nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(Block b, LoadBlock(size));
    b.model->EnableProfiling(profiling_);
    blocks_[k] = std::make_unique<Block>(std::move(b));
  }
  return blocks_[k].get();
}

absl::StatusOr<absl::Span<const float>> Model::Prefill(absl::Span<const int> tokens, int pos) {
  EDGEQ_RETURN_IF_ERROR(Check(tokens, pos));
  Tensor hidden;
  size_t i = 0, n = 0;
  for (int size : PlanPrefill(static_cast<int64_t>(tokens.size()), block_sizes_)) {
    EDGEQ_ASSIGN_OR_RETURN(Block * b, BlockOfSize(size));
    n = std::min(tokens.size() - i, static_cast<size_t>(b->t));
    EDGEQ_ASSIGN_OR_RETURN(hidden, RunBlock(*b, tokens.subspan(i, n), pos + static_cast<int>(i)));
    i += n;
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> h, hidden.Values<float>());
  return RunHead(h.data() + (n - 1) * config_.embedding_length);
}

absl::Status Model::PrefillAll(
    absl::Span<const int> tokens, int pos,
    const std::function<absl::Status(int, absl::Span<const float>)>& on_logits, int first) {
  EDGEQ_RETURN_IF_ERROR(Check(tokens, pos));
  size_t i = 0;
  const int64_t dim = config_.embedding_length;
  for (int size : PlanPrefill(static_cast<int64_t>(tokens.size()), block_sizes_)) {
    EDGEQ_ASSIGN_OR_RETURN(Block * b, BlockOfSize(size));
    const size_t n = std::min(tokens.size() - i, static_cast<size_t>(b->t));
    EDGEQ_ASSIGN_OR_RETURN(Tensor hidden,
                           RunBlock(*b, tokens.subspan(i, n), pos + static_cast<int>(i)));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> h, hidden.Values<float>());
    for (int64_t r = 0; r < static_cast<int64_t>(n); ++r) {
      if (static_cast<int64_t>(i) + r < first) continue;
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits, RunHead(h.data() + r * dim));
      EDGEQ_RETURN_IF_ERROR(on_logits(static_cast<int>(i + r), logits));
    }
    i += n;
  }
  return absl::OkStatus();
}

std::vector<std::string> Model::MatmulKernels() const {
  std::vector<std::string> names;
  for (const edgeq::Model* model : {decode_.model.get(), head_.get()}) {
    for (absl::string_view line : absl::StrSplit(model->DebugString(), '\n')) {
      const size_t arrow = line.find(" -> ");
      if (arrow == absl::string_view::npos || !absl::StrContains(line.substr(0, arrow), "matmul")) {
        continue;
      }
      std::string name(absl::StripAsciiWhitespace(line.substr(arrow + 4)));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::vector<edgeq::Model*> Model::Graphs() const {
  std::vector<edgeq::Model*> graphs = {decode_.model.get()};
  for (const std::unique_ptr<Block>& b : blocks_) {
    if (b != nullptr) graphs.push_back(b->model.get());
  }
  graphs.push_back(head_.get());
  return graphs;
}

uint64_t Model::activation_bytes() const {
  uint64_t bytes = 0;
  for (const edgeq::Model* g : Graphs()) bytes += g->arena_bytes() + g->scratch_bytes();
  return bytes;
}

std::vector<int> Model::loaded_block_sizes() const {
  std::vector<int> sizes;
  for (size_t k = 0; k < blocks_.size(); ++k) {
    if (blocks_[k] != nullptr) sizes.push_back(block_sizes_[k]);
  }
  return sizes;
}

void Model::ReleaseCopiedWeight(absl::Span<const uint8_t> mapping, const void* data, size_t bytes) {
  // A weight also read at run time (a tied embedding: the classifier's copy, and the gather reads
  // rows of the original) is released too: the gather faults back only the pages of the rows it
  // reads.
  if (!released_.insert(data).second) return;  // another graph's kernel shares the copy
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = reinterpret_cast<uintptr_t>(mapping.data()), hi = lo + mapping.size();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data), end = begin + bytes;
  if (mapping.empty() || begin < lo || end > hi) return;
  const uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (last <= first) return;
  if (madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) == 0) {
    released_weight_bytes_ += last - first;
  }
}

void Model::EnableProfiling(bool on) {
  profiling_ = on;
  for (edgeq::Model* g : Graphs()) g->EnableProfiling(on);
}

void Model::ResetProfile() {
  for (edgeq::Model* g : Graphs()) g->ResetProfile();
}

std::vector<Model::OpTime> Model::Profile() const {
  std::vector<OpTime> rows;
  for (const edgeq::Model* g : Graphs()) {
    for (const edgeq::Model::KernelTime& k : g->Profile()) {
      if (k.calls == 0) continue;
      const size_t eq = k.label.find(" = ");
      std::string op = eq == std::string::npos ? k.label : k.label.substr(eq + 3);
      if (absl::StartsWith(op, "copy(")) op = "copy";
      auto it = std::find_if(rows.begin(), rows.end(),
                             [&](const OpTime& r) { return r.op == op && r.kernel == k.kernel; });
      if (it == rows.end()) {
        rows.push_back({op, k.kernel, 0, 0.0});
        it = rows.end() - 1;
      }
      it->calls += k.calls;
      it->seconds += k.seconds;
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const OpTime& a, const OpTime& b) { return a.seconds > b.seconds; });
  return rows;
}

std::string Model::DebugString() const {
  std::string s = absl::StrCat(decode_.graph->ToString(), decode_.model->DebugString());
  for (const std::unique_ptr<Block>& b : blocks_) {
    if (b != nullptr) absl::StrAppend(&s, b->graph->ToString(), b->model->DebugString());
  }
  absl::StrAppend(&s, head_graph_->ToString(), head_->DebugString());
  return s;
}

}  // namespace llm
}  // namespace edgeq
