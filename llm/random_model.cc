#include "llm/random_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_macros.h"
#include "core/tensor.h"
#include "llm/arch/arch_table.h"

namespace edgeq {
namespace llm {
namespace {

using checkpoint::MetadataValue;
using Width = checkpoint::MetadataValue::Width;

// FNV-1a of the name, mixed with the seed: one stream per tensor.
uint64_t StreamSeed(uint64_t seed, const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return (h ^ (seed * 0x9E3779B97F4A7C15ull)) | 1;
}

// `values` as an f32 tensor of `shape`, or, if empty, the seeded random values of tensor `name`:
// vectors 1 + U(-0.25, 0.25) (U(-0.5, 0.5) if `centered`), matrices U(-1, 1) / sqrt(columns).
absl::StatusOr<Tensor> RandomTensor(uint64_t seed, const std::string& name,
                                    const std::vector<int64_t>& shape,
                                    const std::vector<float>& values, bool centered) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(DType::kFloat32, Shape(shape)));
  EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, t.MutableValues<float>());
  if (!values.empty()) {
    std::copy(values.begin(), values.end(), v.begin());
    return t;
  }
  uint64_t state = StreamSeed(seed, name);
  auto next = [&state]() {  // xorshift64*, uniform in [-1, 1)
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<float>((state * 0x2545F4914F6CDD1Dull) >> 40) / 8388608.0f - 1.0f;
  };
  if (shape.size() == 1) {
    for (float& x : v) x = centered ? 0.5f * next() : 1.0f + 0.25f * next();
  } else {
    const float a = 1.0f / std::sqrt(static_cast<float>(shape.back()));
    for (float& x : v) x = a * next();
  }
  return t;
}

// Metadata in the order convert_hf_to_gguf.py writes it: general.*, set_gguf_parameters(),
// quantization version, then the vocabulary.
void AddMetadata(const RandomModelSpec& s, const arch::ArchInfo& row,
                 const RandomArchitecture* hooks, int64_t n_vocab, int head_dim,
                 const checkpoint::TensorDict* vocab, checkpoint::TensorDict& d) {
  const std::string& a = s.architecture;
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, Width::kU32); };
  auto f32 = [](double v) { return MetadataValue::Float(v, Width::kF32); };
  d.SetMetadata("general.architecture", MetadataValue::String(a));
  d.SetMetadata("general.type", MetadataValue::String("model"));
  d.SetMetadata("general.name", MetadataValue::String(absl::StrCat(s.name, " (edgeq random)")));
  d.SetMetadata(a + ".block_count", u32(s.layers));
  d.SetMetadata(a + ".context_length", u32(s.context));
  d.SetMetadata(a + ".embedding_length", u32(s.dim));
  d.SetMetadata(a + ".feed_forward_length", u32(s.ffn));
  d.SetMetadata(a + ".attention.head_count", u32(s.heads));
  if (s.shortconv_l_cache > 0) {  // per layer, 0 on the conv layers (as the lfm2 converter)
    std::vector<int64_t> kv(static_cast<size_t>(s.layers), 0);
    for (int l : s.attention_layers) {
      if (l >= 0 && l < s.layers) kv[static_cast<size_t>(l)] = s.kv_heads;
    }
    d.SetMetadata(a + ".attention.head_count_kv", MetadataValue::IntArray(kv, Width::kI32));
  } else {
    d.SetMetadata(a + ".attention.head_count_kv", u32(s.kv_heads));
  }
  d.SetMetadata(a + ".rope.freq_base", f32(s.rope_base));
  d.SetMetadata(a + ".attention.layer_norm_rms_epsilon", f32(s.rms_eps));
  if (s.head_dim_keys || s.head_dim > 0) {
    d.SetMetadata(a + ".attention.key_length", u32(head_dim));
    d.SetMetadata(a + ".attention.value_length", u32(head_dim));
  }
  if (row.hf.sliding_window && s.sliding_window > 0) {
    d.SetMetadata(a + ".attention.sliding_window", u32(s.sliding_window));
    d.SetMetadata(a + ".attention.sliding_window_pattern", u32(s.sliding_window_pattern));
    d.SetMetadata(a + ".rope.freq_base_swa", f32(s.rope_base_swa));
  }
  if (row.hf.long_short_rope) {
    d.SetMetadata(a + ".rope.scaling.original_context_length", u32(s.rope_original_context));
    const double scale = static_cast<double>(s.context) / s.rope_original_context;
    d.SetMetadata(
        a + ".rope.scaling.attn_factor",
        f32(scale <= 1.0 ? 1.0
                         : std::sqrt(1.0 + std::log(scale) / std::log(s.rope_original_context))));
  }
  if (hooks != nullptr && hooks->keys_after_rope != nullptr) hooks->keys_after_rope(s, a + ".", d);
  d.SetMetadata("general.file_type", u32(0));  // LLAMA_FTYPE_ALL_F32
  d.SetMetadata(a + ".vocab_size", u32(n_vocab));
  d.SetMetadata(a + ".rope.dimension_count", u32(s.rope_dims > 0 ? s.rope_dims : head_dim));
  if (s.shortconv_l_cache > 0) {
    d.SetMetadata(a + ".shortconv.l_cache", u32(s.shortconv_l_cache));
  }
  if (s.expert_count > 0) {  // as the Qwen3MoE / LFM2-MoE converters write them
    d.SetMetadata(a + ".expert_count", u32(s.expert_count));
    d.SetMetadata(a + ".expert_used_count", u32(s.expert_used));
    d.SetMetadata(a + ".expert_feed_forward_length", u32(s.expert_ffn));
    if (hooks != nullptr && hooks->keys_after_experts != nullptr) {
      hooks->keys_after_experts(s, a + ".", d);
    }
  }
  d.SetMetadata("general.quantization_version", u32(2));
  AddTokenizerKeys(vocab, d);
}

// Whether the row's converter writes layer tensor `gguf` (its Hugging Face tensor map).
bool MapsTensor(const arch::ArchInfo& row, absl::string_view gguf) {
  for (size_t i = 0; i < row.hf_tensor_count; ++i) {
    if (gguf == row.hf_tensors[i].gguf) return true;
  }
  return false;
}

// An MoE layer's FFN tensors (prefix p = "blk.N."): the router, the experts as 3-D tensors
// [experts, rows, columns], lfm2moe's selection bias (centered: U(-0.5, 0.5), which changes the
// choice among sigmoid probabilities).
absl::Status AddMoeTensors(const RandomModelSpec& s, const arch::ArchInfo& row,
                           const std::string& p, const RandomTensorFn& add) {
  const int64_t e = s.expert_count;
  if (s.expert_used <= 0 || s.expert_used > e || s.expert_ffn <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad experts: %d used of %d, width %d (expected 1 to %d used, a positive width)",
        s.expert_used, e, s.expert_ffn, e));
  }
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate_inp.weight", {e, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate_exps.weight", {e, s.expert_ffn, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up_exps.weight", {e, s.expert_ffn, s.dim}, {}, false));
  EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down_exps.weight", {e, s.dim, s.expert_ffn}, {}, false));
  if (MapsTensor(row, "exp_probs_b.bias")) {  // lfm2moe's selection bias
    EDGEQ_RETURN_IF_ERROR(add(p + "exp_probs_b.bias", {e}, {}, /*centered=*/true));
  }
  return absl::OkStatus();
}

std::vector<RandomArchitecture>& Registry() {
  static auto* registry = new std::vector<RandomArchitecture>();
  return *registry;
}

const RandomArchitecture* FindRandomArchitecture(absl::string_view gguf_name) {
  for (const RandomArchitecture& a : Registry()) {
    if (gguf_name == a.gguf_name) return &a;
  }
  return nullptr;
}

// The row index of `gguf_name` (the table's size if none).
size_t RowIndex(absl::string_view gguf_name) {
  const absl::Span<const arch::ArchInfo> rows = arch::Architectures();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (gguf_name == rows[i].gguf_name) return i;
  }
  return rows.size();
}

std::vector<NamedPreset<RandomModelSpec>> Presets() {
  std::vector<NamedPreset<RandomModelSpec>> p;
  for (const RandomArchitecture& a : RandomArchitectures()) {
    if (a.presets == nullptr) continue;
    for (NamedPreset<RandomModelSpec>& preset : a.presets()) p.push_back(std::move(preset));
  }
  return p;
}

}  // namespace

bool RegisterRandomArchitecture(const RandomArchitecture& a) {
  Registry().push_back(a);
  return true;
}

std::vector<RandomArchitecture> RandomArchitectures() {
  std::vector<RandomArchitecture> r = Registry();
  std::stable_sort(r.begin(), r.end(),
                   [](const RandomArchitecture& x, const RandomArchitecture& y) {
                     return RowIndex(x.gguf_name) < RowIndex(y.gguf_name);
                   });
  return r;
}

absl::Status AddRandomTensor(uint64_t seed, const std::string& name, std::vector<int64_t> shape,
                             std::vector<float> values, bool centered, checkpoint::TensorDict& d) {
  EDGEQ_ASSIGN_OR_RETURN(Tensor t, RandomTensor(seed, name, shape, values, centered));
  return d.Set(name, std::move(t));
}

void AddTokenizerKeys(const checkpoint::TensorDict* vocab, checkpoint::TensorDict& d) {
  if (vocab == nullptr) return;
  for (const std::string& key : vocab->MetadataKeys()) {
    if (absl::StartsWith(key, "tokenizer.")) d.SetMetadata(key, **vocab->GetMetadata(key));
  }
}

std::vector<std::string> RandomModelPresetNames() { return PresetKeys(Presets()); }

absl::StatusOr<RandomModelSpec> RandomModelPreset(absl::string_view name) {
  return FindPreset(Presets(), name, "model");
}

absl::StatusOr<checkpoint::TensorDict> SyntheticSpmVocabulary(int vocab_size) {
  if (vocab_size < 259) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "synthetic vocabulary of %d pieces: expected at least 259 (3 special + 256 byte pieces)",
        vocab_size));
  }
  std::vector<std::string> pieces = {"<unk>", "<s>", "</s>"};
  std::vector<int64_t> types = {2, 3, 3};  // llama.cpp: unknown, control, control
  for (int b = 0; b < 256; ++b) {
    pieces.push_back(absl::StrFormat("<0x%02X>", b));
    types.push_back(6);  // byte
  }
  const std::string space = "\xE2\x96\x81";  // U+2581, SentencePiece's space
  std::vector<std::string> words = {""};
  while (static_cast<int>(pieces.size()) < vocab_size) {
    std::vector<std::string> longer;
    for (const std::string& w : words) {
      for (char c = 'a'; c <= 'z'; ++c) longer.push_back(w + c);
    }
    for (const std::string& w : longer) {
      for (const std::string& piece : {space + w, w}) {
        if (static_cast<int>(pieces.size()) < vocab_size) {
          pieces.push_back(piece);
          types.push_back(1);
        }
      }
    }
    words = std::move(longer);
  }
  std::vector<double> scores(pieces.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = i < 259 ? 0.0 : -static_cast<double>(i);
  checkpoint::TensorDict d;
  d.SetMetadata("tokenizer.ggml.model", MetadataValue::String("llama"));
  d.SetMetadata("tokenizer.ggml.pre", MetadataValue::String("default"));
  d.SetMetadata("tokenizer.ggml.tokens", MetadataValue::StringArray(std::move(pieces)));
  d.SetMetadata("tokenizer.ggml.scores", MetadataValue::FloatArray(std::move(scores), Width::kF32));
  d.SetMetadata("tokenizer.ggml.token_type",
                MetadataValue::IntArray(std::move(types), Width::kI32));
  d.SetMetadata("tokenizer.ggml.bos_token_id", MetadataValue::Int(1, Width::kU32));
  d.SetMetadata("tokenizer.ggml.eos_token_id", MetadataValue::Int(2, Width::kU32));
  d.SetMetadata("tokenizer.ggml.unknown_token_id", MetadataValue::Int(0, Width::kU32));
  d.SetMetadata("tokenizer.ggml.add_bos_token", MetadataValue::Bool(true));
  d.SetMetadata("tokenizer.ggml.add_eos_token", MetadataValue::Bool(false));
  return d;
}

std::vector<float> Llama3RopeFactors(const RandomModelSpec& spec, int head_dim) {
  // As convert_hf_to_gguf.py's LlamaModel.generate_extra_tensors (float32 frequencies).
  std::vector<float> factors;
  const float low_wavelen = spec.rope_original_context / spec.rope_low_freq_factor;
  const float high_wavelen = spec.rope_original_context / spec.rope_high_freq_factor;
  for (int i = 0; i < head_dim; i += 2) {
    const float freq = 1.0f / std::pow(spec.rope_base, static_cast<float>(i) / head_dim);
    const float wavelen = 2.0f * static_cast<float>(M_PI) / freq;
    if (wavelen < high_wavelen) {
      factors.push_back(1.0f);
    } else if (wavelen > low_wavelen) {
      factors.push_back(spec.rope_factor);
    } else {
      const float smooth = (spec.rope_original_context / wavelen - spec.rope_low_freq_factor) /
                           (spec.rope_high_freq_factor - spec.rope_low_freq_factor);
      factors.push_back(1.0f / ((1.0f - smooth) / spec.rope_factor + smooth));
    }
  }
  return factors;
}

absl::StatusOr<checkpoint::TensorDict> RandomModel(const RandomModelSpec& s,
                                                   const checkpoint::TensorDict* vocab) {
  int64_t n_vocab = s.vocab;
  if (vocab != nullptr) {
    EDGEQ_ASSIGN_OR_RETURN(const MetadataValue* tokens,
                           vocab->GetMetadata("tokenizer.ggml.tokens"));
    if (tokens->kind() != MetadataValue::Kind::kString || !tokens->is_array()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "vocabulary: tokenizer.ggml.tokens is %s, expected a string array", tokens->TypeName()));
    }
    n_vocab = static_cast<int64_t>(tokens->size());
  }
  if (s.dim <= 0 || s.layers <= 0 || s.heads <= 0 || s.kv_heads <= 0 || s.ffn <= 0 ||
      n_vocab <= 0 || s.context <= 0 || (s.head_dim == 0 && s.dim % s.heads != 0) ||
      s.heads % s.kv_heads != 0 || s.head_dim < 0 ||
      (s.head_dim > 0 ? s.head_dim : s.dim / s.heads) % 2 != 0 || !(s.rope_base > 0) ||
      !(s.rms_eps > 0) || s.sliding_window < 0 || s.sliding_window_pattern <= 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "bad shape: dim %d, layers %d, heads %d, kv heads %d, ffn %d, vocab %d, context %d, rope "
        "base %g, rms eps %g, head dim %d (all positive, an even head dimension, dim a multiple "
        "of heads unless the head dimension is given, heads a multiple of kv heads)",
        s.dim, s.layers, s.heads, s.kv_heads, s.ffn, n_vocab, s.context, s.rope_base, s.rms_eps,
        s.head_dim));
  }
  const std::string& a = s.architecture;
  // The layout of the architecture's row (llm/arch/arch_table.h); another name: llama's.
  const arch::ArchInfo* found = arch::FindByGgufName(a);
  const arch::ArchInfo& row = found != nullptr ? *found : arch::Info(arch::Arch{});
  const bool fused_ffn = row.ffn == arch::FfnLayout::kFusedGateUp;
  const bool fused_qkv = row.qkv == arch::QkvLayout::kFused;
  const bool post_norms = row.norms == arch::NormPlacement::kPreAndPost;
  const int head_dim = s.head_dim > 0 ? s.head_dim : s.dim / s.heads;
  const int q_dim = head_dim * s.heads, kv_dim = head_dim * s.kv_heads;
  const RandomArchitecture* hooks = FindRandomArchitecture(a);
  if (hooks != nullptr && hooks->model != nullptr) return hooks->model(s, n_vocab, vocab);
  checkpoint::TensorDict d;
  auto add = [&](const std::string& name, std::vector<int64_t> shape,
                 std::vector<float> values = {}, bool centered = false) -> absl::Status {
    return AddRandomTensor(s.seed, name, std::move(shape), std::move(values), centered, d);
  };
  if (s.llama3_rope) {
    EDGEQ_RETURN_IF_ERROR(add("rope_freqs.weight", {head_dim / 2}, Llama3RopeFactors(s, head_dim)));
  }
  if (row.hf.long_short_rope) {
    std::vector<float> long_f, short_f;
    for (int i = 0; i < head_dim / 2; ++i) {
      const float r = static_cast<float>(i) / static_cast<float>(head_dim / 2);
      short_f.push_back(1.0f + 0.1f * r * r);
      long_f.push_back(1.0f + (s.rope_factor - 1.0f) * r * r);
    }
    EDGEQ_RETURN_IF_ERROR(add("rope_factors_long.weight", {head_dim / 2}, long_f));
    EDGEQ_RETURN_IF_ERROR(add("rope_factors_short.weight", {head_dim / 2}, short_f));
  }
  EDGEQ_RETURN_IF_ERROR(add("token_embd.weight", {n_vocab, s.dim}));
  for (int l = 0; l < s.layers; ++l) {
    const std::string p = absl::StrCat("blk.", l, ".");
    if (hooks != nullptr && hooks->layer != nullptr) {
      EDGEQ_RETURN_IF_ERROR(hooks->layer(s, l, head_dim, add));
      continue;
    }
    EDGEQ_RETURN_IF_ERROR(add(p + "attn_norm.weight", {s.dim}));
    if (s.expert_count > 0 && l >= s.leading_dense) {
      EDGEQ_RETURN_IF_ERROR(AddMoeTensors(s, row, p, add));
    } else if (fused_ffn) {
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down.weight", {s.dim, s.ffn}));
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up.weight", {2 * s.ffn, s.dim}));
    } else {
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_down.weight", {s.dim, s.ffn}));
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_gate.weight", {s.ffn, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "ffn_up.weight", {s.ffn, s.dim}));
    }
    EDGEQ_RETURN_IF_ERROR(add(p + "ffn_norm.weight", {s.dim}));
    if (post_norms) {
      EDGEQ_RETURN_IF_ERROR(add(p + "post_attention_norm.weight", {s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "post_ffw_norm.weight", {s.dim}));
    }
    const bool conv = s.shortconv_l_cache > 0 &&
                      std::find(s.attention_layers.begin(), s.attention_layers.end(), l) ==
                          s.attention_layers.end();
    if (conv) {  // lfm2's short-convolution layer
      EDGEQ_RETURN_IF_ERROR(add(p + "shortconv.conv.weight", {s.dim, s.shortconv_l_cache}));
      EDGEQ_RETURN_IF_ERROR(add(p + "shortconv.in_proj.weight", {3 * s.dim, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "shortconv.out_proj.weight", {s.dim, s.dim}));
      continue;
    }
    // The converter's order (Hugging Face names sorted: k, o, q, v).
    if (fused_qkv) {
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_output.weight", {s.dim, q_dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_qkv.weight", {q_dim + 2 * kv_dim, s.dim}));
    } else {
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_k.weight", {kv_dim, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_output.weight", {s.dim, q_dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_q.weight", {q_dim, s.dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_v.weight", {kv_dim, s.dim}));
    }
    if (row.qkv_bias) {  // biases ~ U(-0.5, 0.5) (the vector default is 1 + U(-0.25, 0.25))
      for (const auto& [name, n] : {std::pair<const char*, int>{"attn_q.bias", q_dim},
                                    {"attn_k.bias", kv_dim},
                                    {"attn_v.bias", kv_dim}}) {
        EDGEQ_RETURN_IF_ERROR(add(p + name, {n}, {}, /*centered=*/true));
      }
    }
    if (row.qk_norm) {
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_k_norm.weight", {head_dim}));
      EDGEQ_RETURN_IF_ERROR(add(p + "attn_q_norm.weight", {head_dim}));
    }
  }
  EDGEQ_RETURN_IF_ERROR(
      add(s.shortconv_l_cache > 0 ? "token_embd_norm.weight" : "output_norm.weight", {s.dim}));
  if (!s.tied) EDGEQ_RETURN_IF_ERROR(add("output.weight", {n_vocab, s.dim}));

  AddMetadata(s, row, hooks, n_vocab, head_dim, vocab, d);
  return d;
}

}  // namespace llm
}  // namespace edgeq
