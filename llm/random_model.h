// Random-weight Llama-family models of real shapes, with the GGUF metadata llama.cpp's converter
// (convert_hf_to_gguf.py) writes for them, so that both edgeq and llama.cpp load the same file.
//
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::llm::RandomModelSpec spec,
//                          edgeq::llm::RandomModelPreset("smollm2-135m"));
//   spec.layers = 4;  // optional reduced depth
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::TensorDict vocab,
//                          edgeq::checkpoint::ReadGguf("ggml-vocab-gpt-2.gguf"));
//   EDGEQ_ASSIGN_OR_RETURN(edgeq::checkpoint::TensorDict m, edgeq::llm::RandomModel(spec, &vocab));
//   EDGEQ_RETURN_IF_ERROR(edgeq::checkpoint::WriteGguf(m, "smollm2_random.gguf"));
//
// Weights are f32: matrices ~ U(-a, a) with a = 1/sqrt(in_features), norms ~ 1 + U(-0.25,
// 0.25). Each tensor draws from its own xorshift64* stream seeded by (seed, tensor name), so a
// model with fewer layers has the same first layers as the full one.
//
// The layer layouts follow the architecture's row (llm/arch/arch_table.h); its presets and what
// its file adds beyond the row's flags are registered from llm/arch/<name>_presets.cc
// (RegisterRandomArchitecture below).
#ifndef EDGEQ_LLM_RANDOM_MODEL_H_
#define EDGEQ_LLM_RANDOM_MODEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace llm {

struct RandomModelSpec {
  std::string name;  // general.name
  // general.architecture and the prefix of its keys: a row of llm/arch/arch_table.h ("llama",
  // "qwen2", ...), with the tensors and keys llama.cpp's converter writes for it (the row's
  // flags: q/k/v biases, q/k norms, post norms, fused attn_qkv / gate-up, RoPE factors; its
  // registration's keys and layers). Another name makes a llama-layout file that loaders must
  // refuse.
  std::string architecture = "llama";
  // Head dimension when it is not dim / heads (Qwen3, Gemma 3; 0: dim / heads). Written as
  // attention.key_length/value_length.
  int head_dim = 0;
  // gemma3: attention.sliding_window (0: none), attention.sliding_window_pattern and
  // rope.freq_base_swa.
  int sliding_window = 0;
  int sliding_window_pattern = 6;
  float rope_base_swa = 10000.0f;
  int dim = 0;     // embedding_length
  int layers = 0;  // block_count
  int heads = 0;
  int kv_heads = 0;
  int ffn = 0;  // feed_forward_length
  // Used when no vocabulary file is given (else the file's token count is the vocabulary).
  int vocab = 0;
  int context = 0;  // context_length
  float rope_base = 10000.0f;
  float rms_eps = 1e-5f;
  bool tied = true;  // no output.weight: the classifier is token_embd.weight
  // Written as llama.attention.key_length/value_length (the converter does when the Hugging
  // Face config has head_dim).
  bool head_dim_keys = false;
  // Llama 3 RoPE scaling (rope_type "llama3" in the HF config): the converter writes no
  // rope.scaling.* key but a rope_freqs.weight tensor of per-frequency divisors.
  bool llama3_rope = false;
  float rope_factor = 8.0f;
  float rope_low_freq_factor = 1.0f;
  float rope_high_freq_factor = 4.0f;
  // Also phi3's rope.scaling.original_context_length; its rope_factors_short/long tensors are
  // made up (short ones near 1, long ones growing to rope_factor) and rope.scaling.attn_factor
  // is sqrt(1 + ln(context / rope_original_context) / ln(rope_original_context)), as the
  // converter computes it.
  int rope_original_context = 8192;
  // qwen35 (gated delta-net linear attention, every full_attention_interval-th layer full
  // attention): rope.dimension_count (0: the head dimension), rope.dimension_sections, and the
  // ssm.* keys (inner size = value heads x state size).
  int rope_dims = 0;
  std::vector<int> rope_sections = {};
  int ssm_conv_kernel = 4;
  int ssm_state = 0;
  int ssm_key_heads = 0;
  int ssm_value_heads = 0;
  int full_attention_interval = 4;
  uint64_t seed = 1;
  // lfm2: shortconv.l_cache (0: no conv layers) and the attention layers (the others are
  // short-convolution layers: shortconv.conv/in_proj/out_proj, head_count_kv 0 in the per-layer
  // head_count_kv array); the final norm is token_embd_norm.weight.
  int shortconv_l_cache = 0;
  std::vector<int> attention_layers;
  // gemma4: head_dim is the full layers' (attention.key_length), head_dim_swa the sliding
  // ones' (key_length_swa; 0: head_dim); layer l slides unless l % sliding_window_pattern ==
  // pattern - 1 (written as a bool per layer); the last shared_kv_layers layers have no K/V
  // tensors; per_layer_dim: embedding_length_per_layer_input (per_layer_token_embd,
  // per_layer_model_proj and each layer's inp_gate/proj/post_norm; 0: none); double_wide_mlp:
  // the shared layers' FFN is 2 x ffn (feed_forward_length written per layer); the full layers
  // rotate partial_rotary_full of their dimensions (rope_freqs.weight: 1e30 on the others);
  // value_from_key: the full layers have no attn_v (V = K); final_logit_softcapping (0: none).
  int head_dim_swa = 0;
  int shared_kv_layers = 0;
  int per_layer_dim = 0;
  bool double_wide_mlp = false;
  float partial_rotary_full = 1.0f;
  bool value_from_key = false;
  float final_logit_softcapping = 0.0f;
  // qwen3moe, lfm2moe: expert_count experts (0: a dense FFN), expert_used of them per token,
  // each expert_ffn wide (ffn_gate_inp, ffn_gate/up/down_exps; lfm2moe also exp_probs_b.bias);
  // the first leading_dense layers keep the dense FFN; expert_gating: lfm2moe's
  // expert_gating_func (1 softmax, 2 sigmoid).
  int expert_count = 0;
  int expert_used = 0;
  int expert_ffn = 0;
  int leading_dense = 0;
  int expert_gating = 2;
};

// The preset of `name` (case-insensitive; RandomModelPresetNames() lists them in the order of the
// architecture table: real shapes such as "stories15m", "llama-3.2-1b", and tiny ones per
// architecture such as "smollm3-tiny", each registered by its architecture's
// llm/arch/<name>_presets.cc); InvalidArgument naming the name and listing them otherwise.
absl::StatusOr<RandomModelSpec> RandomModelPreset(absl::string_view name);
std::vector<std::string> RandomModelPresetNames();

// The model with general.*/llama.* metadata in the converter's order and, if `vocab` is given
// (a GGUF's TensorDict), every tokenizer.* key of it in its order (the vocabulary size is then
// its tokenizer.ggml.tokens count). InvalidArgument naming each bad value.
absl::StatusOr<checkpoint::TensorDict> RandomModel(const RandomModelSpec& spec,
                                                   const checkpoint::TensorDict* vocab = nullptr);

// A made-up SentencePiece ("llama") vocabulary of `vocab_size` pieces as GGUF tokenizer.* keys,
// for random models without a real one: <unk>, <s>, </s>, the byte pieces <0x00>..<0xFF> (ids
// 3..258), then "\u2581a".."\u2581z", "a".."z" and longer lowercase strings, scores falling with
// the id; BOS 1, EOS 2, add_bos_token true. InvalidArgument below 259 pieces.
absl::StatusOr<checkpoint::TensorDict> SyntheticSpmVocabulary(int vocab_size);

// The llama3 rope frequency factors for head dimension `head_dim`, as the converter computes them.
std::vector<float> Llama3RopeFactors(const RandomModelSpec& spec, int head_dim);

// ---- Named presets (also llm/embed_random_model.h's) ----

template <typename Spec>
struct NamedPreset {
  std::string key;  // lower case
  Spec spec;
};

// The keys of `presets`, in order.
template <typename Spec>
std::vector<std::string> PresetKeys(const std::vector<NamedPreset<Spec>>& presets) {
  std::vector<std::string> keys;
  for (const NamedPreset<Spec>& p : presets) keys.push_back(p.key);
  return keys;
}

// The spec of `name` (case-insensitive) among `presets`, else InvalidArgument "unknown WHAT shape
// 'NAME'; expected one of KEY, KEY, ...".
template <typename Spec>
absl::StatusOr<Spec> FindPreset(const std::vector<NamedPreset<Spec>>& presets,
                                absl::string_view name, absl::string_view what) {
  const std::string key = absl::AsciiStrToLower(name);
  for (const NamedPreset<Spec>& p : presets) {
    if (key == p.key) return p.spec;
  }
  return absl::InvalidArgumentError(absl::StrFormat("unknown %s shape '%s'; expected one of %s",
                                                    what, name,
                                                    absl::StrJoin(PresetKeys(presets), ", ")));
}

// ---- What each architecture adds, registered from its llm/arch/<name>_presets.cc ----
//
//   const bool kRegistered = RegisterRandomArchitecture({.gguf_name = "qwen35",
//                                                        .presets = Qwen35Presets,
//                                                        .layer = AddQwen35Layer});
//
// Everything else (the tensors and keys of the common layer layouts) follows the row's flags
// (llm/arch/arch_table.h). An architecture without a registration writes llama's layout.

// Adds tensor `name` of `shape`: `values`, or seeded random ones (vectors 1 + U(-0.25, 0.25),
// U(-0.5, 0.5) if `centered`; matrices U(-1, 1) / sqrt(columns)).
using RandomTensorFn = std::function<absl::Status(
    const std::string& name, std::vector<int64_t> shape, std::vector<float> values, bool centered)>;
// The same into `d`, seeded by (seed, name).
absl::Status AddRandomTensor(uint64_t seed, const std::string& name, std::vector<int64_t> shape,
                             std::vector<float> values, bool centered, checkpoint::TensorDict& d);
// Every tokenizer.* key of `vocab` (if given), in its order.
void AddTokenizerKeys(const checkpoint::TensorDict* vocab, checkpoint::TensorDict& d);

struct RandomArchitecture {
  const char* gguf_name = "";  // its row's (arch_table.h)
  // Its presets, real shapes then tiny ones.
  std::vector<NamedPreset<RandomModelSpec>> (*presets)() = nullptr;
  // Optional: `<arch>.*` keys (prefix "<arch>.") written after the RoPE scaling keys.
  void (*keys_after_rope)(const RandomModelSpec& s, const std::string& prefix,
                          checkpoint::TensorDict& d) = nullptr;
  // Optional: keys written after the expert keys (only when expert_count > 0).
  void (*keys_after_experts)(const RandomModelSpec& s, const std::string& prefix,
                             checkpoint::TensorDict& d) = nullptr;
  // Optional: layer `layer`'s tensors instead of the common layouts.
  absl::Status (*layer)(const RandomModelSpec& s, int layer, int head_dim,
                        const RandomTensorFn& add) = nullptr;
  // Optional: the whole file instead (after the common shape checks).
  absl::StatusOr<checkpoint::TensorDict> (*model)(const RandomModelSpec& s, int64_t n_vocab,
                                                  const checkpoint::TensorDict* vocab) = nullptr;
};

// Adds `a` (at static initialization); returns true (for a namespace-scope bool).
bool RegisterRandomArchitecture(const RandomArchitecture& a);
// The registrations, in the architecture table's order.
std::vector<RandomArchitecture> RandomArchitectures();

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_RANDOM_MODEL_H_
