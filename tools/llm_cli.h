// Shared parts of `edgeq run`, `edgeq perplexity` and `edgeq bench`: opening a model with its
// vocabulary (the text tokenizer is tokenizer::TextTokenizer). Their options are in
// tools/llm_flags.h.
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
#include "tokenizer/text_tokenizer.h"
#include "tools/llm_flags.h"

namespace edgeq {
namespace tools {

// The text tokenizer of a model (tokenizer/text_tokenizer.h).
using tokenizer::OpenTokenizer;
using tokenizer::TextTokenizer;

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

// "KV cache 0.06 MiB (f32), activations 0.12 MiB (ubatch 512; prefill blocks built: 16, 32)".
std::string MemoryReport(const llm::Model& model);

// Peak resident set size of this process (VmHWM from /proc/self/status) in bytes; 0 if unknown.
uint64_t PeakRssBytes();

}  // namespace tools
}  // namespace edgeq

#endif  // EDGEQ_TOOLS_LLM_CLI_H_
