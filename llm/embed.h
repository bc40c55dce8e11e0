// Embeddings of decoder models, as llama-embedding computes them: the hidden states after the
// output norm, pooled over the sequence (mean, the first token "cls", the last token, or none:
// one vector per token), then normalized as common_embd_normalize does (-1 none, 0 max-abs
// scaled to int16 range, 1 taxicab, 2 euclidean (default), > 2 p-norm). Last-token pooling is
// Qwen3-Embedding's.
//
//   EDGEQ_ASSIGN_OR_RETURN(std::vector<float> v,
//                          llm::Embed(*model, ids, llm::Pooling::kLast, /*normalize=*/2));
#ifndef EDGEQ_LLM_EMBED_H_
#define EDGEQ_LLM_EMBED_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "llm/model.h"

namespace edgeq {
namespace llm {

enum class Pooling { kNone, kMean, kCls, kLast };

// "none", "mean", "cls", "last"; InvalidArgument naming the value and these otherwise.
absl::StatusOr<Pooling> ParsePooling(absl::string_view name);
const char* PoolingName(Pooling pooling);

// common_embd_normalize in place (see the file comment); InvalidArgument for normalize < -1.
absl::Status NormalizeEmbedding(absl::Span<float> v, int normalize);

// The embedding of `tokens` as one sequence from position 0 (the model's KV cache is overwritten:
// a Session on the model must Reset before generating again): embedding_length floats, or
// tokens x embedding_length for kNone (each row normalized). InvalidArgument for no tokens; the
// model's errors (a token outside the vocabulary, more tokens than the context).
absl::StatusOr<std::vector<float>> Embed(Model& model, absl::Span<const int> tokens,
                                         Pooling pooling, int normalize);

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_EMBED_H_
