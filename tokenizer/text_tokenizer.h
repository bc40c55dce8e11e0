// tokenizer::TextTokenizer: the one interface the CLI, and anything else that runs a model on
// text, uses to turn text into ids and ids into text, whatever the vocabulary's origin:
//   - the vocabulary a model carries (GGUF tokenizer.ggml.*: SentencePiece, byte-level BPE or
//     WordPiece through tokenizer::Tokenizer, tokenized as llama.cpp does), or
//   - a llama2.c tokenizer.bin (tokenizer::Llama2cTokenizer, encoded exactly as llama2.c's run.c
//     does, which the TinyStories parity tests need).
// The two engines stay separate classes because their algorithms differ in ways the parity
// tests see (run.c's dummy-prefix and byte-printing rules versus llama.cpp's special-token
// partitioning and clean-up); OpenTokenizer picks one and hides which.
//
//   EDGEQ_ASSIGN_OR_RETURN(std::unique_ptr<TextTokenizer> tok,
//                          OpenTokenizer(dict, "model.gguf", /*tokenizer_path=*/"", vocab));
//   EDGEQ_ASSIGN_OR_RETURN(std::vector<int> ids, tok->Encode("Hello", tok->add_bos()));
#ifndef EDGEQ_TOKENIZER_TEXT_TOKENIZER_H_
#define EDGEQ_TOKENIZER_TEXT_TOKENIZER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/tensor_dict.h"

namespace edgeq {
namespace tokenizer {

class Tokenizer;  // tokenizer/tokenizer.h

// A text tokenizer for a model: the vocabulary the model carries (tokenizer.ggml.*: SPM, BPE
// or WordPiece through Tokenizer, as llama.cpp tokenizes), or a llama2.c tokenizer file
// (--tokenizer, encoded as llama2.c's run.c does).
class TextTokenizer {
 public:
  virtual ~TextTokenizer() = default;
  // Ids of `text`, with BOS first if `add_bos`. `parse_special`: control tokens written in the
  // text ("<|im_end|>") become their ids. Errors only for pathological input.
  virtual absl::StatusOr<std::vector<int>> Encode(absl::string_view text, bool add_bos,
                                                  bool parse_special = false) const = 0;
  // The bytes of `token` after `prev` (streaming; a UTF-8 character may span two tokens).
  virtual std::string Decode(int prev, int token) const = 0;
  virtual int bos() const = 0;
  virtual int eos() const = 0;
  virtual bool add_bos() const = 0;
  // The tokens that end generation (EOS, and end-of-turn tokens of chat vocabularies).
  virtual std::vector<int> stop_tokens() const { return {eos()}; }
  // The bytes `token` stands for, control tokens included (llama-tokenize's pieces).
  virtual std::string PieceText(int token) const = 0;
  // The bytes a grammar matches for `token`: empty for control tokens (never allowed).
  virtual std::string TokenBytes(int token) const { return PieceText(token); }
  // The model's vocabulary this tokenizer runs (llama.cpp's tokenizers), or null (a llama2.c
  // file).
  virtual const Tokenizer* vocabulary() const { return nullptr; }
};

// The model's own vocabulary as a TextTokenizer (what OpenTokenizer gives for one).
std::unique_ptr<TextTokenizer> VocabularyTokenizer(Tokenizer vocabulary);

// The tokenizer for `dict` (whose model has `vocab_size` tokens): `tokenizer_path` (a llama2.c
// tokenizer file) if given, else the model's own vocabulary (Tokenizer::FromGguf). Its
// errors name the unsupported tokenizer.ggml.model or pre-tokenizer; InvalidArgument naming the
// model if it carries no vocabulary, or one whose size is not the model's (vocab_size > 0;
// 0 skips that check, e.g. for a vocabulary-only GGUF).
absl::StatusOr<std::unique_ptr<TextTokenizer>> OpenTokenizer(const checkpoint::TensorDict& dict,
                                                             const std::string& model_path,
                                                             const std::string& tokenizer_path,
                                                             int vocab_size);

}  // namespace tokenizer
}  // namespace edgeq

#endif  // EDGEQ_TOKENIZER_TEXT_TOKENIZER_H_
