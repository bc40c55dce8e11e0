#include "examples/tinystories/random_llama.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/llama2c.h"
#include "core/status_macros.h"
#include "core/tensor.h"

namespace edgeq {
namespace tinystories {

absl::StatusOr<checkpoint::TensorDict> RandomLlama(const RandomLlamaOptions& o) {
  checkpoint::Llama2cConfig config = o.shape;
  config.shared_classifier = true;
  const int dim = config.dim, hidden = config.hidden_dim, layers = config.n_layers;
  const int heads = config.n_heads, kv_heads = config.n_kv_heads, vocab = config.vocab_size;
  const int seq = config.seq_len;
  if (dim <= 0 || hidden <= 0 || layers <= 0 || heads <= 0 || kv_heads <= 0 || vocab <= 0 ||
      seq <= 0 || dim % heads != 0 || heads % kv_heads != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad shape: dim %d, hidden %d, layers %d, heads %d, kv heads %d, vocab %d, seq %d (all "
        "positive, dim a multiple of heads, heads a multiple of kv heads)",
        dim, hidden, layers, heads, kv_heads, vocab, seq));
  }
  uint64_t state = o.seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&state]() {  // xorshift64*, uniform in [-1, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<float>((state * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
  };
  checkpoint::TensorDict d;
  auto add = [&](const std::string& name, std::vector<int64_t> shape) -> absl::Status {
    EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, Shape(shape)));
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, t.MutableValues<float>());
    const float a = shape.size() == 1 ? 0.0f : 1.0f / std::sqrt(static_cast<float>(shape.back()));
    for (float& x : v) x = shape.size() == 1 ? 1.0f : a * next();
    return d.Set(name, std::move(t));
  };
  const int kv_dim = dim / heads * kv_heads;
  EDGEQ_RETURN_IF_ERROR(add("token_embd.weight", {vocab, dim}));
  for (int l = 0; l < layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_norm.weight", {dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_q.weight", {dim, dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_k.weight", {kv_dim, dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_v.weight", {kv_dim, dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_output.weight", {dim, dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "ffn_norm.weight", {dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate.weight", {hidden, dim}));
    EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down.weight", {dim, hidden}));
    EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up.weight", {hidden, dim}));
  }
  EDGEQ_RETURN_IF_ERROR(add("output_norm.weight", {dim}));
  checkpoint::SetLlama2cConfigMetadata(config, &d);
  return d;
}

}  // namespace tinystories
}  // namespace edgeq
