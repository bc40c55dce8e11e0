#include "convert/hf_import.h"

#include <sys/stat.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "checkpoint/internal/json_input.h"
#include "checkpoint/safetensors.h"
#include "convert/hf_config.h"
#include "convert/hf_layers.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "llm/arch/arch_table.h"
#include "llm/chat_template.h"
#include "llm/random_model.h"
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace convert {
namespace {

namespace arch = llm::arch;
using checkpoint::MetadataValue;
using checkpoint::TensorDict;
using llm::ChatTemplate;
using llm::Llama3RopeFactors;
using llm::RandomModelSpec;
using json = nlohmann::json;
using internal::Config;
using internal::kMaxContext;
using internal::kMaxHeads;
using internal::kMaxLayers;
using internal::kMaxU32;
using internal::kMaxVocab;
using internal::kMaxWidth;
using W = MetadataValue::Width;

bool IsFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Size, depth and duplicate keys checked (checkpoint/internal/json_input.h).
absl::StatusOr<json> ReadJsonObject(const std::string& path, size_t max_bytes,
                                    const json::parser_callback_t& callback = nullptr) {
  return checkpoint::internal::ReadJsonObjectFile(path, callback, max_bytes);
}

// model.safetensors.index.json keeps only "weight_map" and its string values: the rest (and any
// array or object inside weight_map, an error below) is checked but not built, so memory follows
// the weight map, not the file.
bool KeepIndexParts(int depth, json::parse_event_t event, json& parsed) {
  using E = json::parse_event_t;
  if (event == E::key && depth == 1) return parsed == "weight_map";
  if ((event == E::object_start || event == E::array_start) && depth >= 2) return false;
  return true;
}

// A name taken from the input (tensor, shard, architecture) for an error message.
std::string Q(absl::string_view s) { return QuoteForError(s, 128); }
// The same without quotes when it is a short, printable name (an architecture class name).
std::string PlainOrQuoted(absl::string_view s) {
  bool plain = !s.empty() && s.size() <= 128;
  for (char c : s) plain = plain && c > 0x20 && c < 0x7f && c != '\'' && c != '\\';
  return plain ? std::string(s) : Q(s);
}

// GGUF tensor name for a Hugging Face one ("" for tensors the converter drops).
absl::StatusOr<std::string> GgufName(const arch::ArchInfo& row, const std::string& hf) {
  static const char* const kSkipped[] = {"rotary_emb.inv_freq"};
  for (const char* s : kSkipped) {
    if (absl::EndsWith(hf, s)) return std::string();
  }
  // qwen35's multi-token-prediction block: left out, as the converter's --no-mtp does (edgeq's
  // graph does not run it).
  if (internal::IsLinearAttention(row) &&
      (absl::StartsWith(hf, "mtp.") || absl::StartsWith(hf, "model.mtp."))) {
    return std::string();
  }
  if (hf == "model.embed_tokens.weight") return std::string("token_embd.weight");
  if (hf == "model.norm.weight") return std::string("output_norm.weight");
  // lfm2's final norm (applied after the last layer, despite its name).
  if (hf == "model.embedding_norm.weight" && internal::IsHybrid(row)) {
    return std::string("token_embd_norm.weight");
  }
  if (hf == "lm_head.weight") return std::string("output.weight");
  if (internal::IsPerLayerAttention(row)) {  // gemma4's per-layer embeddings
    std::string g = internal::PerLayerEmbeddingName(hf);
    if (!g.empty()) return g;
  }
  const std::string prefix = "model.layers.";
  if (absl::StartsWith(hf, prefix)) {
    const std::string rest = hf.substr(prefix.size());
    const size_t dot = rest.find('.');
    // Strictly decimal: "00" or "+0" would name layer 0 a second time.
    const std::optional<int64_t> index =
        dot == std::string::npos ? std::nullopt : ParseDecimalInt64(rest.substr(0, dot));
    if (dot != std::string::npos && (!index.has_value() || *index < 0 || *index >= kMaxLayers)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s: layer index %s is not a decimal number in 0..%d (as written by "
          "transformers: no sign, no leading zeros)",
          Q(hf), Q(rest.substr(0, dot)), kMaxLayers - 1));
    }
    if (index.has_value()) {
      const int64_t layer = *index;
      const std::string tail = rest.substr(dot + 1);
      for (size_t i = 0; i < row.hf_tensor_count; ++i) {
        if (tail == row.hf_tensors[i].hf) {
          return absl::StrCat("blk.", layer, ".", row.hf_tensors[i].gguf);
        }
      }
    }
  }
  return absl::InvalidArgumentError(absl::StrFormat(
      "tensor %s has no GGUF name for architecture %s (as in llama.cpp's converter: \"Can not "
      "map tensor\")",
      Q(hf), row.gguf_name));
}

// llama.cpp's LlamaModel.permute: per head, rows [j * hd/2 + i] -> [2 * i + j].
absl::StatusOr<Tensor> PermuteRope(const std::string& name, const Tensor& t, int64_t heads) {
  const Shape& shape = t.logical_shape();
  const int64_t rows = shape.rank() == 2 ? shape.dim(0) : 0;
  if (rows <= 0 || heads <= 0 || rows % (2 * heads) != 0 || t.bytes().size() % rows != 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "tensor %s (%s): expected a matrix whose rows split into %d heads of an even size", Q(name),
        t.DebugString(), heads));
  }
  const size_t row_bytes = t.bytes().size() / rows;
  const int64_t hd = rows / heads, half = hd / 2;
  EDGEQ_ASSIGN_OR_RETURN(Tensor out, Tensor::Create(t.dtype(), t.shape()));
  if (!t.encoding().empty()) out.SetQuantization(t.encoding(), t.logical_shape());
  const uint8_t* src = t.bytes().data();
  uint8_t* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < half; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        std::memcpy(dst + (h * hd + 2 * i + j) * row_bytes,
                    src + (h * hd + j * half + i) * row_bytes, row_bytes);
      }
    }
  }
  return out;
}

absl::Status CheckShape(const std::string& hf, const Tensor& t, std::vector<int64_t> expected) {
  if (t.logical_shape().dims() == expected) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrFormat(
      "tensor %s has shape [%s], expected [%s] (from config.json)", Q(hf),
      absl::StrJoin(t.logical_shape().dims(), ", "), absl::StrJoin(expected, ", ")));
}

// config.json's sizes, and what the conversion adds up.
struct HfDims {
  int64_t layers, dim, ffn, heads, kv_heads, context, vocab;
  double rms_eps;
  bool has_head_dim;
  int64_t head_dim;
  bool tied;
};
struct HfModel : HfDims {
  int64_t original_context = 0;               // phi3's original_max_position_embeddings
  int file_type = 0;                          // LLAMA_FTYPE_ALL_F32
  std::map<std::string, std::string> source;  // GGUF name -> the HF tensor that gave it
  internal::HfLayout layout;                  // conv / attention layers, experts
};

// The sizes of config.json, checked against the ceilings.
absl::StatusOr<HfDims> ReadDims(const Config& c, const arch::ArchInfo& row) {
  EDGEQ_ASSIGN_OR_RETURN(const int64_t layers, c.PositiveInt("num_hidden_layers", kMaxLayers));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t dim, c.PositiveInt("hidden_size", kMaxWidth));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t ffn, internal::ReadFeedForwardLength(c, row));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t heads, c.PositiveInt("num_attention_heads", kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t kv_heads,
                         c.OptionalPositiveInt("num_key_value_heads", heads, kMaxHeads));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t context,
                         c.PositiveInt("max_position_embeddings", kMaxContext));
  EDGEQ_ASSIGN_OR_RETURN(const int64_t vocab, c.PositiveInt("vocab_size", kMaxVocab));
  EDGEQ_ASSIGN_OR_RETURN(const double rms_eps, internal::ReadRmsEps(c, row));
  const bool has_head_dim = c.Has("head_dim");
  int64_t head_dim = 0;
  if (has_head_dim) {
    EDGEQ_ASSIGN_OR_RETURN(head_dim, c.PositiveInt("head_dim", kMaxHeads));
  } else if (dim % heads != 0) {
    return c.Bad("num_attention_heads",
                 absl::StrCat("a divisor of hidden_size ", dim, " (or give head_dim)"));
  } else {
    head_dim = dim / heads;
  }
  if (head_dim > kMaxHeads) {
    return c.Bad("num_attention_heads",
                 absl::StrCat("at least ", (dim + kMaxHeads - 1) / kMaxHeads,
                              " (a head dimension of at most ", kMaxHeads, ")"));
  }
  if (heads % kv_heads != 0) {
    return c.Bad("num_key_value_heads", absl::StrCat("a divisor of num_attention_heads ", heads));
  }
  if (head_dim % 2 != 0) {
    return c.Bad(has_head_dim ? "head_dim" : "hidden_size", "an even head dimension (RoPE pairs)");
  }
  EDGEQ_ASSIGN_OR_RETURN(const bool tied, c.Bool("tie_word_embeddings", row.hf.default_tied));

  return HfDims{layers, dim,     ffn,          heads,    kv_heads, context,
                vocab,  rms_eps, has_head_dim, head_dim, tied};
}

// The tensors: the index's weight map, or model.safetensors; sorted by name, as the
// converter's order is.
absl::StatusOr<std::map<std::string, Tensor>> ReadHfTensors(const std::string& dir) {
  std::map<std::string, std::string> where;  // HF name -> shard file
  const std::string index_path = dir + "/model.safetensors.index.json";
  std::vector<std::string> shards;
  if (IsFile(index_path)) {
    EDGEQ_ASSIGN_OR_RETURN(json index,
                           ReadJsonObject(index_path, kMaxJsonFileBytes, KeepIndexParts));
    if (!index.contains("weight_map") || !index["weight_map"].is_object()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: missing key \"weight_map\" (expected an object tensor name -> shard file)",
          index_path));
    }
    std::set<std::string> seen;
    for (auto e = index["weight_map"].begin(); e != index["weight_map"].end(); ++e) {
      // A file name of the directory (at most NAME_MAX bytes), so paths built from it are short.
      if (!e.value().is_string() || e.value().get<std::string>().empty() ||
          e.value().get<std::string>().size() > 255 || e.value().get<std::string>() == "." ||
          e.value().get<std::string>() == ".." ||
          e.value().get<std::string>().find_first_of(std::string("/\0", 2)) != std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: weight_map[%s] is %s, expected a file name in %s", index_path,
                            Q(e.key()), checkpoint::internal::JsonForError(e.value()), dir));
      }
      where[e.key()] = e.value().get<std::string>();
      if (seen.insert(e.value().get<std::string>()).second) {
        shards.push_back(e.value().get<std::string>());
      }
    }
  } else if (IsFile(dir + "/model.safetensors")) {
    shards.push_back("model.safetensors");
  } else {
    return absl::NotFoundError(absl::StrFormat(
        "%s: neither model.safetensors nor model.safetensors.index.json is present", dir));
  }
  std::map<std::string, Tensor> hf;  // sorted by name, as the converter's order is
  for (const std::string& shard : shards) {
    const std::string path = dir + "/" + shard;
    if (!IsFile(path)) {
      return absl::NotFoundError(
          absl::StrFormat("shard %s (listed in %s) is missing", path, index_path));
    }
    EDGEQ_ASSIGN_OR_RETURN(TensorDict d, checkpoint::ReadSafetensors(path));
    for (const std::string& name : d.Keys()) {
      if (!where.empty()) {
        auto w = where.find(name);
        if (w == where.end() || w->second != shard) {
          return absl::InvalidArgumentError(
              absl::StrFormat("%s holds tensor %s, which %s places %s", path, Q(name), index_path,
                              w == where.end() ? "nowhere" : absl::StrCat("in ", w->second)));
        }
      }
      if (hf.count(name)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("tensor %s is in more than one shard (again in %s)", Q(name), path));
      }
      hf.emplace(name, **d.Get(name));
    }
  }
  for (const auto& [name, shard] : where) {
    if (!hf.count(name)) {
      return absl::NotFoundError(absl::StrFormat("tensor %s is listed in %s for %s but absent",
                                                 Q(name), index_path, shard));
    }
  }

  return hf;
}

// RoPE tensors the converter generates: llama3 frequency factors (rope_freqs.weight) and
// phi3's long/short factors (rope_factors_long/short.weight).
absl::Status AddRopeTensors(const Config& c, const arch::ArchInfo& row, int64_t head_dim,
                            TensorDict& d) {
  const json& raw = c.raw();
  if (row.hf.llama3_rope_scaling && c.Has("rope_scaling") && raw["rope_scaling"].is_object() &&
      raw["rope_scaling"].contains("rope_type") &&
      raw["rope_scaling"]["rope_type"] == json("llama3")) {
    const json& rs = raw["rope_scaling"];
    RandomModelSpec spec;
    // Numbers in 0..2^24 (so that the float and int conversions below are exact enough and
    // defined); anything else, or a non-number, is refused below as -1.
    auto num = [&](const char* key, double fallback) -> double {
      if (!rs.contains(key)) return fallback;
      if (!rs[key].is_number()) return -1;
      const double v = rs[key].get<double>();
      return v >= 0 && v <= double{1 << 24} ? v : -1;
    };
    if (c.Has("rope_theta")) {
      EDGEQ_ASSIGN_OR_RETURN(const double base, c.PositiveFloat("rope_theta"));
      spec.rope_base = static_cast<float>(base);
    } else {
      spec.rope_base = 10000.0f;
    }
    spec.rope_factor = static_cast<float>(num("factor", 8.0));
    spec.rope_low_freq_factor = static_cast<float>(num("low_freq_factor", 1.0));
    spec.rope_high_freq_factor = static_cast<float>(num("high_freq_factor", 4.0));
    spec.rope_original_context = static_cast<int>(num("original_max_position_embeddings", 8192));
    if (!(spec.rope_factor > 0) || !(spec.rope_low_freq_factor > 0) ||
        !(spec.rope_high_freq_factor > spec.rope_low_freq_factor) ||
        spec.rope_original_context <= 0) {
      return c.Bad("rope_scaling",
                   "llama3 factors: factor > 0, high_freq_factor > "
                   "low_freq_factor > 0, original_max_position_embeddings > 0");
    }
    const std::vector<float> f = Llama3RopeFactors(spec, static_cast<int>(head_dim));
    EDGEQ_ASSIGN_OR_RETURN(Tensor t,
                           Tensor::FromValues<float>(Shape{static_cast<int64_t>(f.size())}, f));
    EDGEQ_RETURN_IF_ERROR(d.Set("rope_freqs.weight", std::move(t)));
  }
  if (row.hf.long_short_rope && c.Has("rope_scaling") && raw["rope_scaling"].is_object()) {
    const json& rs = raw["rope_scaling"];
    for (const char* key : {"long_factor", "short_factor"}) {
      if (!rs.contains(key) || !rs[key].is_array() ||
          static_cast<int64_t>(rs[key].size()) != head_dim / 2) {
        return c.Bad("rope_scaling",
                     absl::StrCat("\"", key, "\" a list of ", head_dim / 2, " numbers"));
      }
      std::vector<float> f;
      for (const json& x : rs[key]) {
        if (!x.is_number() || !(std::fabs(x.get<double>()) <= FLT_MAX)) {
          return c.Bad("rope_scaling", absl::StrCat("finite float numbers in ", key));
        }
        f.push_back(static_cast<float>(x.get<double>()));
      }
      EDGEQ_ASSIGN_OR_RETURN(Tensor t, Tensor::FromValues<float>(Shape{head_dim / 2}, f));
      EDGEQ_RETURN_IF_ERROR(
          d.Set(absl::StrCat("rope_factors_", std::string(key).substr(0, std::strlen(key) - 7),
                             ".weight"),
                std::move(t)));
    }
  }
  return absl::OkStatus();
}

// The shape config.json gives GGUF tensor `g`.
std::vector<int64_t> ExpectedShape(const arch::ArchInfo& row, const HfModel& m,
                                   const std::string& g) {
  const int64_t dim = m.dim, ffn = m.ffn, q_dim = m.head_dim * m.heads;
  const int64_t kv_dim = m.head_dim * m.kv_heads, experts = m.layout.experts;
  const int64_t expert_ffn = m.layout.expert_ffn;
  const bool fused_ffn = row.ffn == arch::FfnLayout::kFusedGateUp;
  auto ends = [&](const char* s) { return absl::EndsWith(g, s); };
  if (g == "token_embd.weight" || g == "output.weight") return {m.vocab, dim};
  if (m.layout.per_layer.active()) {
    const std::optional<std::vector<int64_t>> per_layer =
        internal::PerLayerAttentionShape(m.layout.per_layer, m.heads, dim, g);
    if (per_layer.has_value()) return *per_layer;
  }
  if (m.layout.linear_attention() && absl::StartsWith(g, "blk.")) {
    const std::optional<std::vector<int64_t>> linear = internal::LinearAttentionShape(
        m.layout.linear, dim, absl::string_view(g).substr(g.find('.', 4) + 1));
    if (linear.has_value()) return *linear;
  }
  if (ends("attn_q.weight")) {  // kGatedQ: each head's query, then its output gate
    return {row.qkv == arch::QkvLayout::kGatedQ ? 2 * q_dim : q_dim, dim};
  }
  if (ends("attn_k.weight") || ends("attn_v.weight")) return {kv_dim, dim};
  if (ends("attn_qkv.weight")) return {q_dim + 2 * kv_dim, dim};
  if (ends("attn_output.weight")) return {dim, q_dim};
  if (ends("attn_q.bias")) return {q_dim};
  if (ends("attn_k.bias") || ends("attn_v.bias")) return {kv_dim};
  if (ends("attn_q_norm.weight") || ends("attn_k_norm.weight")) return {m.head_dim};
  if (ends("ffn_up.weight")) return {fused_ffn ? 2 * ffn : ffn, dim};
  if (ends("ffn_gate.weight")) return {ffn, dim};
  if (ends("ffn_down.weight")) return {dim, ffn};
  if (ends("shortconv.conv.weight")) return {dim, m.layout.conv_l_cache};
  if (ends("shortconv.in_proj.weight")) return {3 * dim, dim};
  if (ends("shortconv.out_proj.weight")) return {dim, dim};
  if (ends("ffn_gate_inp.weight")) return {experts, dim};
  if (ends("exp_probs_b.bias")) return {experts};
  if (ends("ffn_gate_exps.weight") || ends("ffn_up_exps.weight")) return {expert_ffn, dim};
  if (ends("ffn_down_exps.weight")) return {dim, expert_ffn};  // one expert's
  return {dim};                                                // the other norms
}

// A matrix's type sets general.file_type (f32, f16 or bf16; others refused).
absl::Status NoteMatrixType(const std::string& name, const Tensor& t, HfModel& m) {
  if (t.encoding() == "bf16") {
    m.file_type = 32;  // LLAMA_FTYPE_MOSTLY_BF16
  } else if (t.encoding().empty() && t.dtype() == DType::kFloat16) {
    m.file_type = 1;  // LLAMA_FTYPE_MOSTLY_F16
  } else if (!t.encoding().empty() || t.dtype() != DType::kFloat32) {
    return absl::UnimplementedError(
        absl::StrFormat("tensor '%s' is %s; expected f32, f16 or bf16", name, t.DebugString()));
  }
  return absl::OkStatus();
}

// The per-expert matrices of `parts` (merged GGUF name -> HF names by expert index) merged
// into 3-D tensors, one at a time (the inputs are mapped views: only the output is allocated).
absl::Status MergeExpertTensors(
    const std::string& config_path, const arch::ArchInfo& row,
    const std::map<std::string, std::vector<std::pair<std::string, const Tensor*>>>& parts,
    HfModel& m, TensorDict& d) {
  for (const auto& [g, by_expert] : parts) {
    const int64_t layer = *ParseDecimalInt64(g.substr(4, g.find('.', 4) - 4));
    const std::string tail = g.substr(g.find('.', 4) + 1);
    for (size_t e = 0; e < by_expert.size(); ++e) {
      if (by_expert[e].second != nullptr) continue;
      const std::string pattern = [&] {
        for (size_t i = 0; i < row.hf_tensor_count; ++i) {
          if (tail == row.hf_tensors[i].gguf) return std::string(row.hf_tensors[i].hf);
        }
        return std::string("?");
      }();
      return absl::NotFoundError(absl::StrFormat(
          "no tensor model.layers.%d.%s for expert %d (%s merges experts 0..%d: num_experts in "
          "%s)",
          layer, absl::StrReplaceAll(pattern, {{"*", absl::StrCat(e)}}), e, g, by_expert.size() - 1,
          config_path));
    }
    if (layer < m.layers && !m.layout.IsMoe(layer)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "tensor %s is on layer %d, which has no experts (num_hidden_layers %d, %s %d in %s)",
          Q(by_expert[0].first), layer, m.layers,
          m.layout.leading_dense > 0 ? "num_dense_layers" : "leading dense layers",
          std::max<int64_t>(m.layout.leading_dense, 0), config_path));
    }
    EDGEQ_RETURN_IF_ERROR(NoteMatrixType(by_expert[0].first, *by_expert[0].second, m));
    EDGEQ_ASSIGN_OR_RETURN(Tensor merged,
                           internal::MergeExperts(g, by_expert, ExpectedShape(row, m, g)));
    m.source.emplace(g, by_expert[0].first);
    EDGEQ_RETURN_IF_ERROR(d.Set(g, std::move(merged)));
  }
  return absl::OkStatus();
}

// The Hugging Face tensors under their GGUF names into d (1-D ones as f32 plus the norm offset,
// llama's q/k rows permuted, lfm2's conv kernels squeezed to 2-D, the experts merged), each
// checked against the shape config.json gives it.
absl::Status ConvertTensors(const std::string& dir, const std::string& config_path,
                            const arch::ArchInfo& row, const std::map<std::string, Tensor>& hf,
                            HfModel& m, TensorDict& d) {
  // Merged GGUF name -> (HF name, tensor) by expert index.
  std::map<std::string, std::vector<std::pair<std::string, const Tensor*>>> experts;
  for (const auto& [name, t] : hf) {
    EDGEQ_ASSIGN_OR_RETURN(std::optional<internal::ExpertPart> part,
                           internal::MatchExpertTensor(row, name, m.layout.experts));
    if (part.has_value()) {
      auto& slots = experts[part->gguf];
      slots.resize(static_cast<size_t>(m.layout.experts), {std::string(), nullptr});
      slots[static_cast<size_t>(part->expert)] = {name, &t};
      continue;
    }
    EDGEQ_ASSIGN_OR_RETURN(std::string g, GgufName(row, name));
    if (g.empty()) continue;
    if (g == "output.weight" && m.tied) continue;
    if (auto [prev, inserted] = m.source.emplace(g, name); !inserted) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: tensors %s and %s both become %s; expected one tensor for it", dir,
                          Q(prev->second), Q(name), g));
    }
    Tensor in = t;
    const std::vector<int64_t>& dims = t.logical_shape().dims();
    const absl::string_view tail =
        absl::StartsWith(g, "blk.") ? absl::string_view(g).substr(g.find('.', 4) + 1) : g;
    if ((tail == "shortconv.conv.weight" || tail == "ssm_conv1d.weight") && dims.size() == 3 &&
        dims[1] == 1) {
      EDGEQ_ASSIGN_OR_RETURN(in, internal::WithLogicalShape(t, {dims[0], dims[2]}));  // squeeze(1)
    }
    EDGEQ_RETURN_IF_ERROR(CheckShape(name, in, ExpectedShape(row, m, g)));
    Tensor out = in;
    if (in.logical_shape().rank() == 1) {
      const bool offset = absl::EndsWith(g, "norm.weight") &&
                          (row.hf.norm_offset_skip == nullptr || tail != row.hf.norm_offset_skip);
      EDGEQ_ASSIGN_OR_RETURN(out, internal::ToF32(name, in, offset ? row.hf.norm_offset : 0.0f));
    } else {
      EDGEQ_RETURN_IF_ERROR(NoteMatrixType(name, in, m));
    }
    if (m.layout.linear_attention() && absl::StartsWith(g, "blk.")) {
      EDGEQ_ASSIGN_OR_RETURN(out, internal::ConvertLinearAttentionTensor(m.layout.linear, tail,
                                                                         name, t, std::move(out)));
    }
    if (row.hf.permute_qk && absl::EndsWith(g, "attn_q.weight")) {
      EDGEQ_ASSIGN_OR_RETURN(out, PermuteRope(name, t, m.heads));
    } else if (row.hf.permute_qk && absl::EndsWith(g, "attn_k.weight")) {
      EDGEQ_ASSIGN_OR_RETURN(out, PermuteRope(name, t, m.kv_heads));
    }
    EDGEQ_RETURN_IF_ERROR(d.Set(g, std::move(out)));
  }
  return MergeExpertTensors(config_path, row, experts, m, d);
}

// Every tensor the architecture needs is there, and none beyond num_hidden_layers.
absl::Status RequireTensors(const std::string& dir, const std::string& config_path,
                            const arch::ArchInfo& row, const HfModel& m, const TensorDict& d) {
  const int64_t layers = m.layers;
  // Every tensor the architecture needs, layer by layer: the first missing one ends the check,
  // so a declared layer count far above the tensors present costs nothing.
  auto require = [&](const std::string& n) -> absl::Status {
    if (d.Contains(n)) return absl::OkStatus();
    return absl::NotFoundError(absl::StrFormat("%s: no tensor for %s (%s with %d layers needs it)",
                                               dir, n, row.hf.class_name, layers));
  };
  const bool hybrid = internal::IsHybrid(row);
  for (const char* n :
       {"token_embd.weight", hybrid ? "token_embd_norm.weight" : "output_norm.weight"}) {
    EDGEQ_RETURN_IF_ERROR(require(n));
  }
  if (!m.tied) EDGEQ_RETURN_IF_ERROR(require("output.weight"));
  if (m.layout.per_layer.per_layer_dim > 0) {
    for (const char* n : {"per_layer_token_embd.weight", "per_layer_model_proj.weight",
                          "per_layer_proj_norm.weight"}) {
      EDGEQ_RETURN_IF_ERROR(require(n));
    }
  }
  for (int64_t l = 0; l < layers; ++l) {
    for (size_t i = 0; i < row.hf_tensor_count; ++i) {
      if (!internal::LayerNeedsTensor(m.layout, l, row.hf_tensors[i].gguf)) continue;
      EDGEQ_RETURN_IF_ERROR(require(absl::StrCat("blk.", l, ".", row.hf_tensors[i].gguf)));
    }
  }
  // Every tensor present is used: none for a layer above the declared count, none of another
  // kind of layer (attention on a conv layer, a dense FFN on an MoE layer, ...).
  for (const auto& [g, name] : m.source) {
    if (!absl::StartsWith(g, "blk.")) continue;
    const size_t dot = g.find('.', 4);
    const std::optional<int64_t> l = ParseDecimalInt64(g.substr(4, dot - 4));
    if (!l.has_value() || *l >= layers) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: tensor %s is beyond num_hidden_layers %d (%s)", dir, Q(name), layers, config_path));
    }
    if (!internal::LayerHasTensor(m.layout, *l, g.substr(dot + 1))) {
      const std::string kind = absl::StrCat(m.layout.IsAttention(*l)      ? "an attention"
                                            : m.layout.linear_attention() ? "a gated delta-net"
                                                                          : "a short-convolution",
                                            m.layout.experts == 0 ? ""
                                            : m.layout.IsMoe(*l)  ? ", MoE"
                                                                  : ", dense-FFN");
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: tensor %s does not belong on layer %d (%s layer by %s)", dir,
                          Q(name), *l, kind, config_path));
    }
  }

  return absl::OkStatus();
}

// The metadata, in the converter's order.
absl::Status AddMetadata(const Config& c, const arch::ArchInfo& row, const HfModel& m,
                         TensorDict& d) {
  const json& raw = c.raw();
  const std::string a = row.gguf_name;
  const int64_t layers = m.layers, dim = m.dim, ffn = m.ffn, heads = m.heads;
  const int64_t kv_heads = m.kv_heads, head_dim = m.head_dim, context = m.context;
  const int64_t vocab = m.vocab;
  const int64_t phi_original_context = m.original_context;
  auto u32 = [](int64_t v) { return MetadataValue::Int(v, W::kU32); };
  auto f32 = [](double v) { return MetadataValue::Float(v, W::kF32); };
  d.SetMetadata("general.architecture", MetadataValue::String(a));
  d.SetMetadata("general.type", MetadataValue::String("model"));
  if (c.Has("_name_or_path") && raw["_name_or_path"].is_string()) {
    d.SetMetadata("general.name", MetadataValue::String(raw["_name_or_path"].get<std::string>()));
  }
  d.SetMetadata(a + ".block_count", u32(layers));
  d.SetMetadata(a + ".context_length", u32(context));
  d.SetMetadata(a + ".embedding_length", u32(dim));
  d.SetMetadata(a + ".feed_forward_length", u32(ffn));
  d.SetMetadata(a + ".attention.head_count", u32(heads));
  if (m.layout.short_conv()) {  // per layer, 0 on the conv layers (LFM2Model, LFM2MoeModel)
    std::vector<int64_t> kv(static_cast<size_t>(layers), 0);
    for (int64_t l = 0; l < layers; ++l) kv[l] = m.layout.IsAttention(l) ? kv_heads : 0;
    d.SetMetadata(a + ".attention.head_count_kv", MetadataValue::IntArray(kv, W::kI32));
  } else {
    d.SetMetadata(a + ".attention.head_count_kv", u32(kv_heads));
  }
  const internal::LinearAttention& la = m.layout.linear;
  if (m.layout.linear_attention()) {
    d.SetMetadata(a + ".rope.dimension_sections",
                  MetadataValue::IntArray(la.rope_sections, W::kI32));
  }
  if (c.Has("rope_theta") || row.hf.default_rope_theta > 0) {
    EDGEQ_ASSIGN_OR_RETURN(const double base,
                           c.PositiveFloat("rope_theta", row.hf.default_rope_theta));
    d.SetMetadata(a + ".rope.freq_base", f32(base));
  }
  if (m.layout.per_layer.has_theta_swa) {  // gemma4: rope_parameters.sliding_attention
    d.SetMetadata(a + ".rope.freq_base_swa", f32(m.layout.per_layer.theta_swa));
  }
  d.SetMetadata(a + ".attention.layer_norm_rms_epsilon", f32(m.rms_eps));
  if (m.has_head_dim || row.hf.always_head_dim_keys) {
    d.SetMetadata(a + ".attention.key_length", u32(head_dim));
    d.SetMetadata(a + ".attention.value_length", u32(head_dim));
  }
  if (row.hf.sliding_window && c.Has("sliding_window")) {
    EDGEQ_ASSIGN_OR_RETURN(const int64_t window, c.PositiveInt("sliding_window"));
    EDGEQ_ASSIGN_OR_RETURN(const int64_t pattern, c.PositiveInt("sliding_window_pattern", 6));
    EDGEQ_ASSIGN_OR_RETURN(const double base_swa, c.PositiveFloat("rope_local_base_freq", 10000));
    d.SetMetadata(a + ".attention.sliding_window", u32(window));
    d.SetMetadata(a + ".attention.sliding_window_pattern", u32(pattern));
    d.SetMetadata(a + ".rope.freq_base_swa", f32(base_swa));
  }
  if (row.hf.sliding_window && c.Has("final_logit_softcapping")) {
    EDGEQ_ASSIGN_OR_RETURN(const double cap, c.PositiveFloat("final_logit_softcapping"));
    d.SetMetadata(a + ".final_logit_softcapping", f32(cap));
  }
  if (row.hf.long_short_rope) {
    d.SetMetadata(a + ".rope.scaling.original_context_length", u32(phi_original_context));
    const double scale = static_cast<double>(context) / phi_original_context;
    d.SetMetadata(a + ".rope.scaling.attn_factor",
                  f32(scale <= 1.0 ? 1.0
                                   : std::sqrt(1.0 + std::log(scale) /
                                                         std::log(double(phi_original_context)))));
  }
  d.SetMetadata("general.file_type", u32(m.file_type));
  d.SetMetadata(a + ".vocab_size", u32(vocab));
  if (m.layout.linear_attention()) internal::AddLinearAttentionKeys(a, la, d);
  d.SetMetadata(a + ".rope.dimension_count",
                u32(m.layout.linear_attention() ? la.rope_dims : head_dim));
  if (m.layout.short_conv()) d.SetMetadata(a + ".shortconv.l_cache", u32(m.layout.conv_l_cache));
  if (m.layout.experts > 0) {
    d.SetMetadata(a + ".expert_count", u32(m.layout.experts));
    d.SetMetadata(a + ".expert_used_count", u32(m.layout.experts_used));
    d.SetMetadata(a + ".expert_feed_forward_length", u32(m.layout.expert_ffn));
    if (internal::IsHybrid(row)) {  // LFM2MoeModel: sigmoid gating, always
      d.SetMetadata(a + ".leading_dense_block_count", u32(m.layout.leading_dense));
      d.SetMetadata(a + ".expert_gating_func", u32(2));
    }
  }
  if (m.layout.per_layer.active()) internal::AddPerLayerAttentionKeys(a, m.layout.per_layer, d);
  d.SetMetadata("general.quantization_version", u32(2));

  return absl::OkStatus();
}

// As the converter's TextModel.__init__ reads config.json: the keys of a text_config object
// over the top-level ones (a multimodal checkpoint's layout), and the rope_theta of
// rope_parameters (else rope_scaling; its full_attention entry if it has one) over a
// top-level rope_theta (set_gguf_parameters reads it from there).
absl::Status NormalizeConfig(const std::string& path, json& j) {
  const Config c(path, j);
  if (c.Has("text_config")) {
    if (!j["text_config"].is_object()) return c.Bad("text_config", "an object");
    const json text = j["text_config"];
    for (auto it = text.begin(); it != text.end(); ++it) j[it.key()] = it.value();
  }
  // hparams.get("rope_parameters", hparams.get("rope_scaling")): a rope_parameters key, even
  // null, is the one read.
  const char* key = j.contains("rope_parameters") ? "rope_parameters" : "rope_scaling";
  if (j.contains(key) && j[key].is_object()) {
    const json* rp = &j[key];
    if (rp->contains("full_attention")) rp = &(*rp)["full_attention"];
    if (rp->is_object() && rp->contains("rope_theta")) j["rope_theta"] = (*rp)["rope_theta"];
  }
  return absl::OkStatus();
}

}  // namespace

bool IsHfCheckpointDir(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && IsFile(path + "/config.json");
}

std::vector<std::string> SupportedHfArchitectures() {
  std::vector<std::string> v;
  for (const arch::ArchInfo& a : arch::Architectures()) {
    if (a.hf.no_import == nullptr) v.push_back(a.hf.class_name);
  }
  std::sort(v.begin(), v.end());
  return v;
}

absl::StatusOr<TensorDict> ImportHfCheckpoint(const std::string& dir) {
  const std::string config_path = dir + "/config.json";
  EDGEQ_ASSIGN_OR_RETURN(json cj,
                         ReadJsonObject(config_path, checkpoint::internal::kMaxHfConfigBytes));
  EDGEQ_RETURN_IF_ERROR(NormalizeConfig(config_path, cj));
  Config c(config_path, std::move(cj));
  const json& raw = c.raw();
  if (!c.Has("architectures") || !raw["architectures"].is_array() || raw["architectures"].empty() ||
      !raw["architectures"][0].is_string()) {
    return c.Bad("architectures", "a list naming the model class, e.g. [\"LlamaForCausalLM\"]");
  }
  const std::string hf_arch = raw["architectures"][0].get<std::string>();
  const arch::ArchInfo* row = arch::FindByHfClass(hf_arch);
  if (row == nullptr || row->hf.no_import != nullptr) {
    return absl::UnimplementedError(
        absl::StrFormat("%s: architecture %s is not supported (supported: %s)%s", config_path,
                        PlainOrQuoted(hf_arch), absl::StrJoin(SupportedHfArchitectures(), ", "),
                        row == nullptr ? "" : absl::StrCat("; ", row->hf.no_import)));
  }
  EDGEQ_ASSIGN_OR_RETURN(HfDims dims, ReadDims(c, *row));
  HfModel m;
  static_cast<HfDims&>(m) = dims;
  EDGEQ_ASSIGN_OR_RETURN(m.layout, internal::ReadLayout(c, *row, m.layers, m.head_dim));
  using TensorMap = std::map<std::string, Tensor>;
  EDGEQ_ASSIGN_OR_RETURN(const TensorMap hf, ReadHfTensors(dir));
  TensorDict d;
  EDGEQ_RETURN_IF_ERROR(AddRopeTensors(c, *row, m.head_dim, d));
  if (m.layout.per_layer.active()) {  // gemma4: the full layers' proportional RoPE
    EDGEQ_ASSIGN_OR_RETURN(Tensor freqs, internal::PerLayerRopeFreqs(m.layout.per_layer));
    EDGEQ_RETURN_IF_ERROR(d.Set("rope_freqs.weight", std::move(freqs)));
  }
  // Without lm_head.weight the classifier is the embedding whatever tie_word_embeddings says.
  if (!hf.count("lm_head.weight")) m.tied = true;
  if (row->hf.long_short_rope) {
    EDGEQ_ASSIGN_OR_RETURN(
        m.original_context,
        c.OptionalPositiveInt("original_max_position_embeddings", m.context, kMaxContext));
  }
  EDGEQ_RETURN_IF_ERROR(ConvertTensors(dir, config_path, *row, hf, m, d));
  EDGEQ_RETURN_IF_ERROR(RequireTensors(dir, config_path, *row, m, d));
  EDGEQ_RETURN_IF_ERROR(AddMetadata(c, *row, m, d));
  const int64_t vocab = m.vocab;

  // The vocabulary.
  // tokenizer.json, else tokenizer.model (SentencePiece).
  const std::string tokenizer_config = dir + "/tokenizer_config.json";
  if (IsFile(dir + "/tokenizer.json") || IsFile(dir + "/tokenizer.model")) {
    const std::string tokenizer_path =
        dir + (IsFile(dir + "/tokenizer.json") ? "/tokenizer.json" : "/tokenizer.model");
    EDGEQ_ASSIGN_OR_RETURN(tokenizer::Tokenizer tok, tokenizer::Tokenizer::FromHfDirectory(dir));
    if (tok.n_tokens() > vocab) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s has %d tokens, more than vocab_size %d in %s", tokenizer_path,
                          tok.n_tokens(), vocab, config_path));
    }
    TensorDict v;
    absl::Status written = tok.ToGgufMetadata(&v);
    if (!written.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(tokenizer_path, ": cannot convert: ", written.message()));
    }
    // Pad to vocab_size as the converter does: "[PAD<id>]", type unused (5).
    if (tok.n_tokens() < vocab) {
      std::vector<std::string> texts = (*v.GetMetadata("tokenizer.ggml.tokens"))->strings();
      std::vector<double> scores = (*v.GetMetadata("tokenizer.ggml.scores"))->floats();
      std::vector<int64_t> types = (*v.GetMetadata("tokenizer.ggml.token_type"))->ints();
      for (int64_t i = tok.n_tokens(); i < vocab; ++i) {
        texts.push_back(absl::StrCat("[PAD", i, "]"));
        scores.push_back(0.0);
        types.push_back(5);
      }
      v.SetMetadata("tokenizer.ggml.tokens", MetadataValue::StringArray(std::move(texts)));
      v.SetMetadata("tokenizer.ggml.scores", MetadataValue::FloatArray(std::move(scores), W::kF32));
      v.SetMetadata("tokenizer.ggml.token_type",
                    MetadataValue::IntArray(std::move(types), W::kI32));
    }
    for (const std::string& key : v.MetadataKeys()) d.SetMetadata(key, **v.GetMetadata(key));
    if (IsFile(tokenizer_config)) {
      absl::StatusOr<std::string> chat = ChatTemplate::TextFromTokenizerConfig(tokenizer_config);
      if (chat.ok()) {
        d.SetMetadata("tokenizer.chat_template", MetadataValue::String(*chat));
      } else if (!absl::IsNotFound(chat.status())) {
        return chat.status();
      }
    }
  }
  return d;
}

}  // namespace convert
}  // namespace edgeq
