// bert and nomic-bert (llm/arch/bert.h), as llama.cpp's src/models/bert.cpp and nomic-bert.cpp.
#include "llm/arch/bert.h"

#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/ops.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace llm {
namespace arch {
namespace {

// The f32 vector `name` [n]; InvalidArgument naming it and the expected shape.
absl::StatusOr<Value> Vector(Graph& g, const WeightReader& w, const std::string& name, int64_t n) {
  absl::StatusOr<const Tensor*> t = w.Get(name);
  if (!t.ok() || (*t)->dtype() != DType::kFloat32 || (*t)->is_quantized() ||
      (*t)->shape() != Shape({n})) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' is %s; expected f32 [%d]", name,
                                                      t.ok() ? (*t)->DebugString() : "missing", n));
  }
  return g.Constant(**t);
}

// A [rows, cols] table (f32 or quantized) looked up by `indices`: [.., cols].
absl::StatusOr<Value> Lookup(Graph& g, const WeightReader& w, const std::string& name, int64_t rows,
                             int64_t cols, Value indices) {
  absl::StatusOr<const Tensor*> t = w.Get(name);
  if (!t.ok() || (*t)->logical_shape().rank() != 2 || (*t)->logical_shape().dim(1) != cols ||
      (*t)->logical_shape().dim(0) < rows) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is %s; expected [%d or more, %d]", name,
                        t.ok() ? (*t)->DebugString() : "missing", rows, cols));
  }
  return ops::Gather(g.Constant(**t), indices);
}

// LayerNorm of x [t, n] by `prefix`.weight and .bias (ggml_norm, then scale and shift): the
// mean is x · (1/n), and the rest is RMSNorm of the centred rows.
absl::StatusOr<Value> LayerNorm(Graph& g, const WeightReader& w, const std::string& prefix,
                                int64_t n, float eps, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value weight, Vector(g, w, prefix + ".weight", n));
  EDGEQ_ASSIGN_OR_RETURN(Value bias, Vector(g, w, prefix + ".bias", n));
  EDGEQ_ASSIGN_OR_RETURN(Tensor mean_row, Tensor::Full({1, n}, 1.0f / static_cast<float>(n)));
  const Value mean = ops::MatmulTransposed(x, g.Constant(mean_row));  // [t, 1]
  return ops::Add(ops::RmsNorm(ops::Sub(x, mean), weight, eps), bias);
}

// x · W^T (+ bias if the file has `name`.bias).
absl::StatusOr<Value> Projection(Graph& g, const WeightReader& w, const std::string& name,
                                 int64_t rows, int64_t cols, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value y, Linear(g, w, name + ".weight", rows, cols, x));
  if (!w.Contains(name + ".bias")) return y;
  EDGEQ_ASSIGN_OR_RETURN(Value b, Vector(g, w, name + ".bias", rows));
  return ops::Add(y, b);
}

struct Inputs {
  Value positions, mask, inv_freq;
};

// Bidirectional multi-head attention of x [t, dim] within each sequence (the mask): [t, dim].
absl::StatusOr<Value> SelfAttention(Graph& g, const WeightReader& w, const EncoderConfig& c,
                                    const Inputs& in, const std::string& p, int64_t t, Value x) {
  const int64_t dim = c.dim, h = c.heads, hs = c.head_dim;
  Value q, k, v;
  if (w.Contains(p + "attn_qkv.weight")) {
    EDGEQ_ASSIGN_OR_RETURN(Value qkv, Projection(g, w, p + "attn_qkv", 3 * dim, dim, x));
    q = ops::Slice(qkv, {0, 0}, {t, dim});
    k = ops::Slice(qkv, {0, dim}, {t, 2 * dim});
    v = ops::Slice(qkv, {0, 2 * dim}, {t, 3 * dim});
  } else {
    EDGEQ_ASSIGN_OR_RETURN(q, Projection(g, w, p + "attn_q", dim, dim, x));
    EDGEQ_ASSIGN_OR_RETURN(k, Projection(g, w, p + "attn_k", dim, dim, x));
    EDGEQ_ASSIGN_OR_RETURN(v, Projection(g, w, p + "attn_v", dim, dim, x));
  }
  q = ops::Reshape(q, {t, h, hs});
  k = ops::Reshape(k, {t, h, hs});
  v = ops::Reshape(v, {t, h, hs});
  if (c.arch == EncoderArch::kNomicBert) {
    q = Rope(q, in.positions, in.inv_freq, RopeMode::kNeox);
    k = Rope(k, in.positions, in.inv_freq, RopeMode::kNeox);
  }
  q = ops::Transpose(q, {1, 0, 2});  // [h, t, hs]
  k = ops::Transpose(k, {1, 0, 2});
  v = ops::Transpose(v, {1, 0, 2});
  EDGEQ_ASSIGN_OR_RETURN(Value scale, Scalar(g, 1.0f / std::sqrt(static_cast<float>(hs))));
  Value scores = ops::Add(ops::Mul(ops::MatmulTransposed(q, k), scale), in.mask);  // [h, t, t]
  Value out = ops::Matmul(ops::Softmax(scores), v);                                // [h, t, hs]
  out = ops::Reshape(ops::Transpose(out, {1, 0, 2}), {t, dim});
  return Projection(g, w, p + "attn_output", dim, dim, out);
}

// GELU FFN (bert: up + bias, GELU as ggml_gelu, down + bias) or SwiGLU (nomic-bert).
absl::StatusOr<Value> FeedForward(Graph& g, const WeightReader& w, const EncoderConfig& c,
                                  const std::string& p, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(Value up, Projection(g, w, p + "ffn_up", c.ffn, c.dim, x));
  Value act;
  if (c.arch == EncoderArch::kNomicBert) {
    EDGEQ_ASSIGN_OR_RETURN(Value gate, Projection(g, w, p + "ffn_gate", c.ffn, c.dim, x));
    act = ops::SwiGlu(gate, up);
  } else {
    act = GeluTanh(up, /*half_precision_table=*/true);
  }
  return Projection(g, w, p + "ffn_down", c.dim, c.ffn, act);
}

absl::StatusOr<int64_t> Int(const checkpoint::TensorDict& d, const std::string& a, const char* name,
                            int64_t max) {
  return RequiredInt(d, Key(a, name), max);
}

constexpr EncoderArchInfo kEncoders[] = {
    {EncoderArch::kBert, "bert", false},
    {EncoderArch::kNomicBert, "nomic-bert", false},
    {EncoderArch::kGemmaEmbedding, "gemma-embedding", true},
};

constexpr bool EncoderRowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kEncoders); ++i) {
    if (static_cast<size_t>(kEncoders[i].arch) != i) return false;
  }
  return true;
}
static_assert(EncoderRowsInEnumOrder(), "rows in the order of enum EncoderArch");

// "bert, nomic-bert or gemma-embedding".
std::string EncoderNames() {
  std::string names;
  for (size_t i = 0; i < std::size(kEncoders); ++i) {
    if (i > 0) absl::StrAppend(&names, i + 1 == std::size(kEncoders) ? " or " : ", ");
    absl::StrAppend(&names, kEncoders[i].gguf_name);
  }
  return names;
}

}  // namespace

absl::Span<const EncoderArchInfo> EncoderArchitectures() { return kEncoders; }

const EncoderArchInfo& EncoderInfo(EncoderArch a) { return kEncoders[static_cast<size_t>(a)]; }

const EncoderArchInfo* FindEncoder(absl::string_view name) {
  for (const EncoderArchInfo& e : kEncoders) {
    if (name == e.gguf_name) return &e;
  }
  return nullptr;
}

bool IsEncoderArchitecture(absl::string_view name) { return FindEncoder(name) != nullptr; }

absl::StatusOr<EncoderConfig> EncoderConfigFromMetadata(const checkpoint::TensorDict& d) {
  EncoderConfig c;
  EDGEQ_ASSIGN_OR_RETURN(c.architecture, d.GetString("general.architecture"));
  const EncoderArchInfo* row = FindEncoder(c.architecture);
  if (row == nullptr) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "general.architecture '%s'; expected an encoder: %s", c.architecture, EncoderNames()));
  }
  const std::string& a = c.architecture;
  c.arch = row->arch;
  EDGEQ_ASSIGN_OR_RETURN(c.dim, Int(d, a, "embedding_length", kMaxEmbedding));
  EDGEQ_ASSIGN_OR_RETURN(c.layers, Int(d, a, "block_count", kMaxLayers));
  EDGEQ_ASSIGN_OR_RETURN(c.ffn, Int(d, a, "feed_forward_length", kMaxFeedForward));
  EDGEQ_ASSIGN_OR_RETURN(c.heads, Int(d, a, "attention.head_count", kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(c.context, Int(d, a, "context_length", kMaxContext));
  if (c.dim % c.heads != 0 && c.arch != EncoderArch::kGemmaEmbedding) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: embedding_length %d is not a multiple of attention.head_count %d", a, c.dim, c.heads));
  }
  c.head_dim = c.dim / c.heads;
  c.kv_heads = c.heads;
  if (c.arch == EncoderArch::kGemmaEmbedding) EDGEQ_RETURN_IF_ERROR(GemmaEmbeddingConfig(d, &c));
  if (c.arch != EncoderArch::kBert && c.head_dim % 2 != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: head dimension %d; expected an even one (RoPE)", a, c.head_dim));
  }
  EDGEQ_ASSIGN_OR_RETURN(double eps,
                         OptionalFloat(d, Key(a, "attention.layer_norm_epsilon"), 1e-12));
  c.norm_eps = static_cast<float>(eps);
  EDGEQ_ASSIGN_OR_RETURN(double base, OptionalFloat(d, Key(a, "rope.freq_base"), 10000.0));
  c.rope_base = static_cast<float>(base);
  if (d.HasMetadata(Key(a, "pooling_type"))) {
    absl::StatusOr<int64_t> p = d.GetInt(Key(a, "pooling_type"));
    if (!p.ok() || *p < 0 || *p > 4) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "metadata key '%s'; expected 0 (none), 1 (mean), 2 (cls), 3 (last) or 4 (rank)",
          Key(a, "pooling_type")));
    }
    c.pooling_type = static_cast<int>(*p);
  }
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* embd, d.Get("token_embd.weight"));
  if (embd->logical_shape().rank() != 2 || embd->logical_shape().dim(1) != c.dim) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor 'token_embd.weight' is %s; expected [vocab, %d]", embd->DebugString(), c.dim));
  }
  c.vocab = embd->logical_shape().dim(0);
  return c;
}

absl::StatusOr<std::unique_ptr<Graph>> BuildEncoderGraph(const WeightReader& w,
                                                         const EncoderConfig& c, int64_t t) {
  if (c.arch == EncoderArch::kGemmaEmbedding) return BuildGemmaEmbeddingGraph(w, c, t);
  auto graph =
      std::make_unique<Graph>(absl::StrCat(c.architecture, "_t", t), std::vector<TensorType>{});
  Graph& g = *graph;
  Inputs in;
  const Value tokens = g.AddInput(io::kTokens, TensorType(DType::kInt32, {t}));
  in.positions = g.AddInput(io::kPositions, TensorType(DType::kInt32, {t}));
  in.mask = g.AddInput(kAttentionMask, TensorType(DType::kFloat32, {t, t}));
  EDGEQ_ASSIGN_OR_RETURN(Value x, Lookup(g, w, "token_embd.weight", c.vocab, c.dim, tokens));
  if (w.Contains("token_types.weight")) {  // token type 0 ("sentence A") for every row
    EDGEQ_ASSIGN_OR_RETURN(Tensor zero, Tensor::Create(DType::kInt32, {1}));
    EDGEQ_ASSIGN_OR_RETURN(Value type0,
                           Lookup(g, w, "token_types.weight", 1, c.dim, g.Constant(zero)));
    x = ops::Add(x, type0);
  }
  if (c.arch == EncoderArch::kBert) {
    EDGEQ_ASSIGN_OR_RETURN(Value pos,
                           Lookup(g, w, "position_embd.weight", c.context, c.dim, in.positions));
    x = ops::Add(pos, x);
  } else {
    EDGEQ_ASSIGN_OR_RETURN(Tensor inv_freq, Tensor::Create(DType::kFloat32, {c.head_dim / 2}));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> f, inv_freq.MutableValues<float>());
    const float theta_scale = std::pow(c.rope_base, -2.0f / static_cast<float>(c.head_dim));
    float theta = 1.0f;  // ggml_rope's theta_scale powers
    for (float& v : f) {
      v = theta;
      theta *= theta_scale;
    }
    in.inv_freq = g.Constant(inv_freq);
  }
  EDGEQ_ASSIGN_OR_RETURN(x, LayerNorm(g, w, "token_embd_norm", c.dim, c.norm_eps, x));
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    EDGEQ_ASSIGN_OR_RETURN(Value attn, SelfAttention(g, w, c, in, p, t, x));
    EDGEQ_ASSIGN_OR_RETURN(
        Value cur, LayerNorm(g, w, p + "attn_output_norm", c.dim, c.norm_eps, ops::Add(attn, x)));
    EDGEQ_ASSIGN_OR_RETURN(Value ffn, FeedForward(g, w, c, p, cur));
    EDGEQ_ASSIGN_OR_RETURN(
        x, LayerNorm(g, w, p + "layer_output_norm", c.dim, c.norm_eps, ops::Add(ffn, cur)));
  }
  g.Output(io::kHidden, x);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
