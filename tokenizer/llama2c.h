// The llama2.c tokenizer (a SentencePiece BPE vocabulary exported by llama2.c's tokenizer.py).
//
//   EDGEQ_ASSIGN_OR_RETURN(Llama2cTokenizer tok, Llama2cTokenizer::Load("tok512.bin",
//   /*vocab_size=*/512)); std::vector<int> ids = tok.Encode("Once upon a time", /*bos=*/true,
//   /*eos=*/false); for (...) std::cout << tok.Decode(prev, next);
//
// File format (little endian): int32 max_token_length, then per piece: f32 score, int32 length,
// `length` bytes. Encoding is greedy: the text is split into UTF-8 code points (code points not in
// the vocabulary become <0xXX> byte pieces, ids 3..258), then the adjacent pair whose merge has the
// highest score is merged until no pair merges. A dummy-prefix space is prepended to non-empty text
// and BOS (1) / EOS (2) are optional, exactly as llama2.c's run.c does.
#ifndef EDGEQ_TOKENIZER_LLAMA2C_H_
#define EDGEQ_TOKENIZER_LLAMA2C_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace tokenizer {

inline constexpr int kLlama2cBosId = 1;
inline constexpr int kLlama2cEosId = 2;

class Llama2cTokenizer {
 public:
  // Reads a llama2.c tokenizer file holding exactly `vocab_size` pieces (the model's vocabulary
  // size). NotFound if the file is missing; InvalidArgument naming the file if it is truncated,
  // has trailing bytes (it was made for another vocabulary size) or holds a bad piece length.
  static absl::StatusOr<Llama2cTokenizer> Load(const std::string& path, int vocab_size);
  // The vocabulary a checkpoint carries as GGUF-style metadata (tokenizer.ggml.tokens and
  // tokenizer.ggml.scores: GGUF files, and .max files the pipeline wrote), where a space is
  // spelled U+2581 as in SentencePiece. NotFound if absent.
  static absl::StatusOr<Llama2cTokenizer> FromMetadata(const checkpoint::TensorDict& dict);
  // The tokenizer of a model of `vocab_size` pieces: the llama2.c file `tokenizer_path` if given
  // (Load), else the vocabulary the model `dict` carries (FromMetadata). InvalidArgument naming
  // `model_path` if it carries none (pass --tokenizer), or if its vocabulary is not `vocab_size`
  // pieces.
  static absl::StatusOr<Llama2cTokenizer> ForModel(const checkpoint::TensorDict& dict,
                                                   const std::string& model_path,
                                                   const std::string& tokenizer_path,
                                                   int vocab_size);
  // From pieces and scores directly (e.g. a GGUF vocabulary).
  static absl::StatusOr<Llama2cTokenizer> FromPieces(std::vector<std::string> pieces,
                                                     std::vector<float> scores);

  // Stores the vocabulary as that metadata, so that a saved model is self-contained.
  void ToMetadata(checkpoint::TensorDict& dict) const;

  int vocab_size() const { return static_cast<int>(pieces_.size()); }
  const std::string& piece(int id) const { return pieces_[id]; }
  float score(int id) const { return scores_[id]; }

  // Token ids of `text` (see the file comment).
  std::vector<int> Encode(absl::string_view text, bool bos, bool eos) const;

  // The text of `token` following `prev`: drops the leading space of a piece after BOS and turns
  // <0xXX> pieces into their byte. Out-of-range ids decode to "".
  std::string Decode(int prev, int token) const;

  // Decode() filtered as run.c prints: a single-byte piece that is neither printable nor space is
  // dropped (raw bytes of partial UTF-8 sequences are kept only if printable/space).
  std::string DecodeForPrint(int prev, int token) const;

 private:
  Llama2cTokenizer() = default;
  int Lookup(absl::string_view piece) const;

  std::vector<std::string> pieces_;
  std::vector<float> scores_;
  absl::flat_hash_map<std::string, int> ids_;
  int max_token_length_ = 0;
};

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_LLAMA2C_H_
