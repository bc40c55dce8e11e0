#include "llm/embed_random_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "llm/arch/bert.h"
#include "llm/random_model.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using Width = MetadataValue::Width;

std::vector<RandomEncoderArchitecture>& Registry() {
  static auto* registry = new std::vector<RandomEncoderArchitecture>();
  return *registry;
}

// The row index of `gguf_name` in the encoders' table (its size if none).
size_t EncoderRowIndex(absl::string_view gguf_name) {
  const absl::Span<const arch::EncoderArchInfo> rows = arch::EncoderArchitectures();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (gguf_name == rows[i].gguf_name) return i;
  }
  return rows.size();
}

// Every registration's presets, in the encoders' table order.
std::vector<NamedPreset<RandomEncoderSpec>> Presets() {
  std::vector<RandomEncoderArchitecture> r = Registry();
  std::stable_sort(r.begin(), r.end(),
                   [](const RandomEncoderArchitecture& x, const RandomEncoderArchitecture& y) {
                     return EncoderRowIndex(x.gguf_name) < EncoderRowIndex(y.gguf_name);
                   });
  std::vector<NamedPreset<RandomEncoderSpec>> p;
  for (const RandomEncoderArchitecture& a : r) {
    for (NamedPreset<RandomEncoderSpec>& preset : a.presets()) p.push_back(std::move(preset));
  }
  return p;
}

// kind 0: a matrix or table, U(-1, 1) / sqrt(columns); 1: a norm weight, 1 + U(-0.25, 0.25);
// 2: a bias, U(-0.1, 0.1).
absl::Status Add(checkpoint::TensorDict& d, uint64_t seed, const std::string& name,
                 std::vector<int64_t> shape, int kind) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, Shape(shape)));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, t.MutableValues<float>());
  uint64_t state = 1469598103934665603ull;
  for (unsigned char c : name) state = (state ^ c) * 1099511628211ull;
  state = (state ^ (seed * 0x9E3779B97F4A7C15ull)) | 1;
  auto next = [&state]() {  // xorshift64*, uniform in [-1, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<float>((state * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
  };
  const float a = 1.0f / std::sqrt(static_cast<float>(shape.back()));
  for (float& x : v) {
    x = kind == 0 ? a * next() : kind == 1 ? 1.0f + 0.25f * next() : 0.1f * next();
  }
  return d.Set(name, std::move(t));
}

// Whether the spec's architecture is encoder row `a` (llm/arch/bert.h).
bool Is(const RandomEncoderSpec& s, arch::EncoderArch a) {
  const arch::EncoderArchInfo* row = arch::FindEncoder(s.architecture);
  return row != nullptr && row->arch == a;
}

void AddMetadata(const RandomEncoderSpec& s, const checkpoint::TensorDict* vocab,
                 checkpoint::TensorDict& d) {
  const std::string& a = s.architecture;
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, Width::kU32); };
  d.SetMetadata("general.architecture", MetadataValue::String(a));
  d.SetMetadata("general.type", MetadataValue::String("model"));
  d.SetMetadata("general.name", MetadataValue::String(absl::StrCat(s.name, " (edgeq random)")));
  d.SetMetadata(a + ".block_count", u32(s.layers));
  d.SetMetadata(a + ".context_length", u32(s.context));
  d.SetMetadata(a + ".embedding_length", u32(s.dim));
  d.SetMetadata(a + ".feed_forward_length", u32(s.ffn));
  d.SetMetadata(a + ".attention.head_count", u32(s.heads));
  const bool gemma = Is(s, arch::EncoderArch::kGemmaEmbedding);
  if (gemma) {
    d.SetMetadata(a + ".attention.head_count_kv", u32(s.kv_heads));
    d.SetMetadata(a + ".rope.freq_base", MetadataValue::Float(s.rope_base, Width::kF32));
    d.SetMetadata(a + ".attention.layer_norm_rms_epsilon",
                  MetadataValue::Float(s.rms_eps, Width::kF32));
    d.SetMetadata(a + ".attention.key_length", u32(s.head_dim));
    d.SetMetadata(a + ".attention.value_length", u32(s.head_dim));
    d.SetMetadata(a + ".attention.sliding_window", u32(s.sliding_window));
    d.SetMetadata(a + ".attention.sliding_window_pattern", u32(s.sliding_window_pattern));
    d.SetMetadata(a + ".rope.freq_base_swa", MetadataValue::Float(s.rope_base_swa, Width::kF32));
    if (s.dense > 0) {
      d.SetMetadata(a + ".dense_2_feat_in", u32(s.dim));
      d.SetMetadata(a + ".dense_2_feat_out", u32(s.dense));
      d.SetMetadata(a + ".dense_3_feat_in", u32(s.dense));
      d.SetMetadata(a + ".dense_3_feat_out", u32(s.dim));
    }
  } else {
    d.SetMetadata(a + ".attention.layer_norm_epsilon",
                  MetadataValue::Float(s.norm_eps, Width::kF32));
  }
  d.SetMetadata("general.file_type", u32(0));
  if (!gemma) d.SetMetadata(a + ".attention.causal", MetadataValue::Bool(false));
  d.SetMetadata(a + ".pooling_type", u32(s.pooling_type));
  if (Is(s, arch::EncoderArch::kNomicBert)) {
    d.SetMetadata(a + ".rope.freq_base", MetadataValue::Float(s.rope_base, Width::kF32));
  }
  d.SetMetadata("general.quantization_version", u32(2));
  AddTokenizerKeys(vocab, d);
  if (!gemma && !d.HasMetadata("tokenizer.ggml.token_type_count")) {
    d.SetMetadata("tokenizer.ggml.token_type_count", u32(2));
  }
}

absl::StatusOr<checkpoint::TensorDict> RandomGemmaEmbedding(const RandomEncoderSpec& s,
                                                            int64_t n_vocab,
                                                            const checkpoint::TensorDict* vocab) {
  if (s.dim <= 0 || s.layers <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.heads % s.kv_heads != 0 ||
      s.head_dim <= 0 || s.head_dim % 2 != 0 || s.ffn <= 0 || s.context <= 0 || n_vocab <= 0 ||
      s.dense < 0 || s.sliding_window_pattern <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad gemma-embedding shape: dim %d, layers %d, heads %d, kv heads %d, head dim %d, ffn "
        "%d, context %d, vocab %d, dense %d; expected positive sizes, heads a multiple of kv "
        "heads, an even head dimension",
        s.dim, s.layers, s.heads, s.kv_heads, s.head_dim, s.ffn, s.context, n_vocab, s.dense));
  }
  checkpoint::TensorDict d;
  AddMetadata(s, vocab, d);
  const int64_t dim = s.dim, q = s.heads * s.head_dim, kv = s.kv_heads * s.head_dim;
  EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "token_embd.weight", {n_vocab, dim}, 0));
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_norm.weight", {dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_q.weight", {q, dim}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_k.weight", {kv, dim}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_v.weight", {kv, dim}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_q_norm.weight", {s.head_dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_k_norm.weight", {s.head_dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_output.weight", {dim, q}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "post_attention_norm.weight", {dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_norm.weight", {dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_gate.weight", {s.ffn, dim}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_up.weight", {s.ffn, dim}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_down.weight", {dim, s.ffn}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "post_ffw_norm.weight", {dim}, 1));
  }
  EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "output_norm.weight", {dim}, 1));
  if (s.dense > 0) {
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "dense_2.weight", {s.dense, dim}, 0));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "dense_3.weight", {dim, s.dense}, 0));
  }
  return d;
}

}  // namespace

bool RegisterRandomEncoder(const RandomEncoderArchitecture& a) {
  Registry().push_back(a);
  return true;
}

std::vector<std::string> RandomEncoderPresetNames() { return PresetKeys(Presets()); }

absl::StatusOr<RandomEncoderSpec> RandomEncoderPreset(absl::string_view name) {
  return FindPreset(Presets(), name, "encoder");
}

absl::StatusOr<checkpoint::TensorDict> RandomEncoder(const RandomEncoderSpec& s,
                                                     const checkpoint::TensorDict* vocab) {
  int64_t n_vocab = s.vocab;
  if (vocab != nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(const MetadataValue* tokens,
                           vocab->GetMetadata("tokenizer.ggml.tokens"));
    n_vocab = static_cast<int64_t>(tokens->size());
  }
  if (Is(s, arch::EncoderArch::kGemmaEmbedding)) return RandomGemmaEmbedding(s, n_vocab, vocab);
  const bool nomic = Is(s, arch::EncoderArch::kNomicBert);
  if ((!nomic && !Is(s, arch::EncoderArch::kBert)) || s.dim <= 0 || s.layers <= 0 || s.heads <= 0 ||
      s.dim % s.heads != 0 || s.ffn <= 0 || s.context <= 0 || n_vocab <= 0 ||
      (nomic && (s.dim / s.heads) % 2 != 0)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad encoder shape: architecture '%s', dim %d, layers %d, heads %d, ffn %d, context %d, "
        "vocab %d; expected bert or nomic-bert and positive sizes, dim a multiple of heads",
        s.architecture, s.dim, s.layers, s.heads, s.ffn, s.context, n_vocab));
  }
  checkpoint::TensorDict d;
  AddMetadata(s, vocab, d);
  const int64_t dim = s.dim, ffn = s.ffn;
  EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "token_embd.weight", {n_vocab, dim}, 0));
  EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "token_types.weight", {2, dim}, 0));
  if (!nomic) EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "position_embd.weight", {s.context, dim}, 0));
  EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "token_embd_norm.weight", {dim}, 1));
  EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, "token_embd_norm.bias", {dim}, 2));
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    if (nomic) {
      EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_qkv.weight", {3 * dim, dim}, 0));
    } else {
      for (const char* w : {"attn_q", "attn_k", "attn_v"}) {
        EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + w + ".weight", {dim, dim}, 0));
        EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + w + ".bias", {dim}, 2));
      }
    }
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_output.weight", {dim, dim}, 0));
    if (!nomic) EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_output.bias", {dim}, 2));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_output_norm.weight", {dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "attn_output_norm.bias", {dim}, 2));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_up.weight", {ffn, dim}, 0));
    if (nomic) {
      EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_gate.weight", {ffn, dim}, 0));
    } else {
      EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_up.bias", {ffn}, 2));
    }
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_down.weight", {dim, ffn}, 0));
    if (!nomic) EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "ffn_down.bias", {dim}, 2));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "layer_output_norm.weight", {dim}, 1));
    EDGEQ_RETURN_IF_ERROR(Add(d, s.seed, p + "layer_output_norm.bias", {dim}, 2));
  }
  return d;
}

}  // namespace llm
}  // namespace edgeq
