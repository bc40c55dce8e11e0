// Test helper: a GGUF-layout model written back as a Hugging Face checkpoint directory.
#include "convert/hf_testing.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/safetensors.h"
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
    if (row->hf.norm_offset != 0.0f && absl::EndsWith(g, "norm.weight")) {
      hf = *t.Clone();
      absl::StatusOr<absl::Span<float>> v = hf.MutableValues<float>();
      EDGEQ_RETURN_IF_ERROR(v.status());
      for (float& x : *v) x -= row->hf.norm_offset;  // exact for x in [0.5, 2] and offset 1
    }
    const std::string name = HfName(*row, g);
    if (name.empty()) return absl::InvalidArgumentError(absl::StrCat("no HF name for ", g));
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

}  // namespace convert
}  // namespace edgeq
