// Embeddings of encoder models (bert, nomic-bert, gemma-embedding: llm/arch/bert.h), as
// llama-embedding computes them: the last layer's hidden states pooled per sequence (mean, the
// first token "cls", the last token, or none: one vector per token) and normalized
// (llm::NormalizeEmbedding).
//
// Batched: EmbedBatch packs many sequences into blocks of at most max_block_rows rows, each
// block one graph run in which every row attends only to the rows of its own sequence (the
// graph's mask input); positions restart at 0 in each sequence.
//
//   EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<llm::Encoder> e, llm::Encoder::Load("bge.gguf", {}));
//   EDGEQ_ASSIGN_OR_RETURN(std::vector<std::vector<float>> v,
//                          e->EmbedBatch({ids_a, ids_b}, e->default_pooling(), 2));
#ifndef EDGEQ_LLM_EMBED_ENCODER_H_
#define EDGEQ_LLM_EMBED_ENCODER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "checkpoint/tensor_dict.h"
#include "llm/arch/bert.h"
#include "llm/embed.h"
#include "runtime/session.h"
#include "tokenizer/tokenizer.h"

namespace edgeq {
namespace llm {

struct EncoderOptions {
  int num_threads = 1;
  // Rows of one graph run (sequences are packed up to it; a longer sequence runs alone). Every
  // row of a block attends over the whole block (masked), so the attention grows with the
  // square of this: 64 rows were the fastest per text for 64 short texts (embed_encoder_bench).
  int max_block_rows = 64;
};

class Encoder {
 public:
  // The GGUF at `path` (general.architecture bert or nomic-bert; kept mapped), or a dict (taken
  // over). InvalidArgument naming a bad key or tensor; a tensor no graph reads is refused.
  static absl::StatusOr<std::unique_ptr<Encoder>> Load(const std::string& path,
                                                       const EncoderOptions& options);
  static absl::StatusOr<std::unique_ptr<Encoder>> Load(checkpoint::TensorDict dict,
                                                       const EncoderOptions& options);

  const arch::EncoderConfig& config() const { return config_; }
  // The file's <arch>.pooling_type (mean when absent or "rank").
  Pooling default_pooling() const;

  // Each text's ids under the file's vocabulary as llama-embedding tokenizes a prompt (special
  // tokens added and parsed: [CLS] ... [SEP] for WordPiece). FailedPrecondition if the file has
  // no vocabulary (tokenizer.ggml.*); InvalidArgument naming a text that encodes to no tokens.
  absl::StatusOr<std::vector<std::vector<int>>> Tokenize(absl::Span<const std::string> texts) const;

  // One embedding per sequence (tokens x dim values for kNone, each row normalized). Each
  // sequence needs 1..context_length tokens, each id below the vocabulary: InvalidArgument
  // naming the sequence and the token otherwise.
  absl::StatusOr<std::vector<std::vector<float>>> EmbedBatch(
      absl::Span<const std::vector<int>> sequences, Pooling pooling, int normalize);

 private:
  Encoder() = default;
  absl::Status Init(const EncoderOptions& options);
  absl::StatusOr<edgeq::CompiledGraph*> GraphOfRows(int64_t t);
  // The dense projections (dense_) of one pooled row, in place.
  absl::Status Dense(absl::Span<float> v);
  // Runs sequences [first, last) packed in one block; appends their pooled embeddings.
  absl::Status RunBlock(absl::Span<const std::vector<int>> seqs, Pooling pooling, int normalize,
                        std::vector<std::vector<float>>* out);

  std::shared_ptr<const void> file_;  // the mapping the dict's tensors view, if any
  checkpoint::TensorDict dict_;
  arch::EncoderConfig config_;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer_;  // null without tokenizer.ggml.model
  int max_rows_ = 64;
  std::set<std::string> used_;
  std::unique_ptr<InferenceSession> session_;
  std::map<int64_t, std::unique_ptr<edgeq::CompiledGraph>> graphs_;  // by block rows
  std::unique_ptr<edgeq::CompiledGraph> dense_;  // gemma-embedding's dense_2/dense_3, if any
};

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_EMBED_ENCODER_H_
