#include "examples/tinystories/graph/llama_graph.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace tinystories {
namespace {

// Adds the weight `name` as a constant and returns x · W^T: QMatmul for a quantized weight,
// MatmulTransposed for f32. `rows` x `cols` is the expected logical shape [out, in].
absl::StatusOr<Value> Linear(Graph& g, const checkpoint::TensorDict& dict, const std::string& name,
                             int64_t rows, int64_t cols, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, dict.Get(name));
  const Shape& logical = w->is_quantized() ? w->logical_shape() : w->shape();
  if (logical != Shape({rows, cols})) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' has shape %s, expected [%d, %d]",
                                                      name, logical.ToString(), rows, cols));
  }
  if (w->is_quantized()) {
    EDGEQ_ASSIGN_OR_RETURN(const QuantizationEncoding* enc, FindEncoding(w->encoding()));
    return ops::QMatmul(*enc, x, g.Constant(*w));
  }
  if (w->dtype() != DType::kFloat32) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor '%s' is %s; expected f32 or a quantized encoding", name, DTypeName(w->dtype())));
  }
  return ops::MatmulTransposed(x, g.Constant(*w));
}

absl::StatusOr<Value> Norm(Graph& g, const checkpoint::TensorDict& dict, const std::string& name,
                           int64_t dim, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, dict.Get(name, DType::kFloat32));
  if (w->shape() != Shape({dim})) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' has shape %s, expected [%d]",
                                                      name, w->shape().ToString(), dim));
  }
  return ops::RmsNorm(x, g.Constant(*w), 1e-5f);
}

}  // namespace

absl::StatusOr<std::unique_ptr<LlamaGraphModel>> LlamaGraphModel::Create(
    const checkpoint::TensorDict& dict, const LlamaGraphOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::Llama2cConfig c, checkpoint::Llama2cConfigFromMetadata(dict));
  if (c.n_heads <= 0 || c.n_kv_heads <= 0 || c.dim % c.n_heads != 0 ||
      c.n_heads % c.n_kv_heads != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("llama config: dim %d, heads %d, kv heads %d: dim must be a multiple of "
                        "heads and heads a multiple of kv heads",
                        c.dim, c.n_heads, c.n_kv_heads));
  }
  std::unique_ptr<LlamaGraphModel> m(new LlamaGraphModel());
  m->config_ = c;
  const int64_t dim = c.dim, hidden = c.hidden_dim, seq = c.seq_len;
  const int64_t hs = c.dim / c.n_heads, kvh = c.n_kv_heads, rep = c.n_heads / c.n_kv_heads;
  const int64_t kv_dim = kvh * hs;
  m->head_size_ = static_cast<int>(hs);

  std::vector<TensorType> input_types = {TensorType(DType::kInt32, {1}),
                                         TensorType(DType::kInt32, {1}),
                                         TensorType(DType::kFloat32, {1, seq})};
  for (int l = 0; l < c.n_layers; ++l) {
    input_types.emplace_back(DType::kFloat32, Shape({kvh, seq, hs}));  // K cache
    input_types.emplace_back(DType::kFloat32, Shape({kvh, seq, hs}));  // V cache
  }
  m->graph_ = std::make_unique<Graph>("llama", input_types);
  Graph& g = *m->graph_;
  Value token = g.Input(0), pos = g.Input(1), mask = g.Input(2);

  EDGEQ_ASSIGN_OR_RETURN(const Tensor* embedding, dict.Get("token_embd.weight"));
  const Shape& emb_shape =
      embedding->is_quantized() ? embedding->logical_shape() : embedding->shape();
  if (emb_shape != Shape({c.vocab_size, dim})) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor 'token_embd.weight' has shape %s, expected [%d, %d]",
                        emb_shape.ToString(), c.vocab_size, dim));
  }
  Value x = ops::Gather(g.Constant(*embedding), token);  // [1, dim]
  EDGEQ_ASSIGN_OR_RETURN(Tensor scale_t,
                         Tensor::Full({1}, 1.0f / std::sqrt(static_cast<float>(hs))));
  const Value scale = g.Constant(scale_t);

  std::vector<Value> outputs(1);  // logits first
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    const Value k_cache = g.Input(3 + 2 * l), v_cache = g.Input(4 + 2 * l);
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(g, dict, p + "attn_norm.weight", dim, x));
    EDGEQ_ASSIGN_OR_RETURN(Value q, Linear(g, dict, p + "attn_q.weight", dim, dim, h));
    EDGEQ_ASSIGN_OR_RETURN(Value k, Linear(g, dict, p + "attn_k.weight", kv_dim, dim, h));
    EDGEQ_ASSIGN_OR_RETURN(Value v, Linear(g, dict, p + "attn_v.weight", kv_dim, dim, h));
    q = ops::Rope(ops::Reshape(q, {1, c.n_heads, hs}), pos);  // [1, heads, hs]
    k = ops::Rope(ops::Reshape(k, {1, kvh, hs}), pos);        // [1, kv heads, hs]
    // Heads grouped by the kv head they share: [kv heads, rep, hs].
    const Value qg = ops::Reshape(q, {kvh, rep, hs});
    const Value k_new = ops::Reshape(k, {kvh, 1, hs});
    const Value v_new = ops::Reshape(v, {kvh, 1, hs});
    // Scores against the cached positions (masked beyond pos) and against this position.
    const Value s_cache = ops::Add(ops::Mul(ops::MatmulTransposed(qg, k_cache), scale), mask);
    const Value s_new = ops::Mul(ops::MatmulTransposed(qg, k_new), scale);  // [kvh, rep, 1]
    const Value att = ops::Softmax(ops::Concat({s_cache, s_new}, -1));      // [kvh, rep, seq+1]
    const Value a_cache = ops::Slice(att, {0, 0, 0}, {kvh, rep, seq});
    const Value a_new = ops::Slice(att, {0, 0, seq}, {kvh, rep, seq + 1});
    const Value o = ops::Add(ops::Matmul(a_cache, v_cache), ops::Matmul(a_new, v_new));
    EDGEQ_ASSIGN_OR_RETURN(Value attn_out, Linear(g, dict, p + "attn_output.weight", dim, dim,
                                                  ops::Reshape(o, {1, dim})));
    x = ops::Add(x, attn_out);
    EDGEQ_ASSIGN_OR_RETURN(h, Norm(g, dict, p + "ffn_norm.weight", dim, x));
    EDGEQ_ASSIGN_OR_RETURN(Value gate, Linear(g, dict, p + "ffn_gate.weight", hidden, dim, h));
    EDGEQ_ASSIGN_OR_RETURN(Value up, Linear(g, dict, p + "ffn_up.weight", hidden, dim, h));
    EDGEQ_ASSIGN_OR_RETURN(Value down, Linear(g, dict, p + "ffn_down.weight", dim, hidden,
                                              ops::Mul(ops::Silu(gate), up)));
    x = ops::Add(x, down);
    outputs.push_back(k_new);
    outputs.push_back(v_new);
  }
  EDGEQ_ASSIGN_OR_RETURN(x, Norm(g, dict, "output_norm.weight", dim, x));
  const std::string classifier = c.shared_classifier ? "token_embd.weight" : "output.weight";
  EDGEQ_ASSIGN_OR_RETURN(outputs[0], Linear(g, dict, classifier, c.vocab_size, dim, x));
  g.Output(outputs);
  EDGEQ_RETURN_IF_ERROR(g.status());

  m->session_ = std::make_unique<InferenceSession>(
      SessionOptions{.num_threads = options.num_threads, .isa_cap = options.isa_cap});
  EDGEQ_ASSIGN_OR_RETURN(Model model, m->session_->Load(g));
  m->model_ = std::make_unique<Model>(std::move(model));

  EDGEQ_ASSIGN_OR_RETURN(m->token_, Tensor::Create(DType::kInt32, {1}));
  EDGEQ_ASSIGN_OR_RETURN(m->pos_, Tensor::Create(DType::kInt32, {1}));
  EDGEQ_ASSIGN_OR_RETURN(m->mask_, Tensor::Full({1, seq}, -std::numeric_limits<float>::infinity()));
  for (int l = 0; l < c.n_layers; ++l) {
    EDGEQ_ASSIGN_OR_RETURN(Tensor kc, Tensor::Full({kvh, seq, hs}, 0.0f));
    EDGEQ_ASSIGN_OR_RETURN(Tensor vc, Tensor::Full({kvh, seq, hs}, 0.0f));
    m->k_cache_.push_back(std::move(kc));
    m->v_cache_.push_back(std::move(vc));
  }
  const int num_inputs = 3 + 2 * c.n_layers;
  for (int i = 0; i < num_inputs; ++i) m->input_names_.push_back(absl::StrCat("input", i));
  // NamedTensor keeps pointers: the tensors and names above are never moved again.
  m->inputs_.emplace_back(m->input_names_[0], m->token_);
  m->inputs_.emplace_back(m->input_names_[1], m->pos_);
  m->inputs_.emplace_back(m->input_names_[2], m->mask_);
  for (int l = 0; l < c.n_layers; ++l) {
    m->inputs_.emplace_back(m->input_names_[3 + 2 * l], m->k_cache_[l]);
    m->inputs_.emplace_back(m->input_names_[4 + 2 * l], m->v_cache_[l]);
  }
  return m;
}

absl::StatusOr<absl::Span<const float>> LlamaGraphModel::Forward(int token, int pos) {
  if (token < 0 || token >= config_.vocab_size) {
    return absl::OutOfRangeError(
        absl::StrFormat("token %d is outside the vocabulary [0, %d)", token, config_.vocab_size));
  }
  if (pos < 0 || pos >= config_.seq_len) {
    return absl::OutOfRangeError(
        absl::StrFormat("position %d is outside the context [0, %d)", pos, config_.seq_len));
  }
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> t, token_.MutableValues<int32_t>());
  t[0] = token;
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> p, pos_.MutableValues<int32_t>());
  p[0] = pos;
  // Positions 0..pos-1 are in the cache; position pos is attended to as the new row. The mask
  // only changes by one entry per step, but a caller may restart at any position.
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> mask, mask_.MutableValues<float>());
  for (int i = 0; i < config_.seq_len; ++i) {
    mask[i] = i < pos ? 0.0f : -std::numeric_limits<float>::infinity();
  }
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, model_->Execute(inputs_));
  // Store this position's K and V rows ([kv heads, 1, hs]) into the caches.
  const int hs = head_size_;
  for (int l = 0; l < config_.n_layers; ++l) {
    for (int which = 0; which < 2; ++which) {
      EDGEQ_ASSIGN_OR_RETURN(Tensor row, out.Get(absl::StrCat("output", 1 + 2 * l + which)));
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> src, row.Values<float>());
      Tensor& cache = which == 0 ? k_cache_[l] : v_cache_[l];
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, cache.MutableValues<float>());
      for (int h = 0; h < config_.n_kv_heads; ++h) {
        std::memcpy(dst.data() + (static_cast<int64_t>(h) * config_.seq_len + pos) * hs,
                    src.data() + static_cast<int64_t>(h) * hs, hs * sizeof(float));
      }
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(Tensor logits, out.Get("output0"));
  return logits.Values<float>();
}

std::string LlamaGraphModel::DebugString() const {
  return absl::StrCat(graph_->ToString(), model_->DebugString());
}

}  // namespace tinystories
}  // namespace edgeq
