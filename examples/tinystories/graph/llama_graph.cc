#include "examples/tinystories/graph/llama_graph.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "quantization/encoding.h"

namespace edgeq {
namespace tinystories {
namespace {

// The matrix `name`, whose (logical, if quantized) shape must be [rows, cols].
absl::StatusOr<const Tensor*> GetMatrix(const checkpoint::TensorDict& dict, const std::string& name,
                                        int64_t rows, int64_t cols) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, dict.Get(name));
  const Shape& logical = w->is_quantized() ? w->logical_shape() : w->shape();
  if (logical != Shape({rows, cols})) {
    return absl::InvalidArgumentError(absl::StrFormat("tensor '%s' has shape %s, expected [%d, %d]",
                                                      name, logical.ToString(), rows, cols));
  }
  return w;
}

// Adds the weight `name` as a constant and returns x · W^T: QMatmul for a quantized weight,
// MatmulTransposed for f32. `rows` x `cols` is the expected logical shape [out, in].
absl::StatusOr<Value> Linear(Graph& g, const checkpoint::TensorDict& dict, const std::string& name,
                             int64_t rows, int64_t cols, Value x) {
  EDGEQ_ASSIGN_OR_RETURN(const Tensor* w, GetMatrix(dict, name, rows, cols));
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

// The decoder for a block of `t` consecutive tokens at positions pos..pos+t-1, after positions
// 0..pos-1 are in the caches. Inputs: tokens i32 [t], positions i32 [t], cache mask f32 [1, seq]
// (0 before pos, -inf from pos on), then K and V caches [kv heads, seq, head size] per layer.
// Outputs: the last token's logits [1, vocab], then the block's K and V rows
// [kv heads, t, head size] per layer.
absl::StatusOr<std::unique_ptr<Graph>> BuildGraph(const checkpoint::TensorDict& dict,
                                                  const checkpoint::Llama2cConfig& c, int64_t t) {
  const int64_t dim = c.dim, hidden = c.hidden_dim, seq = c.seq_len;
  const int64_t hs = c.dim / c.n_heads, kvh = c.n_kv_heads, rep = c.n_heads / c.n_kv_heads;
  const int64_t kv_dim = kvh * hs;
  std::vector<TensorType> input_types = {TensorType(DType::kInt32, {t}),
                                         TensorType(DType::kInt32, {t}),
                                         TensorType(DType::kFloat32, {1, seq})};
  for (int l = 0; l < c.n_layers; ++l) {
    input_types.emplace_back(DType::kFloat32, Shape({kvh, seq, hs}));  // K cache
    input_types.emplace_back(DType::kFloat32, Shape({kvh, seq, hs}));  // V cache
  }
  auto graph = std::make_unique<Graph>(absl::StrCat("llama_t", t), input_types);
  Graph& g = *graph;
  const Value tokens = g.Input(0), positions = g.Input(1), mask = g.Input(2);

  EDGEQ_ASSIGN_OR_RETURN(const Tensor* embedding,
                         GetMatrix(dict, "token_embd.weight", c.vocab_size, dim));
  Value x = ops::Gather(g.Constant(*embedding), tokens);  // [t, dim]
  EDGEQ_ASSIGN_OR_RETURN(Tensor scale_t,
                         Tensor::Full({1}, 1.0f / std::sqrt(static_cast<float>(hs))));
  const Value scale = g.Constant(scale_t);
  // Within the block, query row (r, i) sees the block's keys j <= i.
  Value causal;
  if (t > 1) {
    EDGEQ_ASSIGN_OR_RETURN(Tensor causal_t, Tensor::Full({rep * t, t}, 0.0f));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> cv, causal_t.MutableValues<float>());
    for (int64_t row = 0; row < rep * t; ++row) {
      for (int64_t j = row % t + 1; j < t; ++j) {
        cv[row * t + j] = -std::numeric_limits<float>::infinity();
      }
    }
    causal = g.Constant(causal_t);
  }
  // [t, heads, hs] -> [heads, t, hs]; and back.
  const std::vector<int64_t> swap01 = {1, 0, 2};

  std::vector<Value> outputs(1);  // logits first
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    const Value k_cache = g.Input(3 + 2 * l), v_cache = g.Input(4 + 2 * l);
    EDGEQ_ASSIGN_OR_RETURN(Value h, Norm(g, dict, p + "attn_norm.weight", dim, x));
    EDGEQ_ASSIGN_OR_RETURN(Value q, Linear(g, dict, p + "attn_q.weight", dim, dim, h));
    EDGEQ_ASSIGN_OR_RETURN(Value k, Linear(g, dict, p + "attn_k.weight", kv_dim, dim, h));
    EDGEQ_ASSIGN_OR_RETURN(Value v, Linear(g, dict, p + "attn_v.weight", kv_dim, dim, h));
    q = ops::Rope(ops::Reshape(q, {t, c.n_heads, hs}), positions);
    k = ops::Rope(ops::Reshape(k, {t, kvh, hs}), positions);
    // Query heads grouped by the kv head they share: [kv heads, rep * t, hs].
    const Value qg = ops::Reshape(ops::Transpose(q, swap01), {kvh, rep * t, hs});
    const Value k_new = ops::Transpose(k, swap01);                              // [kvh, t, hs]
    const Value v_new = ops::Transpose(ops::Reshape(v, {t, kvh, hs}), swap01);  // [kvh, t, hs]
    // Scores against the cached positions (masked from pos on) and within the block.
    const Value s_cache = ops::Add(ops::Mul(ops::MatmulTransposed(qg, k_cache), scale), mask);
    Value s_new = ops::Mul(ops::MatmulTransposed(qg, k_new), scale);  // [kvh, rep * t, t]
    if (t > 1) s_new = ops::Add(s_new, causal);
    const Value att = ops::Softmax(ops::Concat({s_cache, s_new}, -1));  // [kvh, rep*t, seq+t]
    const Value a_cache = ops::Slice(att, {0, 0, 0}, {kvh, rep * t, seq});
    const Value a_new = ops::Slice(att, {0, 0, seq}, {kvh, rep * t, seq + t});
    const Value o = ops::Add(ops::Matmul(a_cache, v_cache), ops::Matmul(a_new, v_new));
    const Value o_rows =
        ops::Reshape(ops::Transpose(ops::Reshape(o, {c.n_heads, t, hs}), swap01), {t, dim});
    EDGEQ_ASSIGN_OR_RETURN(Value attn_out,
                           Linear(g, dict, p + "attn_output.weight", dim, dim, o_rows));
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
  // Only the last token's logits are needed.
  if (t > 1) x = ops::Slice(x, {t - 1, 0}, {t, dim});
  EDGEQ_ASSIGN_OR_RETURN(x, Norm(g, dict, "output_norm.weight", dim, x));
  const std::string classifier = c.shared_classifier ? "token_embd.weight" : "output.weight";
  EDGEQ_ASSIGN_OR_RETURN(outputs[0], Linear(g, dict, classifier, c.vocab_size, dim, x));
  g.Output(outputs);
  EDGEQ_RETURN_IF_ERROR(g.status());
  return graph;
}

}  // namespace

absl::StatusOr<LlamaGraphModel::Block> LlamaGraphModel::LoadBlock(
    const checkpoint::TensorDict& dict, int64_t t) {
  Block b;
  b.t = t;
  EDGEQ_ASSIGN_OR_RETURN(b.graph, BuildGraph(dict, config_, t));
  EDGEQ_ASSIGN_OR_RETURN(Model model, session_->Load(*b.graph));
  b.model = std::make_unique<Model>(std::move(model));
  EDGEQ_ASSIGN_OR_RETURN(b.tokens, Tensor::Create(DType::kInt32, {t}));
  EDGEQ_ASSIGN_OR_RETURN(b.positions, Tensor::Create(DType::kInt32, {t}));
  return b;
}

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
  if (options.prefill_block < 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "LlamaGraphOptions.prefill_block must be >= 0, got %d", options.prefill_block));
  }
  std::unique_ptr<LlamaGraphModel> m(new LlamaGraphModel());
  m->config_ = c;
  const int64_t seq = c.seq_len, hs = c.dim / c.n_heads, kvh = c.n_kv_heads;
  m->head_size_ = static_cast<int>(hs);
  m->session_ = std::make_unique<InferenceSession>(
      SessionOptions{.num_threads = options.num_threads, .isa_cap = options.isa_cap});
  EDGEQ_ASSIGN_OR_RETURN(m->decode_, m->LoadBlock(dict, 1));
  const int64_t block = std::min<int64_t>(options.prefill_block, seq);
  if (block > 1) {
    EDGEQ_ASSIGN_OR_RETURN(Block prefill, m->LoadBlock(dict, block));
    m->prefill_ = std::make_unique<Block>(std::move(prefill));
  }
  EDGEQ_ASSIGN_OR_RETURN(m->mask_, Tensor::Create(DType::kFloat32, {1, seq}));
  for (int l = 0; l < c.n_layers; ++l) {
    m->input_names_.push_back(absl::StrCat("input", 3 + 2 * l));
    m->input_names_.push_back(absl::StrCat("input", 4 + 2 * l));
    m->output_names_.push_back(absl::StrCat("output", 1 + 2 * l));
    m->output_names_.push_back(absl::StrCat("output", 2 + 2 * l));
    EDGEQ_ASSIGN_OR_RETURN(Tensor kc, Tensor::Full({kvh, seq, hs}, 0.0f));
    EDGEQ_ASSIGN_OR_RETURN(Tensor vc, Tensor::Full({kvh, seq, hs}, 0.0f));
    m->k_cache_.push_back(std::move(kc));
    m->v_cache_.push_back(std::move(vc));
  }
  return m;
}

absl::StatusOr<absl::Span<const float>> LlamaGraphModel::Run(Block& b, absl::Span<const int> tokens,
                                                             int pos) {
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> tv, b.tokens.MutableValues<int32_t>());
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<int32_t> pv, b.positions.MutableValues<int32_t>());
  for (int64_t i = 0; i < b.t; ++i) {
    tv[i] = tokens[i];
    pv[i] = pos + static_cast<int>(i);
  }
  // Positions 0..pos-1 are in the caches; the block's own rows are attended to separately.
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> mask, mask_.MutableValues<float>());
  for (int i = 0; i < config_.seq_len; ++i) {
    mask[i] = i < pos ? 0.0f : -std::numeric_limits<float>::infinity();
  }
  // NamedTensor holds pointers to these members, which stay in place during the call.
  std::vector<NamedTensor>& in = inputs_;
  in.clear();
  in.emplace_back("input0", b.tokens);
  in.emplace_back("input1", b.positions);
  in.emplace_back("input2", mask_);
  for (int l = 0; l < config_.n_layers; ++l) {
    in.emplace_back(input_names_[2 * l], k_cache_[l]);
    in.emplace_back(input_names_[2 * l + 1], v_cache_[l]);
  }
  EDGEQ_ASSIGN_OR_RETURN(TensorMap out, b.model->Execute(in));
  // Store the block's K and V rows ([kv heads, t, hs]) into the caches at pos..pos+t-1.
  const int64_t hs = head_size_, seq = config_.seq_len, t = b.t;
  for (int l = 0; l < config_.n_layers; ++l) {
    for (int which = 0; which < 2; ++which) {
      EDGEQ_ASSIGN_OR_RETURN(Tensor rows, out.Get(output_names_[2 * l + which]));
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> src, rows.Values<float>());
      Tensor& cache = which == 0 ? k_cache_[l] : v_cache_[l];
      EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> dst, cache.MutableValues<float>());
      for (int64_t h = 0; h < config_.n_kv_heads; ++h) {
        std::memcpy(dst.data() + (h * seq + pos) * hs, src.data() + h * t * hs,
                    t * hs * sizeof(float));
      }
    }
  }
  EDGEQ_ASSIGN_OR_RETURN(Tensor logits, out.Get("output0"));
  return logits.Values<float>();
}

absl::StatusOr<absl::Span<const float>> LlamaGraphModel::Forward(int token, int pos) {
  const int one[1] = {token};
  return Prefill(absl::MakeConstSpan(one), pos);
}

absl::StatusOr<absl::Span<const float>> LlamaGraphModel::Prefill(absl::Span<const int> tokens,
                                                                 int pos) {
  if (tokens.empty()) return absl::InvalidArgumentError("Prefill: no tokens given");
  for (int token : tokens) {
    if (token < 0 || token >= config_.vocab_size) {
      return absl::OutOfRangeError(
          absl::StrFormat("token %d is outside the vocabulary [0, %d)", token, config_.vocab_size));
    }
  }
  const int64_t end = static_cast<int64_t>(pos) + static_cast<int64_t>(tokens.size());
  if (pos < 0 || end > config_.seq_len) {
    return absl::OutOfRangeError(absl::StrFormat("positions %d..%d are outside the context [0, %d)",
                                                 pos, end - 1, config_.seq_len));
  }
  absl::Span<const float> logits;
  size_t i = 0;
  while (i < tokens.size()) {
    const bool use_block =
        prefill_ != nullptr && tokens.size() - i >= static_cast<size_t>(prefill_->t);
    Block& b = use_block ? *prefill_ : decode_;
    EDGEQ_ASSIGN_OR_RETURN(logits, Run(b, tokens.subspan(i, b.t), pos + static_cast<int>(i)));
    i += b.t;
  }
  return logits;
}

std::vector<std::string> LlamaGraphModel::MatmulKernels() const {
  std::vector<std::string> names;
  for (absl::string_view line : absl::StrSplit(decode_.model->DebugString(), '\n')) {
    const size_t arrow = line.find(" -> ");
    if (arrow == absl::string_view::npos || !absl::StrContains(line.substr(0, arrow), "matmul")) {
      continue;
    }
    std::string name(absl::StripAsciiWhitespace(line.substr(arrow + 4)));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string LlamaGraphModel::DebugString() const {
  std::string s = absl::StrCat(decode_.graph->ToString(), decode_.model->DebugString());
  if (prefill_ != nullptr) {
    absl::StrAppend(&s, prefill_->graph->ToString(), prefill_->model->DebugString());
  }
  return s;
}

}  // namespace tinystories
}  // namespace edgeq
