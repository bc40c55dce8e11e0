#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "llm/arch/common.h"
#include "llm/arch/model_config.h"

// ModelConfig::FromMetadata: the keys every architecture has, in llama.cpp's order of reading
// them, then the architecture's row (llm/arch/arch_table.h) and its own keys (ArchInfo::
// read_config in llm/arch/<name>.cc).
namespace edgeq {
namespace llm {

using checkpoint::MetadataValue;
using checkpoint::TensorDict;

namespace arch {

std::string Key(const std::string& arch, absl::string_view name) {
  return absl::StrCat(arch, ".", name);
}

// A positive integer at most `max` (an integer type: a bool or a string is refused, naming the
// key and the stored type).
absl::StatusOr<int64_t> RequiredInt(const TensorDict& d, const std::string& key, int64_t max) {
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
                                    int64_t max) {
  if (!d.HasMetadata(key)) return dflt;
  return RequiredInt(d, key, max);
}

namespace {

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

}  // namespace

absl::StatusOr<double> OptionalFloat(const TensorDict& d, const std::string& key, double dflt,
                                     bool positive) {
  if (!d.HasMetadata(key)) return dflt;
  absl::StatusOr<double> v = d.GetFloat(key);
  if (!v.ok()) return absl::InvalidArgumentError(v.status().message());
  if (!std::isfinite(*v) || (positive && !(*v > 0))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %g; expected a positive number", key, *v));
  }
  return *v;
}

namespace {

// The shape of a tensor (its logical shape if quantized), or NotFound.
const Shape* ShapeOf(const TensorDict& d, const std::string& name) {
  absl::StatusOr<const Tensor*> t = d.Get(name);
  return t.ok() ? &(*t)->logical_shape() : nullptr;
}

}  // namespace

}  // namespace arch

namespace {

using arch::CheckLayersPresent;
using arch::ExpectShape;
using arch::Key;
using arch::kMaxContext;
using arch::kMaxEmbedding;
using arch::kMaxFeedForward;
using arch::kMaxHeadDim;
using arch::kMaxHeads;
using arch::kMaxLayers;
using arch::kMaxVocab;
using arch::OptionalFloat;
using arch::OptionalInt;
using arch::RequiredInt;
using arch::ShapeOf;

// <arch>.feed_forward_length: a count, or one per layer (gemma4; kept in
// c.feed_forward_lengths, each positive and at most kMaxFeedForward). Returns layer 0's.
absl::StatusOr<int64_t> ReadFeedForward(const TensorDict& d, const std::string& key, int64_t layers,
                                        ModelConfig& c) {
  if (!d.HasMetadata(key) || !(*d.GetMetadata(key))->is_array()) {
    return RequiredInt(d, key, kMaxFeedForward);
  }
  const MetadataValue* v = *d.GetMetadata(key);
  if (v->kind() != MetadataValue::Kind::kInt || static_cast<int64_t>(v->size()) != layers) {
    return absl::InvalidArgumentError(
        absl::StrFormat("metadata key '%s' is %s; expected an integer or %d integers (one per "
                        "layer)",
                        key, v->TypeName(), layers));
  }
  for (int64_t x : v->ints()) {
    if (x <= 0 || x > kMaxFeedForward) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' holds %d; expected positive counts of at most %d", key,
                          x, kMaxFeedForward));
    }
    c.feed_forward_lengths.push_back(static_cast<int>(x));
  }
  return v->ints()[0];
}

// Counts, heads, head dimension, RoPE base and dimensions, RMS epsilon.
absl::Status ReadDimensions(const TensorDict& d, const std::string& a, ModelConfig& c) {
  EDGEQ_ASSIGN_OR_RETURN(int64_t ctx, RequiredInt(d, Key(a, "context_length"), kMaxContext));
  EDGEQ_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(d, Key(a, "embedding_length"), kMaxEmbedding));
  EDGEQ_ASSIGN_OR_RETURN(int64_t layers, RequiredInt(d, Key(a, "block_count"), kMaxLayers));
  // Before anything is built per layer: the declared layers are the ones present.
  EDGEQ_RETURN_IF_ERROR(CheckLayersPresent(d, Key(a, "block_count"), layers));
  EDGEQ_ASSIGN_OR_RETURN(int64_t ffn, ReadFeedForward(d, Key(a, "feed_forward_length"), layers, c));
  EDGEQ_ASSIGN_OR_RETURN(int64_t heads, RequiredInt(d, Key(a, "attention.head_count"), kMaxHeads));
  c.context_length = static_cast<int>(ctx);
  c.embedding_length = static_cast<int>(dim);
  c.block_count = static_cast<int>(layers);
  c.feed_forward_length = static_cast<int>(ffn);
  c.head_count = static_cast<int>(heads);
  // head_count_kv: a scalar, or one value per layer: 0 marks a recurrent layer (no KV cache;
  // lfm2), the others must be equal.
  const std::string kv_key = Key(a, "attention.head_count_kv");
  int64_t kv = heads;
  if (d.HasMetadata(kv_key)) {
    const MetadataValue* v = *d.GetMetadata(kv_key);
    if (v->kind() != MetadataValue::Kind::kInt || v->size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' is %s; expected an integer", kv_key, v->TypeName()));
    }
    const std::vector<int64_t>& per_layer = v->ints();
    if (per_layer.size() > 1 && static_cast<int64_t>(per_layer.size()) != layers) {
      return absl::InvalidArgumentError(
          absl::StrFormat("metadata key '%s' has %d values; expected one or %s = %d", kv_key,
                          per_layer.size(), Key(a, "block_count"), layers));
    }
    kv = 0;
    for (size_t l = 0; l < per_layer.size(); ++l) {
      const int64_t x = per_layer[l];
      if (per_layer.size() > 1 && x == 0) {
        c.recurrent_layers.resize(static_cast<size_t>(layers), false);
        c.recurrent_layers[l] = true;
        continue;
      }
      if (kv != 0 && x != kv) {
        return absl::UnimplementedError(absl::StrFormat(
            "metadata key '%s' gives different kv head counts per layer (%s); not supported",
            kv_key, v->DebugString()));
      }
      kv = x;
    }
    if (kv == 0) kv = heads;  // every layer recurrent: no KV cache at all
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

  return absl::OkStatus();
}

// <arch>.rope.scaling.*: none, linear or llama3 (and rope_freqs.weight's shape).
absl::Status ReadRopeScaling(const TensorDict& d, const std::string& a, ModelConfig& c) {
  const int64_t n_rot = c.rope_dimension_count;
  const std::string rot_key = Key(a, "rope.dimension_count");
  // RoPE scaling.
  const std::string type_key = Key(a, "rope.scaling.type");
  std::string type = "none";
  if (d.HasMetadata(type_key)) {
    absl::StatusOr<std::string> value = d.GetString(type_key);
    if (!value.ok()) return absl::InvalidArgumentError(value.status().message());
    type = value->empty() ? "none" : *value;
  }
  bool known = false;
  for (RopeScaling s : {RopeScaling::kNone, RopeScaling::kLinear, RopeScaling::kLlama3}) {
    if (type == RopeScalingName(s)) c.rope_scaling_type = s, known = true;
  }
  if (!known) {
    return absl::UnimplementedError(absl::StrFormat(
        "metadata key '%s' is %s; supported: none, linear, llama3", type_key, QuoteForError(type)));
  }
  const std::string factor_key = Key(a, "rope.scaling.factor");
  EDGEQ_ASSIGN_OR_RETURN(double factor, OptionalFloat(d, factor_key, 1.0));
  c.rope_scaling_factor = static_cast<float>(factor);
  const bool has_freqs = d.Contains("rope_freqs.weight");
  if (c.rope_scaling_type == RopeScaling::kLinear) {
    if (!d.HasMetadata(factor_key)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "missing metadata key '%s' (required by %s = linear)", factor_key, type_key));
    }
  } else if (c.rope_scaling_type == RopeScaling::kLlama3) {
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
  }
  if (has_freqs) {
    const Tensor* f = *d.Get("rope_freqs.weight");
    if (f->is_quantized() || f->dtype() != DType::kFloat32 || f->shape() != Shape({n_rot / 2})) {
      return absl::InvalidArgumentError(
          absl::StrFormat("tensor 'rope_freqs.weight' is %s, expected f32 [%d] (%s / 2)",
                          f->DebugString(), n_rot / 2, rot_key));
    }
  }

  return absl::OkStatus();
}

// The structure from the architecture's row, then its own keys.
absl::Status ReadStructure(const TensorDict& d, const arch::ArchInfo& row, ModelConfig& c) {
  c.arch = row.arch;
  c.attention_scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
  c.rope_type = row.rope;
  c.no_rope_layer_step = row.no_rope_layer_step;
  c.qk_norm = row.qk_norm;
  c.gated_q = row.qkv == arch::QkvLayout::kGatedQ;
  c.post_norms = row.norms == arch::NormPlacement::kPreAndPost;
  c.ffn_activation = row.activation;
  c.fused_gate_up = row.ffn == arch::FfnLayout::kFusedGateUp;
  if (row.embedding_scale_sqrt_dim) {
    c.embedding_scale = std::sqrt(static_cast<float>(c.embedding_length));
  }
  if (row.read_config != nullptr) EDGEQ_RETURN_IF_ERROR(row.read_config(d, &c));
  for (int l = 0; l < c.block_count; ++l) {
    if (c.IsRecurrent(l) && c.recurrent_states.empty()) {
      return absl::UnimplementedError(absl::StrFormat(
          "metadata key '%s' gives layer %d no kv heads; %s has no recurrent layers (expected "
          "kv heads > 0 on every layer)",
          Key(c.architecture, "attention.head_count_kv"), l, c.architecture));
    }
  }
  return absl::OkStatus();
}

// rope.scaling.attn_factor and phi3's rope_factors_long/short.
absl::Status ReadRopeFactors(const TensorDict& d, const std::string& a, ModelConfig& c) {
  const int64_t ctx = c.context_length, n_rot = c.rope_dimension_count;
  const std::string rot_key = Key(a, "rope.dimension_count");
  const bool has_freqs = d.Contains("rope_freqs.weight");
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

  return absl::OkStatus();
}

// The vocabulary size, layer 0's shapes against the heads and widths, the classifier.
absl::Status ReadVocabularyAndShapes(const TensorDict& d, const std::string& a, ModelConfig& c) {
  const int64_t dim = c.embedding_length, heads = c.head_count, kv = c.head_count_kv;
  const int64_t head_dim = c.LayerHeadDim(0), ffn = c.LayerFeedForward(0);
  const std::string kv_key = Key(a, "attention.head_count_kv");
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
  int first_kv = 0;  // the first attention layer (recurrent layers have no attn_q/k)
  while (first_kv < c.block_count && c.IsRecurrent(first_kv)) ++first_kv;
  const std::string blk = absl::StrCat("blk.", first_kv, ".");
  if (first_kv == c.block_count || c.layer_shapes_checked) {
    // No attention layer, or the architecture's file checked its own (qwen35's gated attn_q).
  } else if (d.Contains(blk + "attn_qkv.weight")) {
    EDGEQ_RETURN_IF_ERROR(
        ExpectShape(d, blk + "attn_qkv.weight", q_dim + 2 * kv_dim, dim, heads_why));
  } else {
    EDGEQ_RETURN_IF_ERROR(ExpectShape(d, blk + "attn_q.weight", q_dim, dim, heads_why));
    EDGEQ_RETURN_IF_ERROR(ExpectShape(d, blk + "attn_k.weight", kv_dim, dim, heads_why));
  }
  if (!c.IsMoeLayer(0)) {  // an MoE layer's experts are checked by arch::ReadExpertConfig
    EDGEQ_RETURN_IF_ERROR(
        ExpectShape(d, "blk.0.ffn_down.weight", dim, ffn,
                    absl::StrCat(Key(a, "embedding_length"), ", ", Key(a, "feed_forward_length"))));
  }
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
  return absl::OkStatus();
}

}  // namespace

std::vector<std::string> SupportedArchitectures() { return arch::GgufNames(); }

absl::StatusOr<ModelConfig> ModelConfig::FromMetadata(const TensorDict& d) {
  ModelConfig c;
  if (!d.HasMetadata("general.architecture")) {
    return absl::InvalidArgumentError("missing metadata key 'general.architecture'");
  }
  absl::StatusOr<std::string> name = d.GetString("general.architecture");
  if (!name.ok()) return absl::InvalidArgumentError(name.status().message());
  const arch::ArchInfo* row = arch::FindByGgufName(*name);
  if (row == nullptr) {
    EDGEQ_RETURN_IF_ERROR(arch::CheckInBuild(*name));
    return absl::UnimplementedError(
        absl::StrFormat("architecture %s is not supported; supported: %s", QuoteForError(*name),
                        absl::StrJoin(SupportedArchitectures(), ", ")));
  }
  const std::string& a = *name;
  c.architecture = a;
  EDGEQ_RETURN_IF_ERROR(ReadDimensions(d, a, c));
  EDGEQ_RETURN_IF_ERROR(ReadRopeScaling(d, a, c));
  EDGEQ_RETURN_IF_ERROR(ReadStructure(d, *row, c));
  EDGEQ_RETURN_IF_ERROR(ReadRopeFactors(d, a, c));
  EDGEQ_RETURN_IF_ERROR(ReadVocabularyAndShapes(d, a, c));
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
      c.rope_scaling_type != RopeScaling::kNone
          ? absl::StrCat(", scaling ", RopeScalingName(c.rope_scaling_type))
          : "",
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
  if (head_dim_swa > 0 && head_dim_swa != head_dim) {
    absl::StrAppendFormat(&extra, ", sliding head dim %d", head_dim_swa);
  }
  if (shared_kv_layers > 0) {
    absl::StrAppendFormat(&extra, ", last %d layers share KV", shared_kv_layers);
  }
  if (embedding_length_per_layer > 0) {
    absl::StrAppendFormat(&extra, ", per-layer embedding %d", embedding_length_per_layer);
  }
  if (final_logit_softcapping > 0) {
    absl::StrAppendFormat(&extra, ", logit soft-cap %g", final_logit_softcapping);
  }
  if (expert_count > 0) {
    absl::StrAppendFormat(&extra, ", %d of %d experts (ffn %d, %s%s)", expert_used_count,
                          expert_count, expert_feed_forward_length,
                          expert_sigmoid_gating ? "sigmoid" : "softmax",
                          leading_dense_block_count > 0
                              ? absl::StrCat(", first ", leading_dense_block_count, " dense")
                              : "");
  }
  if (!recurrent_states.empty()) {
    absl::StrAppendFormat(&extra, ", %d recurrent layers (%d state tensors)",
                          block_count - KvLayerCount(), recurrent_states.size());
  }
  return absl::StrCat(BaseDescription(*this), extra);
}

}  // namespace llm
}  // namespace edgeq
