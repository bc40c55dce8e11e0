// Shared parts of `edgeq run`, `edgeq perplexity` and `edgeq bench`: opening a model with its
// vocabulary, and the text tokenizer a model carries. Their options are in tools/llm_flags.h.
#ifndef EDGEQ_TOOLS_LLM_CLI_H_
#define EDGEQ_TOOLS_LLM_CLI_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "checkpoint/formats.h"
#include "checkpoint/tensor_dict.h"
#include "grammar/gbnf.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {

// A text tokenizer for a model: the vocabulary the model carries (tokenizer.ggml.*: SPM, BPE
// or WordPiece through tokenizer::Tokenizer, as llama.cpp tokenizes), or a llama2.c tokenizer file
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
};

// The tokenizer for `dict` (whose model has `vocab_size` tokens): `tokenizer_path` (a llama2.c
// tokenizer file) if given, else the model's own vocabulary (tokenizer::Tokenizer::FromGguf). Its
// errors name the unsupported tokenizer.ggml.model or pre-tokenizer; InvalidArgument naming the
// model if it carries no vocabulary, or one whose size is not the model's (vocab_size > 0;
// 0 skips that check, e.g. for a vocabulary-only GGUF).
absl::StatusOr<std::unique_ptr<TextTokenizer>> OpenTokenizer(const checkpoint::TensorDict& dict,
                                                             const std::string& model_path,
                                                             const std::string& tokenizer_path,
                                                             int vocab_size);

// The grammar a --grammar/--grammar-file/--json-schema flag asks for (nullptr for none): the
// file read with ReadFileBounded, a JSON schema converted by grammar::JsonSchemaToGbnf, then
// grammar::ParseGbnf. InvalidArgument prefixed with the flag ("--grammar: grammar line 1,
// column 9: ...").
absl::StatusOr<std::shared_ptr<const grammar::Grammar>> LoadGrammar(const GrammarFlag& flag);
// Constrains `sampler` to `grammar` over the vocabulary of `tok` (vocab_size tokens; the
// grammar's end-of-generation tokens are tok.stop_tokens()). Nothing for a null grammar.
absl::Status ConstrainSampler(std::shared_ptr<const grammar::Grammar> grammar,
                              const TextTokenizer& tok, int vocab_size, llm::Sampler* sampler);

// Prints "edgeq COMMAND: error: MESSAGE" (one line) to stderr and returns 1.
int LlmFail(absl::string_view command, const absl::Status& status);

// "135.0M" style parameter count and the dominant weight type ("F32", "Q4_0", "Q8_0 (mixed)").
std::string ParamsLabel(uint64_t params);
std::string WeightTypeLabel(const checkpoint::TensorDict& dict);
uint64_t ParameterCount(const checkpoint::TensorDict& dict);

// Peak resident set size of this process (VmHWM from /proc/self/status) in bytes; 0 if unknown.
uint64_t PeakRssBytes();

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_LLM_CLI_H_
