// The architectures edgeq runs, one row each (as quantization/block_layout.h is for block
// formats): the GGUF name (general.architecture and the prefix of its keys), the
// Hugging Face class, the Hugging Face -> GGUF tensor names of a layer, the structure of its
// layers (RoPE pairing, activation, norm placement, fused projections, q/k norms, biases) and the
// two functions of its own file llm/arch/<name>.cc, as llama.cpp's src/models/<arch>.cpp: the
// `<arch>.*` keys beyond the common ones (ModelConfig::FromMetadata) and one layer of the graph.
//
// Everything that differs by architecture reads this table: ModelConfig::FromMetadata, the graph
// builder (llm/arch/common.h), llm/random_model.cc, convert/hf_import.cc and convert/hf_testing.cc.
// Adding an architecture = its row in arch_table.cc, its file and its tests (llm/arch/BUILD globs
// the files; docs/DESIGN.md, "What adding something touches").
#ifndef EDGEQ_LLM_ARCH_ARCH_TABLE_H_
#define EDGEQ_LLM_ARCH_ARCH_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "graph/graph.h"

namespace edgeq {
namespace llm {

struct ModelConfig;
class LayerGraph;

namespace arch {

// A row of the table: its index in Architectures(), set by the table (a row has no enum value
// of its own to keep in step with it). Arch{} is the first row, llama.
enum class Arch : uint8_t {};

// RoPE pairing: adjacent pairs (llama.cpp's LLAMA_ROPE_TYPE_NORM) or halves (NEOX).
enum class RopeType : uint8_t { kNorm, kNeox };
// Of the FFN gate: SwiGLU, or GeGLU with tanh GELU through ggml's fp16 table (llm::GeluTanh).
enum class Activation : uint8_t { kSilu, kGeluTanh };
// RMSNorm before each sub-block only, or also after it (gemma3: post_attention_norm,
// post_ffw_norm).
enum class NormPlacement : uint8_t { kPre, kPreAndPost };
// Q, K, V projections: attn_q/attn_k/attn_v, or one fused attn_qkv (phi3). A file may hold
// either: the graph reads what is there (llama.cpp's create_tensor_qkv). kGatedQ: separate, with
// attn_q holding per head the query then an output gate; the attention's output is multiplied
// by sigmoid(gate) before attn_output (qwen35's full-attention layers).
enum class QkvLayout : uint8_t { kSeparate, kFused, kGatedQ };
// FFN: ffn_gate and ffn_up, or one ffn_up of 2 x ffn rows, the gate rows first (phi3; a phi3
// file with ffn_gate runs as kGateUp).
enum class FfnLayout : uint8_t { kGateUp, kFusedGateUp };

// A layer tensor's Hugging Face name (after "model.layers.N.") and GGUF name (after "blk.N."),
// in the converter's (sorted Hugging Face) order.
struct TensorName {
  const char* hf;
  const char* gguf;
};

// How llama.cpp's converter (convert_hf_to_gguf.py) reads this class's config.json.
struct HfConfig {
  const char* class_name;     // config.json "architectures"[0]
  double default_rms_eps;     // without rms_norm_eps (0: required)
  bool default_tied;          // tie_word_embeddings when absent
  double default_rope_theta;  // rope.freq_base written even without rope_theta (0: not)
  bool always_head_dim_keys;  // attention.key_length/value_length even without head_dim
  bool permute_qk;            // q/k rows reordered to GGUF's RoPE pairs (LlamaModel.permute)
  float norm_offset;          // added to every norm weight (gemma: HF stores w - 1)
  bool llama3_rope_scaling;   // rope_scaling.rope_type "llama3" -> rope_freqs.weight
  bool long_short_rope;       // rope_scaling long/short_factor -> rope_factors_*; attn_factor
  bool sliding_window;        // sliding_window(_pattern), rope_local_base_freq, soft-capping
  // Why the class is not imported from Hugging Face (one line, for the refusal); nullptr: it is.
  const char* no_import = nullptr;
  // The RMSNorm epsilon's key, and the one read when it is absent (nullptr: none).
  const char* eps_key = "rms_norm_eps";
  const char* eps_fallback_key = nullptr;
  // The FFN width from block_ff_dim (else intermediate_size) with LFM2's auto-adjust rule
  // (block_auto_adjust_ff_dim, block_ffn_dim_multiplier, block_multiple_of); else
  // intermediate_size.
  bool block_ff_dim = false;
  // MoE: the key counting the leading dense layers (lfm2moe: num_dense_layers); nullptr: experts on
  // every layer (a config's mlp_only_layers / decoder_sparse_step must agree).
  const char* dense_layers_key = nullptr;
  // The one norm (GGUF name after "blk.N.") the norm offset leaves as stored (qwen35:
  // ssm_norm.weight, the converter's linear_attn.norm.weight); nullptr: none.
  const char* norm_offset_skip = nullptr;
};

// The architecture's own `<arch>.*` keys and tensor-dependent choices, after the common ones
// are in the config (nullptr: none).
using ConfigFn = absl::Status (*)(const checkpoint::TensorDict& d, ModelConfig* c);
// One decoder layer: the hidden states [t, dim] in, out (llm/arch/common.h).
using LayerFn = absl::StatusOr<Value> (*)(LayerGraph& b, int layer, Value x);

struct ArchInfo {
  const char* gguf_name;
  HfConfig hf;
  RopeType rope;
  Activation activation;
  NormPlacement norms;
  QkvLayout qkv;
  FfnLayout ffn;
  bool qkv_bias;                  // attn_q/k/v.bias (qwen2)
  bool qk_norm;                   // attn_q_norm/attn_k_norm: RMSNorm of each q and k head
  bool embedding_scale_sqrt_dim;  // embeddings multiplied by sqrt(embedding_length) (gemma3)
  int no_rope_layer_step;         // layer l has no RoPE if (l + 1) % step == 0 (smollm3: 4; 0: all)
  const TensorName* hf_tensors;   // the layer tensors
  size_t hf_tensor_count;
  ConfigFn read_config;
  LayerFn build_layer;
  Arch arch = {};  // the row's index (Architectures()[arch]); filled in by the table
};

// All rows, in table order (a row's `arch` is its index).
absl::Span<const ArchInfo> Architectures();
const ArchInfo& Info(Arch a);
// By GGUF name ("llama") or Hugging Face class ("LlamaForCausalLM"); nullptr if none (or if
// a selective build left it out).
const ArchInfo* FindByGgufName(absl::string_view name);
const ArchInfo* FindByHfClass(absl::string_view class_name);
// The GGUF names, in table order (of this build: --define=edgeq_archs): "llama", "qwen2", ...
std::vector<std::string> GgufNames();
// UNIMPLEMENTED "architecture 'gemma4' is not in this build (built with: llama, qwen3)" for a
// row a selective build left out (sdk/selection.h; its Find* give nullptr); OK otherwise.
absl::Status CheckInBuild(absl::string_view name);

}  // namespace arch
}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_ARCH_ARCH_TABLE_H_
