// Writes a llama2.c checkpoint with seeded random weights, by default of stories15M's shape
// (dim 288, hidden 768, 6 layers, 6 heads, vocab 32000, seq 256): a stand-in for scale and speed
// measurements where the real 15M model cannot be downloaded. Weights ~ U(-a, a) with
// a = 1/sqrt(fan_in); norms are 1.
//
//   bazel run //examples/tinystories:make_random_llama -- --out=/tmp/stories15M_random.bin
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/llama2c.h"
#include "checkpoint/tensor_dict.h"
#include "core/status_macros.h"
#include "core/tensor.h"

ABSL_FLAG(std::string, out, "stories15M_random.bin", "output llama2.c .bin");
ABSL_FLAG(int, dim, 288, "model width");
ABSL_FLAG(int, hidden_dim, 768, "feed-forward width");
ABSL_FLAG(int, n_layers, 6, "layers");
ABSL_FLAG(int, n_heads, 6, "heads");
ABSL_FLAG(int, n_kv_heads, 6, "kv heads");
ABSL_FLAG(int, vocab_size, 32000, "vocabulary");
ABSL_FLAG(int, seq_len, 256, "context");
ABSL_FLAG(uint64_t, seed, 15, "random seed");

namespace edgeq {
namespace {

using checkpoint::MetadataValue;

absl::Status Run() {
  const int dim = absl::GetFlag(FLAGS_dim), hidden = absl::GetFlag(FLAGS_hidden_dim);
  const int layers = absl::GetFlag(FLAGS_n_layers), heads = absl::GetFlag(FLAGS_n_heads);
  const int kv_heads = absl::GetFlag(FLAGS_n_kv_heads), vocab = absl::GetFlag(FLAGS_vocab_size);
  const int seq = absl::GetFlag(FLAGS_seq_len);
  if (dim <= 0 || hidden <= 0 || layers <= 0 || heads <= 0 || kv_heads <= 0 || vocab <= 0 ||
      seq <= 0 || dim % heads != 0 || heads % kv_heads != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad shape: dim %d, hidden %d, layers %d, heads %d, kv heads %d, vocab %d, seq %d (all "
        "positive, dim a multiple of heads, heads a multiple of kv heads)",
        dim, hidden, layers, heads, kv_heads, vocab, seq));
  }
  uint64_t state = absl::GetFlag(FLAGS_seed) * 0x9E3779B97F4A7C15ull + 1;
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
  const auto u32 = MetadataValue::Width::kU32;
  d.SetMetadata("general.architecture", MetadataValue::String("llama"));
  d.SetMetadata("llama.embedding_length", MetadataValue::Int(dim, u32));
  d.SetMetadata("llama.feed_forward_length", MetadataValue::Int(hidden, u32));
  d.SetMetadata("llama.block_count", MetadataValue::Int(layers, u32));
  d.SetMetadata("llama.attention.head_count", MetadataValue::Int(heads, u32));
  d.SetMetadata("llama.attention.head_count_kv", MetadataValue::Int(kv_heads, u32));
  d.SetMetadata("llama.context_length", MetadataValue::Int(seq, u32));
  d.SetMetadata("llama.vocab_size", MetadataValue::Int(vocab, u32));
  d.SetMetadata("llama.rope.dimension_count", MetadataValue::Int(dim / heads, u32));
  d.SetMetadata("llama.attention.layer_norm_rms_epsilon",
                MetadataValue::Float(1e-5, MetadataValue::Width::kF32));
  d.SetMetadata("llama2c.shared_classifier", MetadataValue::Bool(true));
  EDGEQ_RETURN_IF_ERROR(checkpoint::WriteLlama2c(d, absl::GetFlag(FLAGS_out)));
  absl::FPrintF(stderr,
                "wrote %s (dim %d, hidden %d, %d layers, %d heads, %d kv heads, vocab %d, seq %d, "
                "shared classifier, %.1f MB f32)\n",
                absl::GetFlag(FLAGS_out), dim, hidden, layers, heads, kv_heads, vocab, seq,
                d.TotalBytes() / 1e6);
  return absl::OkStatus();
}

}  // namespace
}  // namespace edgeq

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Write a llama2.c model with seeded random weights (default: stories15M's shape).\n"
      "  make_random_llama [--out=PATH.bin] [--dim=N] [--hidden_dim=N] [--n_layers=N]\n"
      "                    [--n_heads=N] [--n_kv_heads=N] [--vocab_size=N] [--seq_len=N] "
      "[--seed=S]");
  std::vector<char*> rest = absl::ParseCommandLine(argc, argv);
  if (rest.size() > 1) {
    absl::FPrintF(stderr, "error: unexpected argument '%s'\n", rest[1]);
    return 2;
  }
  absl::Status s = edgeq::Run();
  if (!s.ok()) {
    absl::FPrintF(stderr, "error: %s\n", s.message());
    return 1;
  }
  return 0;
}
