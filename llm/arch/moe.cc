// Mixture-of-experts feed-forward layers (qwen3moe, lfm2moe), as llama.cpp's build_moe_ffn with a
// gate, an up and a down matrix per expert: router logits from ffn_gate_inp [experts, dim], then
// the runtime's "moe" op (runtime/ops/moe.cc: gating, top-k, renormalisation, the routed experts'
// SwiGLU FFNs over the block's rows grouped by expert, the weighted sum). The experts are 3-D
// tensors ffn_gate_exps/ffn_up_exps [experts, expert ffn, dim] and ffn_down_exps [experts, dim,
// expert ffn] in any encoding with a qmatmul kernel, f16 or f32.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "graph/ops.h"
#include "llm/arch/common.h"

namespace edgeq {
namespace llm {
namespace arch {

// The most experts a layer may have (above every released model: 512).
inline constexpr int64_t kMaxExperts = 4096;

absl::Status ReadExpertConfig(const checkpoint::TensorDict& d, ModelConfig* c) {
  const std::string& a = c->architecture;
  EDGEQ_ASSIGN_OR_RETURN(int64_t experts, RequiredInt(d, Key(a, "expert_count"), kMaxExperts));
  EDGEQ_ASSIGN_OR_RETURN(int64_t used, RequiredInt(d, Key(a, "expert_used_count"), kMaxExperts));
  if (used > experts) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %d; expected at most %s = %d",
                        Key(a, "expert_used_count"), used, Key(a, "expert_count"), experts));
  }
  // llama.cpp's default: feed_forward_length / expert_used_count.
  EDGEQ_ASSIGN_OR_RETURN(int64_t ffn, OptionalInt(d, Key(a, "expert_feed_forward_length"),
                                                  c->feed_forward_length / used, kMaxFeedForward));
  if (ffn <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "metadata key '%s' is missing and %s / %s is 0; expected a positive expert width",
        Key(a, "expert_feed_forward_length"), Key(a, "feed_forward_length"),
        Key(a, "expert_used_count")));
  }
  c->expert_count = static_cast<int>(experts);
  c->expert_used_count = static_cast<int>(used);
  c->expert_feed_forward_length = static_cast<int>(ffn);
  return absl::OkStatus();
}

namespace {

// Expert tensor `name` as a graph constant of logical shape [experts, rows, cols]: quantized,
// f32, or f16 (viewed as the "f16" encoding, as Model::AdoptWeights does for matrices).
absl::StatusOr<Value> ExpertWeights(LayerGraph& b, const std::string& name, int64_t rows,
                                    int64_t cols) {
  const int64_t e = b.config().expert_count;
  const Shape want({e, rows, cols});
  absl::StatusOr<const Tensor*> got = b.weights().Get(name);
  if (!got.ok()) {
    return absl::InvalidArgumentError(
        absl::StrFormat("tensor '%s' is missing (expected %s)", name, want.ToString()));
  }
  const Tensor& t = **got;
  const Shape& logical = t.is_quantized() ? t.logical_shape() : t.shape();
  const bool plain_ok = t.dtype() == DType::kFloat32 || t.dtype() == DType::kFloat16;
  if (logical != want || (!t.is_quantized() && !plain_ok)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor '%s' is %s; expected %s (experts, rows, columns), f32, f16 or quantized", name,
        t.DebugString(), want.ToString()));
  }
  if (!t.is_quantized() && t.dtype() == DType::kFloat16) {
    auto keep = std::make_shared<Tensor>(t);
    EDGEQ_ASSIGN_OR_RETURN(Tensor f16, Tensor::View(DType::kUInt8, Shape({e, rows, 2 * cols}),
                                                    t.raw_data(), t.size_bytes(), keep));
    f16.SetQuantization("f16", want);
    return b.graph().Constant(f16);
  }
  return b.graph().Constant(t);
}

}  // namespace

absl::StatusOr<Value> MoeFeedForward(LayerGraph& b, int layer, Value h) {
  const ModelConfig& c = b.config();
  Graph& g = b.graph();
  const int64_t dim = c.embedding_length, ffn = c.expert_feed_forward_length;
  const int64_t experts = c.expert_count;
  const std::string p = absl::StrCat("blk.", layer, ".");
  EDGEQ_ASSIGN_OR_RETURN(Value logits,
                         Linear(g, b.weights(), p + "ffn_gate_inp.weight", experts, dim, h));
  EDGEQ_ASSIGN_OR_RETURN(Value gate, ExpertWeights(b, p + "ffn_gate_exps.weight", ffn, dim));
  EDGEQ_ASSIGN_OR_RETURN(Value up, ExpertWeights(b, p + "ffn_up_exps.weight", ffn, dim));
  EDGEQ_ASSIGN_OR_RETURN(Value down, ExpertWeights(b, p + "ffn_down_exps.weight", dim, ffn));
  Value n = b.real_rows;
  if (!n.ok()) {  // no recurrent state: every row of the block is routed
    EDGEQ_ASSIGN_OR_RETURN(Tensor rows, Tensor::Create(DType::kInt32, Shape({1})));
    (*rows.MutableValues<int32_t>())[0] = static_cast<int32_t>(b.t());
    n = g.Constant(rows);
  }
  std::vector<Value> in = {h, logits, gate, up, down, n};
  const std::string bias_name = p + "exp_probs_b.bias";
  if (c.expert_selection_bias) {  // lfm2moe: required (as llama.cpp)
    absl::StatusOr<const Tensor*> bias = b.weights().Get(bias_name);
    if (!bias.ok() || (*bias)->dtype() != DType::kFloat32 || (*bias)->is_quantized() ||
        (*bias)->shape() != Shape({experts})) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor '%s' is %s; expected f32 [%d] (%s)", bias_name,
                          bias.ok() ? (*bias)->DebugString() : std::string("missing"), experts,
                          Key(c.architecture, "expert_count")));
    }
    in.push_back(g.Constant(**bias));
  }
  const Value y = ops::Op("moe", in,
                          {{"gating", std::string(c.expert_sigmoid_gating ? "sigmoid" : "softmax")},
                           {"k", int64_t{c.expert_used_count}},
                           {"normalize", int64_t{c.expert_weights_norm ? 1 : 0}}});
  EDGEQ_RETURN_IF_ERROR(g.status());
  return y;
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
