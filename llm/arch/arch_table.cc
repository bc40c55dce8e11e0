#include "llm/arch/arch_table.h"

#include <array>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "sdk/selection.h"

namespace edgeq {
namespace llm {
namespace arch {

// Each architecture's file (llm/arch/<name>.cc): its `<arch>.*` keys and its layer.
absl::Status Gemma3Config(const checkpoint::TensorDict& d, ModelConfig* c);
absl::Status Phi3Config(const checkpoint::TensorDict& d, ModelConfig* c);
absl::Status Qwen35Config(const checkpoint::TensorDict& d, ModelConfig* c);
absl::StatusOr<Value> LlamaLayer(LayerGraph& b, int layer, Value x);
absl::StatusOr<Value> Gemma3Layer(LayerGraph& b, int layer, Value x);
absl::Status Lfm2Config(const checkpoint::TensorDict& d, ModelConfig* c);
absl::StatusOr<Value> Lfm2Layer(LayerGraph& b, int layer, Value x);
absl::StatusOr<Value> Qwen35Layer(LayerGraph& b, int layer, Value x);
absl::Status Gemma4Config(const checkpoint::TensorDict& d, ModelConfig* c);
absl::StatusOr<Value> Gemma4Layer(LayerGraph& b, int layer, Value x);
absl::Status Qwen3MoeConfig(const checkpoint::TensorDict& d, ModelConfig* c);
absl::Status Lfm2MoeConfig(const checkpoint::TensorDict& d, ModelConfig* c);

namespace {

// ---- Hugging Face -> GGUF names of a layer's tensors, per architecture (llama.cpp's
// gguf-py/gguf/tensor_mapping.py for these classes). The importer requires each on every layer,
// or for lfm2, lfm2moe and qwen3moe on the layers of its kind (convert/hf_layers.h). ----
// clang-format off
constexpr TensorName kLlamaTensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"post_attention_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
};
constexpr TensorName kQwen2Tensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"post_attention_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"self_attn.q_proj.bias", "attn_q.bias"},
    {"self_attn.k_proj.bias", "attn_k.bias"},
    {"self_attn.v_proj.bias", "attn_v.bias"},
};
constexpr TensorName kQwen3Tensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"post_attention_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
};
constexpr TensorName kGemma3Tensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"pre_feedforward_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
    {"post_attention_layernorm.weight", "post_attention_norm.weight"},
    {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
};
constexpr TensorName kPhi3Tensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.gate_up_proj.weight", "ffn_up.weight"},
    {"post_attention_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.qkv_proj.weight", "attn_qkv.weight"},
};
// lfm2: every layer's FFN and norms, an attention layer's tensors and a conv layer's (the
// importer requires each on the layers config.json's layer_types gives it; conv.conv.weight is
// [dim, 1, L] in Hugging Face, squeezed to [dim, L]).
constexpr TensorName kLfm2Tensors[] = {
    {"conv.conv.weight", "shortconv.conv.weight"},
    {"conv.in_proj.weight", "shortconv.in_proj.weight"},
    {"conv.out_proj.weight", "shortconv.out_proj.weight"},
    {"feed_forward.w2.weight", "ffn_down.weight"},
    {"feed_forward.w3.weight", "ffn_up.weight"},
    {"ffn_norm.weight", "ffn_norm.weight"},
    {"feed_forward.w1.weight", "ffn_gate.weight"},
    {"operator_norm.weight", "attn_norm.weight"},
    {"self_attn.k_layernorm.weight", "attn_k_norm.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.out_proj.weight", "attn_output.weight"},
    {"self_attn.q_layernorm.weight", "attn_q_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
};
// qwen3moe, lfm2moe: "*" is the expert index; the importer merges experts 0..n-1 of a layer
// into one 3-D tensor [experts, rows, columns].
constexpr TensorName kQwen3moeTensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"mlp.gate.weight", "ffn_gate_inp.weight"},
    {"mlp.experts.*.down_proj.weight", "ffn_down_exps.weight"},
    {"mlp.experts.*.gate_proj.weight", "ffn_gate_exps.weight"},
    {"mlp.experts.*.up_proj.weight", "ffn_up_exps.weight"},
    {"post_attention_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
};
constexpr TensorName kLfm2moeTensors[] = {
    {"conv.conv.weight", "shortconv.conv.weight"},
    {"conv.in_proj.weight", "shortconv.in_proj.weight"},
    {"conv.out_proj.weight", "shortconv.out_proj.weight"},
    {"feed_forward.experts.*.w1.weight", "ffn_gate_exps.weight"},
    {"feed_forward.experts.*.w2.weight", "ffn_down_exps.weight"},
    {"feed_forward.experts.*.w3.weight", "ffn_up_exps.weight"},
    {"feed_forward.w2.weight", "ffn_down.weight"},
    {"feed_forward.w3.weight", "ffn_up.weight"},
    {"feed_forward.w1.weight", "ffn_gate.weight"},
    {"feed_forward.expert_bias", "exp_probs_b.bias"},
    {"feed_forward.gate.weight", "ffn_gate_inp.weight"},
    {"ffn_norm.weight", "ffn_norm.weight"},
    {"operator_norm.weight", "attn_norm.weight"},
    {"self_attn.k_layernorm.weight", "attn_k_norm.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.out_proj.weight", "attn_output.weight"},
    {"self_attn.q_layernorm.weight", "attn_q_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
};
// qwen35: a full-attention layer's tensors, then a linear-attention layer's (llama.cpp's
// tensor_mapping.py for Qwen3.5); no layer has all of them (the importer requires each on
// the layers of its kind, convert/hf_layers.h).
constexpr TensorName kQwen35Tensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"post_attention_layernorm.weight", "post_attention_norm.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
    {"linear_attn.in_proj_qkv.weight", "attn_qkv.weight"},
    {"linear_attn.in_proj_z.weight", "attn_gate.weight"},
    {"linear_attn.in_proj_b.weight", "ssm_beta.weight"},
    {"linear_attn.in_proj_a.weight", "ssm_alpha.weight"},
    {"linear_attn.conv1d.weight", "ssm_conv1d.weight"},
    {"linear_attn.dt_bias", "ssm_dt.bias"},
    {"linear_attn.A_log", "ssm_a"},
    {"linear_attn.norm.weight", "ssm_norm.weight"},
    {"linear_attn.out_proj.weight", "ssm_out.weight"},
};
// gemma4: gemma3's names and the per-layer embedding's (layer_scalar is a bare parameter, which
// the converter names layer_scalar.weight). A shared-KV layer may lack k/v/k_norm and a full
// layer with attention_k_eq_v its v (convert/hf_gemma4.cc).
constexpr TensorName kGemma4Tensors[] = {
    {"input_layernorm.weight", "attn_norm.weight"},
    {"self_attn.o_proj.weight", "attn_output.weight"},
    {"mlp.down_proj.weight", "ffn_down.weight"},
    {"mlp.up_proj.weight", "ffn_up.weight"},
    {"pre_feedforward_layernorm.weight", "ffn_norm.weight"},
    {"self_attn.q_proj.weight", "attn_q.weight"},
    {"self_attn.k_proj.weight", "attn_k.weight"},
    {"self_attn.v_proj.weight", "attn_v.weight"},
    {"mlp.gate_proj.weight", "ffn_gate.weight"},
    {"self_attn.q_norm.weight", "attn_q_norm.weight"},
    {"self_attn.k_norm.weight", "attn_k_norm.weight"},
    {"post_attention_layernorm.weight", "post_attention_norm.weight"},
    {"post_feedforward_layernorm.weight", "post_ffw_norm.weight"},
    {"per_layer_input_gate.weight", "inp_gate.weight"},
    {"per_layer_projection.weight", "proj.weight"},
    {"post_per_layer_input_norm.weight", "post_norm.weight"},
    {"layer_scalar", "layer_output_scale.weight"},
};
// clang-format on

#define EDGEQ_TENSORS(t) t, std::size(t)

// ---- How the converter reads config.json. ----
// clang-format off
//                                    class                  rms eps tied   theta  hd keys
//                                    permute norm+  llama3 long/short sliding
constexpr HfConfig kLlamaHf  = {"LlamaForCausalLM",  0,    false, 0,     false,
                                true,  0.0f, true,  false, false};
constexpr HfConfig kQwen2Hf  = {"Qwen2ForCausalLM",  0,    false, 0,     false,
                                false, 0.0f, false, false, false};
constexpr HfConfig kQwen3Hf  = {"Qwen3ForCausalLM",  0,    false, 0,     false,
                                false, 0.0f, false, false, false};
constexpr HfConfig kGemma3Hf = {"Gemma3ForCausalLM", 1e-6, true,  1e6,   true,
                                false, 1.0f, false, false, true};
constexpr HfConfig kPhi3Hf   = {"Phi3ForCausalLM",   0,    false, 0,     false,
                                false, 0.0f, false, true,  false};
// SmolLM3Model is LlamaModel with another name (q/k permuted; llama.cpp reads no rope_freqs for
// smollm3, so no llama3 scaling).
constexpr HfConfig kSmollm3Hf = {"SmolLM3ForCausalLM", 0,  false, 0,     false,
                                 true,  0.0f, false, false, false};
// LFM2Model: norm_eps, layer_types, conv_L_cache, block_ff_dim (convert/hf_layers.cc).
constexpr HfConfig kLfm2Hf = {"Lfm2ForCausalLM",     0,    true,  0,     false,
                              false, 0.0f, false, false, false, nullptr, "norm_eps", nullptr,
                              true};
// Qwen3_5TextModel (Qwen3NextModel): every norm but linear_attn.norm gets +1, the
// linear_* keys, full_attention_interval, partial RoPE and M-RoPE sections, the value-head
// reorder and A_log -> ssm_a (convert/hf_qwen35.cc).
constexpr HfConfig kQwen35Hf = {"Qwen3_5ForCausalLM", 0,  false, 0,     true,
                                false, 1.0f, false, false, false, nullptr, "rms_norm_eps",
                                nullptr, false, nullptr, "ssm_norm.weight"};
// Gemma4Model: norms stored as they are (norm_shift 0); its sliding-window keys are per layer
// (layer_types, global_head_dim, num_kv_shared_layers, ...: convert/hf_gemma4.cc), not gemma3's.
constexpr HfConfig kGemma4Hf = {"Gemma4ForCausalLM", 1e-6, true,  1e6,   true,
                                false, 0.0f, false, false, false};
// Qwen3MoeModel, LFM2MoeModel: the per-expert matrices merged into 3-D ffn_*_exps tensors,
// the expert_* keys (convert/hf_layers.cc); LFM2-MoE's first num_dense_layers keep a dense FFN.
constexpr HfConfig kQwen3moeHf = {"Qwen3MoeForCausalLM", 0, false, 0,     false,
                                  false, 0.0f, false, false, false};
constexpr HfConfig kLfm2moeHf = {"Lfm2MoeForCausalLM",  0,  true,  0,     false,
                                 false, 0.0f, false, false, false, nullptr, "rms_norm_eps",
                                 "norm_eps", false, "num_dense_layers"};
// clang-format on

using R = RopeType;
using Act = Activation;
using N = NormPlacement;
using Q = QkvLayout;
using F = FfnLayout;

// name, HF, rope, activation, norms, qkv, ffn, qkv bias, q/k norm, sqrt(dim) embedding
// scale, no-RoPE layer step, layer tensors, config, layer.
constexpr ArchInfo kArchitectures[] = {
    {"llama", kLlamaHf, R::kNorm, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, false, false,
     false, 0, EDGEQ_TENSORS(kLlamaTensors), nullptr, LlamaLayer},
    {"qwen2", kQwen2Hf, R::kNeox, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, true, false, false,
     0, EDGEQ_TENSORS(kQwen2Tensors), nullptr, LlamaLayer},
    {"qwen3", kQwen3Hf, R::kNeox, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, false, true, false,
     0, EDGEQ_TENSORS(kQwen3Tensors), nullptr, LlamaLayer},
    {"gemma3", kGemma3Hf, R::kNeox, Act::kGeluTanh, N::kPreAndPost, Q::kSeparate, F::kGateUp, false,
     true, true, 0, EDGEQ_TENSORS(kGemma3Tensors), Gemma3Config, Gemma3Layer},
    {"phi3", kPhi3Hf, R::kNeox, Act::kSilu, N::kPre, Q::kFused, F::kFusedGateUp, false, false,
     false, 0, EDGEQ_TENSORS(kPhi3Tensors), Phi3Config, LlamaLayer},
    {"smollm3", kSmollm3Hf, R::kNorm, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, false, false,
     false, 4, EDGEQ_TENSORS(kLlamaTensors), nullptr, LlamaLayer},
    {"lfm2", kLfm2Hf, R::kNeox, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, false, true, false,
     0, EDGEQ_TENSORS(kLfm2Tensors), Lfm2Config, Lfm2Layer},
    {"qwen35", kQwen35Hf, R::kNeox, Act::kSilu, N::kPre, Q::kGatedQ, F::kGateUp, false, true, false,
     0, EDGEQ_TENSORS(kQwen35Tensors), Qwen35Config, Qwen35Layer},
    {"gemma4", kGemma4Hf, R::kNeox, Act::kGeluTanh, N::kPreAndPost, Q::kSeparate, F::kGateUp, false,
     true, true, 0, EDGEQ_TENSORS(kGemma4Tensors), Gemma4Config, Gemma4Layer},
    {"qwen3moe", kQwen3moeHf, R::kNeox, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, false, true,
     false, 0, EDGEQ_TENSORS(kQwen3moeTensors), Qwen3MoeConfig, LlamaLayer},
    {"lfm2moe", kLfm2moeHf, R::kNeox, Act::kSilu, N::kPre, Q::kSeparate, F::kGateUp, false, true,
     false, 0, EDGEQ_TENSORS(kLfm2moeTensors), Lfm2MoeConfig, Lfm2Layer},
};
#undef EDGEQ_TENSORS

constexpr size_t kRowCount = std::size(kArchitectures);

constexpr bool Equal(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}
constexpr bool NamesDistinct() {
  for (size_t i = 0; i < std::size(kArchitectures); ++i) {
    for (size_t j = i + 1; j < std::size(kArchitectures); ++j) {
      if (Equal(kArchitectures[i].gguf_name, kArchitectures[j].gguf_name) ||
          Equal(kArchitectures[i].hf.class_name, kArchitectures[j].hf.class_name)) {
        return false;
      }
    }
  }
  return true;
}
static_assert(NamesDistinct(), "GGUF names and Hugging Face classes are distinct");
static_assert(Equal(kArchitectures[0].gguf_name, "llama"),
              "Arch{} (ModelConfig::arch's default, random_model.cc's fallback) is llama");

// Whether a row's layer builder is set is checked by arch_table_test: comparing a function's
// address with nullptr is not a constant expression under GCC's -fsanitize=undefined.
constexpr bool EveryRowHasTensors() {
  for (const ArchInfo& a : kArchitectures) {
    if (a.hf_tensor_count == 0) return false;
  }
  return true;
}
static_assert(EveryRowHasTensors(), "every row has its tensors");

// The selective build (--define=edgeq_archs=llama,qwen3; sdk/selection.h): every name it lists
// is a row, and the rows it leaves out keep their names (for the load error) but lose their
// functions, so that nothing references their files and the linker drops them. kArchitectures
// itself is read only here, at compile time.
constexpr bool EverySelectedNameIsARow() {
  std::string_view list = selection::kArchs;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    bool found = false;
    for (const ArchInfo& a : kArchitectures) found = found || list.substr(0, comma) == a.gguf_name;
    if (!found) return false;
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
  }
  return true;
}
static_assert(EverySelectedNameIsARow(), "--define=edgeq_archs names a row of kArchitectures");

constexpr bool InBuild(const ArchInfo& a) {
  return selection::Selected(selection::kArchs, a.gguf_name);
}

constexpr std::array<ArchInfo, kRowCount> BuiltRows() {
  std::array<ArchInfo, kRowCount> rows{};
  for (size_t i = 0; i < std::size(kArchitectures); ++i) {
    rows[i] = kArchitectures[i];
    rows[i].arch = static_cast<Arch>(i);
    if (!InBuild(rows[i])) {
      rows[i].read_config = nullptr;
      rows[i].build_layer = nullptr;
    }
  }
  return rows;
}
constexpr std::array<ArchInfo, kRowCount> kBuiltRows = BuiltRows();

}  // namespace

absl::Span<const ArchInfo> Architectures() { return kBuiltRows; }

const ArchInfo& Info(Arch a) { return kBuiltRows[static_cast<size_t>(a)]; }

const ArchInfo* FindByGgufName(absl::string_view name) {
  for (const ArchInfo& a : kBuiltRows) {
    if (name == a.gguf_name && InBuild(a)) return &a;
  }
  return nullptr;
}

const ArchInfo* FindByHfClass(absl::string_view class_name) {
  for (const ArchInfo& a : kBuiltRows) {
    if (class_name == a.hf.class_name && InBuild(a)) return &a;
  }
  return nullptr;
}

std::vector<std::string> GgufNames() {
  std::vector<std::string> v;
  for (const ArchInfo& a : kBuiltRows) {
    if (InBuild(a)) v.push_back(a.gguf_name);
  }
  return v;
}

absl::Status CheckInBuild(absl::string_view name) {
  for (const ArchInfo& a : kBuiltRows) {
    if (name == a.gguf_name && !InBuild(a)) {
      return absl::UnimplementedError(absl::StrCat(
          "architecture '", name,
          "' is not in this build (built with: ", selection::BuiltWith(selection::kArchs), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace arch
}  // namespace llm
}  // namespace edgeq
