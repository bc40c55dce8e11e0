// Saved sessions: a Session's sequence (its tokens, the logits not yet sampled from), the model's
// per-sequence tensors (Model::SequenceTensors: the KV cache rows of the positions used, and any
// other state the model lists) and the sampler's state (random generator, penalties window), as
// bytes or a file that a later process loads into the same model to continue exactly where the
// saved one stopped.
//
//   EDGEQ_ASSIGN_OR_RETURN(std::string bytes, llm::SaveSessionState(*model, session, &sampler));
//   ... in another process, same model file:
//   EDGEQ_RETURN_IF_ERROR(llm::LoadSessionState(bytes, *model, session, &sampler));
//
// Format (little-endian), version 1:
//   "EDGEQST1" | u32 version | u32 0 | u64 payload bytes | u64 XXH64(payload, seed 0) | payload
//   payload: str model description | u64 weights fingerprint | u32 n tokens | i32 tokens[n]
//            | u32 n logits | f32 logits[n] | str sampler state
//            | u32 n tensors | per tensor: str name | u32 dtype | u32 rank | i64 dims[rank]
//              | i32 position axis (-1: none) | u64 bytes | bytes
//   (str: u32 length + bytes.) A tensor with a position axis holds only the positions before
//   n tokens (its dims give that count on that axis).
// The model description names the architecture and widths ("llama dim 64 layers 2 heads 4/2
// head_dim 16 vocab 320 kv f32"); the weights fingerprint is XXH64 over every weight's name, type,
// shape, size and its first and last 4 KiB. Load refuses a state of another model (naming both
// descriptions, or "weights differ"), another version, a bad checksum, a truncated payload, and
// tensors that are not the model's (name, type or widths): InvalidArgument (DataLoss for a
// checksum or truncation), and nothing is changed on error. A state saved with a longer context
// loads into a shorter one if its tokens fit.
#ifndef EDGEQ_LLM_STATE_FILE_H_
#define EDGEQ_LLM_STATE_FILE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "llm/session.h"

namespace edgeq {
namespace llm {

inline constexpr uint32_t kStateFileVersion = 1;

// The session's state (see the file comment). `sampler` may be null (no sampler state saved).
absl::StatusOr<std::string> SaveSessionState(Model& model, const Session& session,
                                             const TokenSampler* sampler);
// Restores a state into `model` and `session` (and `sampler` when not null; a null sampler is
// left as it is). `what` names the bytes in errors (a file name).
absl::Status LoadSessionState(absl::string_view bytes, Model& model, Session& session,
                              TokenSampler* sampler, absl::string_view what = "session state");

// The same to a file: written to PATH.tmp.PID and renamed over PATH (a reader never sees half a
// file). Unavailable naming the path on an I/O error.
absl::Status SaveSessionStateFile(const std::string& path, Model& model, const Session& session,
                                  const TokenSampler* sampler);
absl::Status LoadSessionStateFile(const std::string& path, Model& model, Session& session,
                                  TokenSampler* sampler);

// The tokens of a state after checking that it is whole and this model's (for a prompt cache:
// is it a prefix of the new prompt?); nothing is loaded.
absl::StatusOr<std::vector<int>> SessionStateTokens(absl::string_view bytes, Model& model,
                                                    absl::string_view what = "session state");

// A prompt cache (`edgeq run --prompt-cache FILE`, as llama.cpp's): when `path` exists and holds
// a state of this model whose tokens are a prefix of `prompt`, loads it into `session` (not the
// sampler: the caller gives it the reused tokens) and returns that prefix's length; 0 when the
// file does not exist or does not prefix the prompt (nothing is loaded). A file that is not a
// whole state of this model is an error, as in LoadSessionState.
absl::StatusOr<int> LoadPromptCache(const std::string& path, Model& model, Session& session,
                                    absl::Span<const int> prompt);

// "llama dim 64 layers 2 heads 4/2 head_dim 16 vocab 320 kv f32"; and the weights' fingerprint.
std::string ModelDescription(const Model& model);
uint64_t WeightsFingerprint(const Model& model);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_STATE_FILE_H_
