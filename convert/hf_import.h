// Imports a Hugging Face checkpoint directory as a GGUF-layout TensorDict, as llama.cpp's
// convert_hf_to_gguf.py does, so that `edgeq convert DIR out.gguf|out.max` gives a file edgeq
// and llama.cpp both run:
//
//   DIR/config.json                    architectures[0] and the hyperparameters
//   DIR/model.safetensors              or shards listed by DIR/model.safetensors.index.json
//   DIR/tokenizer.json                 optional: the vocabulary (tokenizer.ggml.* keys)
//   DIR/tokenizer_config.json          optional: BOS/EOS, add_bos_token, chat_template
//
// Architectures (config.json "architectures"): LlamaForCausalLM -> llama, Qwen2ForCausalLM ->
// qwen2, Qwen3ForCausalLM -> qwen3, Gemma3ForCausalLM -> gemma3, Phi3ForCausalLM -> phi3,
// SmolLM3ForCausalLM -> smollm3, Lfm2ForCausalLM -> lfm2, Qwen3MoeForCausalLM -> qwen3moe,
// Lfm2MoeForCausalLM -> lfm2moe (convert/hf_layers.h: layer_types -> a per-layer
// head_count_kv, conv_L_cache -> shortconv.l_cache, conv kernels squeezed to 2-D, experts
// 0..n-1 of a layer merged into 3-D ffn_{gate,up,down}_exps, the expert_* keys). Gemma 4 and
// Qwen3.5 are refused with the reason.
// Tensor renames are the converter's (model.embed_tokens -> token_embd,
// model.layers.N.self_attn.q_proj -> blk.N.attn_q, ...). For llama, q_proj/k_proj rows are
// permuted from Hugging Face's RoPE layout (halves) to GGUF's (adjacent pairs) per head:
// GGUF row h*hd + 2*i + j = HF row h*hd + j*hd/2 + i (i < hd/2, j < 2), with the KV head count
// for k_proj; qwen2/qwen3/gemma3/phi3 use NEOX RoPE and are not permuted. gemma3 stores
// RMSNorm weights as w - 1: every "*norm.weight" gets +1 (in f32). 1-D tensors become f32;
// matrices keep their dtype (f32, f16, bf16). Llama 3 rope scaling (rope_scaling.rope_type
// "llama3") adds rope_freqs.weight; phi3's long/short factors become rope_factors_long/short.
//
// Errors (InvalidArgument / NotFound / Unimplemented) name the file, key or tensor and the
// expected value; crafted inputs are bounds-checked.
#ifndef EDGEQ_CONVERT_HF_IMPORT_H_
#define EDGEQ_CONVERT_HF_IMPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace convert {

// True if `path` is a directory holding a config.json.
bool IsHfCheckpointDir(const std::string& path);

// The Hugging Face architecture names ImportHfCheckpoint accepts.
std::vector<std::string> SupportedHfArchitectures();

absl::StatusOr<checkpoint::TensorDict> ImportHfCheckpoint(const std::string& dir);

}  // namespace convert
}  // namespace edgeq

#endif  // EDGEQ_CONVERT_HF_IMPORT_H_
