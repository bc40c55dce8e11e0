// Test helper for convert/hf_import.h: writes a GGUF-layout model (llm::RandomModel's) back as a
// Hugging Face checkpoint directory, inverting what llama.cpp's converter does: HF tensor names,
// llama's q/k rows back in HF's RoPE order (HF row h*hd + j*hd/2 + i = GGUF row h*hd + 2i + j),
// gemma3's norms minus 1, phi3's rope factors into config.json, lfm2's layer_types, conv_L_cache,
// norm_eps and block_ff_dim (auto-adjusted back to ffn), conv kernels as [dim, 1, L], the
// experts split into one matrix each (an expert's gate/up/down in different shards), the
// expert keys, qwen35's gated delta-net tensors (value heads grouped by key head again, ssm_a as
// an A_log whose -exp gives its bits, ssm_conv1d as [channels, 1, kernel], norms but ssm_norm
// minus 1) and linear_* / rope_parameters keys, gemma4's per-layer keys (layer_types,
// global_head_dim, num_kv_shared_layers, rope_parameters per layer kind, ...; rope_freqs left
// to the import), and `shards` safetensors files
// (with model.safetensors.index.json when more than one). config.json comes from `spec`.
#ifndef EDGEQ_CONVERT_HF_TESTING_H_
#define EDGEQ_CONVERT_HF_TESTING_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "checkpoint/tensor_dict.h"
#include "llm/random_model.h"
#include "nlohmann/json.hpp"

namespace edgeq {
namespace convert {

absl::Status WriteHfCheckpointDir(const llm::RandomModelSpec& spec,
                                  const checkpoint::TensorDict& model, const std::string& dir,
                                  int shards);

// Tensor `name` (a Hugging Face name) removed from its shard of the checkpoint directory `dir` and
// from dir/model.safetensors.index.json (the tests of a missing tensor).
absl::Status RemoveHfTensor(const std::string& dir, const std::string& name);

// `spec`'s random model (llm::RandomModel) written by WriteHfCheckpointDir in `shards` files to
// the directory `name` under $TEST_TMPDIR (/tmp without it), made if missing; returns its path.
absl::StatusOr<std::string> WriteRandomHfCheckpoint(const llm::RandomModelSpec& spec,
                                                    const std::string& name, int shards);

// dir/config.json parsed, changed by `edit` and written back.
absl::Status EditHfConfig(const std::string& dir, const std::function<void(nlohmann::json*)>& edit);

// OK when ImportHfCheckpoint(dir) fails with `code` and a message containing `text`; otherwise an
// error saying what the import gave instead (tests: EXPECT_EQ(..., absl::OkStatus())).
absl::Status HfImportFailsWith(const std::string& dir, absl::StatusCode code,
                               const std::string& text);

}  // namespace convert
}  // namespace edgeq

#endif  // EDGEQ_CONVERT_HF_TESTING_H_
