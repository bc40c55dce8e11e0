// Test helper: a GGUF-layout model written back as a Hugging Face checkpoint directory.
#include "convert/hf_testing.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "checkpoint/safetensors.h"
#include "convert/hf_import.h"
#include "core/status_macros.h"
#include "llm/arch/arch_table.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace convert {

namespace arch = llm::arch;
using llm::RandomModelSpec;
namespace {

using json = nlohmann::json;

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// The config.json keys of lfm2 / lfm2moe (layer_types, conv_L_cache, norm_eps, lfm2's
// block_ff_dim with auto-adjust) and of the experts (qwen3moe, lfm2moe).
void AddLayerKeys(const RandomModelSpec& s, const arch::ArchInfo& row, json& c) {
  if (s.shortconv_l_cache > 0) {
    json types = json::array();
    for (int l = 0; l < s.layers; ++l) {
      const bool attention = std::find(s.attention_layers.begin(), s.attention_layers.end(), l) !=
                             s.attention_layers.end();
      types.push_back(attention ? "full_attention" : "conv");
    }
    c["layer_types"] = types;
    c["conv_L_cache"] = s.shortconv_l_cache;
    c["norm_eps"] = c["rms_norm_eps"];
    c.erase("rms_norm_eps");
  }
  if (row.hf.block_ff_dim) {  // block_ff_dim 3/2 ffn, auto-adjusted back: int(2 ff / 3) = ffn
    int multiple = 1;
    while (multiple < 256 && s.ffn % (2 * multiple) == 0) multiple *= 2;
    c["block_ff_dim"] = 3 * s.ffn / 2;
    c["intermediate_size"] = 3 * s.ffn / 2;
    c["block_auto_adjust_ff_dim"] = s.ffn % 2 == 0;
    if (s.ffn % 2 != 0) c["block_ff_dim"] = c["intermediate_size"] = s.ffn;
    c["block_ffn_dim_multiplier"] = 1.0;
    c["block_multiple_of"] = multiple;
  }
  if (s.expert_count > 0) {
    c["num_experts"] = s.expert_count;
    c["num_experts_per_tok"] = s.expert_used;
    c["moe_intermediate_size"] = s.expert_ffn;
    if (row.hf.dense_layers_key != nullptr) {
      c[row.hf.dense_layers_key] = s.leading_dense;
    } else {
      c["mlp_only_layers"] = json::array();
      c["decoder_sparse_step"] = 1;
      c["norm_topk_prob"] = true;
    }
  }
}

// qwen35's config.json keys: the linear_* sizes, full_attention_interval and the layer_types it
// gives, the output gate, and the RoPE keys inside rope_parameters (rope_theta moved there, as
// transformers 5 writes it; partial_rotary_factor = rope dims / head dim, mrope_section).
void AddLinearAttentionKeys(const RandomModelSpec& s, json& c) {
  c["linear_num_key_heads"] = s.ssm_key_heads;
  c["linear_num_value_heads"] = s.ssm_value_heads;
  c["linear_key_head_dim"] = s.ssm_state;
  c["linear_value_head_dim"] = s.ssm_state;
  c["linear_conv_kernel_dim"] = s.ssm_conv_kernel;
  c["full_attention_interval"] = s.full_attention_interval;
  json types = json::array();
  for (int l = 0; l < s.layers; ++l) {
    types.push_back((l + 1) % s.full_attention_interval == 0 ? "full_attention"
                                                             : "linear_attention");
  }
  c["layer_types"] = types;
  c["attn_output_gate"] = true;
  const int head_dim = s.head_dim > 0 ? s.head_dim : s.dim / s.heads;
  json sections = json::array();
  for (int i = 0; i < 3; ++i) sections.push_back(s.rope_sections[i]);
  c["rope_parameters"] = {{"rope_type", "default"},
                          {"rope_theta", c["rope_theta"]},
                          {"mrope_interleaved", true},
                          {"mrope_section", sections},
                          {"partial_rotary_factor", static_cast<double>(s.rope_dims) / head_dim}};
  c.erase("rope_theta");
}

// Whether the row maps GGUF layer tensor `gguf`.
bool RowMaps(const arch::ArchInfo& row, const char* gguf) {
  for (size_t i = 0; i < row.hf_tensor_count; ++i) {
    if (std::strcmp(row.hf_tensors[i].gguf, gguf) == 0) return true;
  }
  return false;
}

// gemma4's config.json keys (Gemma4TextConfig): layer_types from the pattern, head_dim (the
// sliding layers') and global_head_dim, the shared-KV and per-layer-embedding sizes, the
// double-wide FFN, attention_k_eq_v, soft-capping and rope_parameters' full_attention
// (proportional, partial_rotary_factor) and sliding_attention entries (rope_theta moved there).
void AddPerLayerAttentionKeys(const RandomModelSpec& s, json& c) {
  const int hs_full = s.head_dim > 0 ? s.head_dim : s.dim / s.heads;
  json types = json::array();
  for (int l = 0; l < s.layers; ++l) {
    const int n = s.sliding_window_pattern;
    types.push_back(l % n < n - 1 ? "sliding_attention" : "full_attention");
  }
  c["layer_types"] = types;
  c["head_dim"] = s.head_dim_swa > 0 ? s.head_dim_swa : hs_full;
  c["global_head_dim"] = hs_full;
  c["num_kv_shared_layers"] = s.shared_kv_layers;
  c["hidden_size_per_layer_input"] = s.per_layer_dim;
  c["vocab_size_per_layer_input"] = s.vocab;
  c["use_double_wide_mlp"] = s.double_wide_mlp;
  c["attention_k_eq_v"] = s.value_from_key;
  c["sliding_window"] = s.sliding_window;
  c["final_logit_softcapping"] = s.final_logit_softcapping;
  c["enable_moe_block"] = false;
  c["rope_parameters"] = {
      {"full_attention",
       {{"rope_type", "proportional"},
        {"partial_rotary_factor", s.partial_rotary_full},
        {"rope_theta", c["rope_theta"]}}},
      {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", s.rope_base_swa}}}};
  c.erase("rope_theta");
}

// qwen35's value heads back from the GGUF's tiled order (GGUF block j * hk + g) to Hugging
// Face's, grouped by key head (block g * r + j): `block` rows (from row `first`) or columns each.
Tensor TiledToGrouped(const Tensor& t, const RandomModelSpec& s, int64_t first, int64_t block,
                      bool columns) {
  const int64_t hk = s.ssm_key_heads, hv = s.ssm_value_heads, r = hv / hk;
  const std::vector<int64_t>& dims = t.shape().dims();
  const int64_t rows = dims[0], cols = dims.size() == 2 ? dims[1] : 1;
  const size_t row_bytes = t.bytes().size() / rows, col_bytes = row_bytes / cols;
  Tensor out = *t.Clone();
  uint8_t* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  const uint8_t* src = t.bytes().data();
  for (int64_t g = 0; g < hk; ++g) {
    for (int64_t j = 0; j < r; ++j) {
      const int64_t hf = g * r + j, gguf = j * hk + g;
      if (columns) {
        for (int64_t row = 0; row < rows; ++row) {
          std::memcpy(dst + row * row_bytes + hf * block * col_bytes,
                      src + row * row_bytes + gguf * block * col_bytes, block * col_bytes);
        }
      } else {
        std::memcpy(dst + (first + hf * block) * row_bytes,
                    src + (first + gguf * block) * row_bytes, block * row_bytes);
      }
    }
  }
  return out;
}

// A_log for ssm_a = a < 0: the float x nearest log(-a) for which the converter's
// -exp(x) (computed as the importer does, exp in double rounded to float) gives a's bits.
absl::StatusOr<float> ALogFor(float a) {
  const float x0 = static_cast<float>(std::log(-static_cast<double>(a)));
  float up = x0, down = x0;
  for (int step = 0; step < 64; ++step) {
    for (float x : {up, down}) {
      if (-static_cast<float>(std::exp(static_cast<double>(x))) == a) return x;
    }
    up = std::nextafter(up, INFINITY);
    down = std::nextafter(down, -INFINITY);
  }
  return absl::InternalError(absl::StrCat("no float A_log gives ssm_a ", a));
}

// A qwen35 gated delta-net tensor (`tail`: GGUF name after "blk.N.") as Hugging Face stores it:
// value heads grouped by key head, ssm_a as A_log, ssm_conv1d as [channels, 1, kernel].
absl::StatusOr<Tensor> LinearAttentionToHf(const RandomModelSpec& s, const std::string& tail,
                                           const Tensor& t) {
  const int64_t key_dim = int64_t{s.ssm_key_heads} * s.ssm_state, hd = s.ssm_state;
  Tensor hf = t;
  if (tail == "attn_qkv.weight" || tail == "ssm_conv1d.weight") {
    hf = TiledToGrouped(t, s, 2 * key_dim, hd, false);
  } else if (tail == "attn_gate.weight") {
    hf = TiledToGrouped(t, s, 0, hd, false);
  } else if (tail == "ssm_beta.weight" || tail == "ssm_alpha.weight" || tail == "ssm_a" ||
             tail == "ssm_dt.bias") {
    hf = TiledToGrouped(t, s, 0, 1, false);
  } else if (tail == "ssm_out.weight") {
    hf = TiledToGrouped(t, s, 0, hd, true);
  }
  if (tail == "ssm_a") {
    EDGEQ_ASSIGN_OR_RETURN(absl::Span<float> v, hf.MutableValues<float>());
    for (float& x : v) {
      EDGEQ_ASSIGN_OR_RETURN(x, ALogFor(x));
    }
  }
  if (tail == "ssm_conv1d.weight") {
    return hf.Reshape(Shape{t.shape().dim(0), 1, t.shape().dim(1)});
  }
  return hf;
}

// llama's q/k rows back to Hugging Face's order: HF row h*hd + j*hd/2 + i = GGUF h*hd + 2i + j.
Tensor UnpermuteRope(const Tensor& t, int heads) {
  const int64_t rows = t.shape().dim(0);
  const size_t row_bytes = t.bytes().size() / rows;
  const int64_t hd = rows / heads, half = hd / 2;
  Tensor out = *t.Clone();
  uint8_t* dst = static_cast<uint8_t*>(out.raw_mutable_data());
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < half; ++i) {
      for (int64_t j = 0; j < 2; ++j) {
        std::memcpy(dst + (h * hd + j * half + i) * row_bytes,
                    t.bytes().data() + (h * hd + 2 * i + j) * row_bytes, row_bytes);
      }
    }
  }
  return out;
}

// The Hugging Face name of GGUF tensor `g` in the architecture's row ("" if none).
std::string HfName(const arch::ArchInfo& row, const std::string& g) {
  if (g == "token_embd.weight") return "model.embed_tokens.weight";
  if (g == "output_norm.weight") return "model.norm.weight";
  if (g == "output.weight") return "lm_head.weight";
  if (g == "token_embd_norm.weight") return "model.embedding_norm.weight";  // lfm2's final norm
  // gemma4's per-layer embeddings
  if (g == "per_layer_token_embd.weight") return "model.embed_tokens_per_layer.weight";
  if (g == "per_layer_model_proj.weight") return "model.per_layer_model_projection.weight";
  if (g == "per_layer_proj_norm.weight") return "model.per_layer_projection_norm.weight";
  const size_t dot = g.find('.', 4);
  const std::string layer = g.substr(4, dot - 4), tail = g.substr(dot + 1);
  for (size_t i = 0; i < row.hf_tensor_count; ++i) {
    if (tail == row.hf_tensors[i].gguf) {
      return absl::StrCat("model.layers.", layer, ".", row.hf_tensors[i].hf);
    }
  }
  return "";
}

}  // namespace

absl::Status WriteHfCheckpointDir(const llm::RandomModelSpec& s, const checkpoint::TensorDict& m,
                                  const std::string& dir, int shards) {
  ::mkdir(dir.c_str(), 0755);
  const arch::ArchInfo* row = arch::FindByGgufName(s.architecture);
  if (row == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("architecture ", s.architecture, " has no Hugging Face class"));
  }
  json c = {{"architectures", {row->hf.class_name}},
            {"hidden_size", s.dim},
            {"intermediate_size", s.ffn},
            {"num_hidden_layers", s.layers},
            {"num_attention_heads", s.heads},
            {"num_key_value_heads", s.kv_heads},
            {"max_position_embeddings", s.context},
            {"vocab_size", s.vocab},
            {"rms_norm_eps", s.rms_eps},
            {"rope_theta", s.rope_base},
            {"tie_word_embeddings", s.tied},
            {"torch_dtype", "float32"}};
  if (s.head_dim > 0) c["head_dim"] = s.head_dim;
  AddLayerKeys(s, *row, c);
  const bool linear = s.ssm_key_heads > 0;  // qwen35
  if (linear) AddLinearAttentionKeys(s, c);
  const bool per_layer = RowMaps(*row, "layer_output_scale.weight");  // gemma4
  if (per_layer) AddPerLayerAttentionKeys(s, c);
  if (row->hf.sliding_window) {
    c["sliding_window"] = s.sliding_window;
    c["sliding_window_pattern"] = s.sliding_window_pattern;
    c["rope_local_base_freq"] = s.rope_base_swa;
  }
  if (shards < 1) return absl::InvalidArgumentError("shards must be positive");
  std::vector<std::vector<std::pair<std::string, Tensor>>> parts(shards);
  int n = 0;
  for (const std::string& g : m.Keys()) {
    const Tensor& t = **m.Get(g);
    if (per_layer && g == "rope_freqs.weight") continue;  // made from rope_parameters
    if (absl::StartsWith(g, "rope_factors_")) {
      absl::StatusOr<absl::Span<const float>> v = t.Values<float>();
      EDGEQ_RETURN_IF_ERROR(v.status());
      std::vector<float> f(v->begin(), v->end());
      c["rope_scaling"][absl::StrContains(g, "long") ? "long_factor" : "short_factor"] = f;
      c["rope_scaling"]["type"] = "longrope";
      c["original_max_position_embeddings"] = s.rope_original_context;
      continue;
    }
    Tensor hf = t;
    const bool permute = row->hf.permute_qk;
    if (permute && absl::EndsWith(g, "attn_q.weight")) hf = UnpermuteRope(t, s.heads);
    if (permute && absl::EndsWith(g, "attn_k.weight")) hf = UnpermuteRope(t, s.kv_heads);
    const std::string tail = absl::StartsWith(g, "blk.") ? g.substr(g.find('.', 4) + 1) : g;
    if (row->hf.norm_offset != 0.0f && absl::EndsWith(g, "norm.weight") &&
        (row->hf.norm_offset_skip == nullptr || tail != row->hf.norm_offset_skip)) {
      hf = *t.Clone();
      absl::StatusOr<absl::Span<float>> v = hf.MutableValues<float>();
      EDGEQ_RETURN_IF_ERROR(v.status());
      for (float& x : *v) x -= row->hf.norm_offset;  // exact for x in [0.5, 2] and offset 1
    }
    const std::string name = HfName(*row, g);
    if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("no HF name for ", g));
    if (absl::StrContains(name, "*")) {  // experts: one [rows, columns] matrix each
      const std::vector<int64_t>& dims = t.shape().dims();
      const size_t bytes = t.bytes().size() / dims[0];
      for (int64_t e = 0; e < dims[0]; ++e) {
        EDGEQ_ASSIGN_OR_RETURN(Tensor x, Tensor::Create(t.dtype(), Shape{dims[1], dims[2]}));
        std::memcpy(x.raw_mutable_data(), t.bytes().data() + e * bytes, bytes);
        // gate, up and down of one expert in different shards (when there are three or more).
        parts[(e + n) % shards].push_back(
            {absl::StrReplaceAll(name, {{"*", absl::StrCat(e)}}), std::move(x)});
      }
      ++n;
      continue;
    }
    if (linear && absl::StartsWith(g, "blk.")) {
      EDGEQ_ASSIGN_OR_RETURN(hf, LinearAttentionToHf(s, tail, hf));
    }
    if (absl::EndsWith(g, "shortconv.conv.weight")) {  // [dim, 1, L] in Hugging Face
      EDGEQ_ASSIGN_OR_RETURN(hf, t.Reshape(Shape{t.shape().dim(0), 1, t.shape().dim(1)}));
    }
    parts[n++ % shards].push_back({name, hf});
  }
  json weight_map = json::object();
  for (int i = 0; i < shards; ++i) {
    checkpoint::TensorDict d;
    const std::string file =
        shards == 1 ? "model.safetensors"
                    : absl::StrCat("model-0000", i + 1, "-of-0000", shards, ".safetensors");
    for (auto& [name, t] : parts[i]) {
      EDGEQ_RETURN_IF_ERROR(d.Set(name, t));
      weight_map[name] = file;
    }
    EDGEQ_RETURN_IF_ERROR(checkpoint::WriteSafetensors(d, dir + "/" + file));
  }
  if (shards > 1) {
    WriteText(dir + "/model.safetensors.index.json",
              json({{"metadata", {{"total_size", 0}}}, {"weight_map", weight_map}}).dump(1));
  }
  WriteText(dir + "/config.json", c.dump(1));
  return absl::OkStatus();
}

absl::Status RemoveHfTensor(const std::string& dir, const std::string& name) {
  const std::string index_path = dir + "/model.safetensors.index.json";
  std::ifstream in(index_path);
  const nlohmann::json parsed = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object() || !parsed.contains("weight_map") ||
      !parsed["weight_map"].contains(name) || !parsed["weight_map"][name].is_string()) {
    return absl::NotFoundError(absl::StrCat(index_path, " lists no tensor '", name, "'"));
  }
  nlohmann::json index = parsed;
  const std::string shard = dir + "/" + index["weight_map"][name].get<std::string>();
  index["weight_map"].erase(name);
  std::ofstream(index_path) << index.dump();
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict part, checkpoint::ReadSafetensors(shard));
  checkpoint::TensorDict copy;
  for (const std::string& k : part.Keys()) {
    if (k == name) continue;
    EDGEQ_ASSIGN_OR_RETURN(const Tensor* t, part.Get(k));
    EDGEQ_ASSIGN_OR_RETURN(Tensor owned, t->Clone());
    EDGEQ_RETURN_IF_ERROR(copy.Set(k, std::move(owned)));
  }
  part = checkpoint::TensorDict();  // the shard's mapping closed before it is written again
  return checkpoint::WriteSafetensors(copy, shard);
}

absl::StatusOr<std::string> WriteRandomHfCheckpoint(const llm::RandomModelSpec& spec,
                                                    const std::string& name, int shards) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::TensorDict model, llm::RandomModel(spec));
  const char* base = std::getenv("TEST_TMPDIR");
  const std::string dir = absl::StrCat(base != nullptr ? base : "/tmp", "/", name);
  EDGEQ_RETURN_IF_ERROR(WriteHfCheckpointDir(spec, model, dir, shards));  // (makes the directory)
  return dir;
}

absl::Status EditHfConfig(const std::string& dir,
                          const std::function<void(nlohmann::json*)>& edit) {
  const std::string path = dir + "/config.json";
  std::ifstream in(path);
  nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded()) return absl::InvalidArgumentError(path + ": not JSON");
  edit(&config);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << config.dump();
  out.close();
  if (!out) return absl::InternalError("cannot write " + path);
  return absl::OkStatus();
}

absl::Status HfImportFailsWith(const std::string& dir, absl::StatusCode code,
                               const std::string& text) {
  const absl::StatusOr<checkpoint::TensorDict> got = ImportHfCheckpoint(dir);
  if (got.status().code() == code && absl::StrContains(got.status().message(), text)) {
    return absl::OkStatus();
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "expected ImportHfCheckpoint(", dir, ") to fail with ", absl::StatusCodeToString(code),
      " and a message containing \"", text, "\"; got: ", got.status().ToString()));
}

}  // namespace convert
}  // namespace edgeq
