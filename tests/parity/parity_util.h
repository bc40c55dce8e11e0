// Helpers of the llama.cpp parity tests (tests/parity/README.md): the reference records that
// llama.cpp produced (token ids, logits rows at recorded positions, greedy continuations), the
// random-weight models regenerated exactly as the reference's files were made, and edgeq's
// side of the comparison on llm::Model.
#ifndef EDGEQ_TESTS_PARITY_PARITY_UTIL_H_
#define EDGEQ_TESTS_PARITY_PARITY_UTIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "llm/model.h"

namespace edgeq {
namespace parity {

// One llama.cpp reference run (tests/parity/testdata/<model>/<stem>.{txt,batch.f32,greedy.txt}).
struct Reference {
  int n_vocab = 0;
  std::vector<int> tokens;     // the prompt's ids as llama.cpp fed them (BOS included if added)
  std::vector<int> positions;  // 0-based positions whose logits were recorded
  // rows[k] = llama.cpp's logits [n_vocab] after the token at positions[k] (one llama_decode over
  // the whole prompt, f32 KV cache).
  std::vector<std::vector<float>> rows;
  std::vector<int> greedy;  // argmax continuation after the prompt (no stop on end of generation)
};

// The options every parity test loads its model with: one thread, `context_length` positions and
// an f32 KV cache (llama.cpp's logits and perplexities in testdata were made with an f32 cache,
// `-ctk f32 -ctv f32`; edgeq's default is f16, as llama.cpp's).
inline llm::ModelOptions ParityOptions(int context_length) {
  llm::ModelOptions options;
  options.num_threads = 1;
  options.context_length = context_length;
  options.kv_cache_type = llm::KvCacheType::kF32;
  return options;
}

// Reads `stem` (workspace-relative, e.g. "tests/parity/testdata/rand_stories15m/logits_f32"):
// the .txt sidecar's "n_vocab:", "tokens (N):" and "positions ...:" lines, the .batch.f32 rows
// and the .greedy.txt ids. InvalidArgument naming the file and the line or size that is wrong.
absl::StatusOr<Reference> ReadReference(const std::string& stem);

// max |a - ref| / max |ref| over both spans (of equal size; InvalidArgument otherwise).
absl::StatusOr<double> MaxRelativeDifference(absl::Span<const float> a,
                                             absl::Span<const float> ref);

// edgeq's side of a Reference: the logits at ref.positions (PrefillAll over ref.tokens from
// position 0) and `n_greedy` argmax tokens after the prompt (the first maximum on ties, as
// llama.cpp's greedy sampler), each fed back with Forward.
struct Result {
  std::vector<std::vector<float>> rows;
  std::vector<int> greedy;
  double max_relative_difference = 0;  // over all rows, against ref.rows
};
absl::StatusOr<Result> RunReference(llm::Model& model, const Reference& ref, int n_greedy);

// Token ids from a file of space-separated integers (tests/parity/testdata/ppl_ids_*.txt).
absl::StatusOr<std::vector<int>> ReadIds(const std::string& path);

// llama-perplexity's method (tools/perplexity, perplexity()): `tokens` cut into chunks of `n_ctx`,
// each run from position 0 with its first token replaced by `bos` when `add_bos`, the second half
// scored (token j + 1 from the logits at j, for j in [n_ctx/2, n_ctx - 2]; log-softmax with a
// float max and a double sum of exp). Returns the running perplexity after each of the first
// `n_chunks` chunks (what llama-perplexity prints as [1]X,[2]Y,...). InvalidArgument if the
// tokens hold fewer than n_chunks chunks or the model's context is shorter than n_ctx.
absl::StatusOr<std::vector<double>> RunningPerplexity(llm::Model& model,
                                                      absl::Span<const int> tokens, int n_ctx,
                                                      int n_chunks, bool add_bos, int bos);

// The bytes of the GGUF `make_random_gguf --shape=shape --vocab=vocab_path [--layers=layers]`
// (seed 1) writes, made in memory (writing a 1.2 GB file took ~10 s on the loaded machine). The
// vocabulary is read as that tool reads llama.cpp's vocabulary-only GGUFs (zero-padded in memory,
// since they end without an aligned data section).
absl::StatusOr<std::shared_ptr<const std::string>> RandomGguf(const std::string& shape,
                                                              const std::string& vocab_path,
                                                              int layers);

// The model RandomGguf serializes, as a TensorDict (owning its tensors).
absl::StatusOr<checkpoint::TensorDict> RandomModelDict(const std::string& shape,
                                                       const std::string& vocab_path, int layers);

// XXH3-64 of the tensors' data bytes, tensor after tensor in name order (byte order): equal for
// two GGUFs with the same tensor contents whatever their metadata and layout.
uint64_t TensorDataXxh3(const checkpoint::TensorDict& dict);

}  // namespace parity
}  // namespace edgeq

#endif  // EDGEQ_TESTS_PARITY_PARITY_UTIL_H_
