// llm::Open: a model file opened for use in one call: the checkpoint mapped, its configuration
// read, its text tokenizer and (on request) its chat template opened, and the model loaded. What
// the CLI (run, chat, perplexity, bench, embed's decoders) and the C API's edgeq_llm_load (and so
// Python) call, so that each opens a model the same way and fails with the same messages.
//
//   llm::OpenOptions options;
//   options.model.num_threads = 2;
//   EDGEQ_ASSIGN_OR_RETURN(llm::OpenedModel m, llm::Open("model.gguf", options));
//   EDGEQ_ASSIGN_OR_RETURN(std::vector<int> ids, m.tokenizer->Encode("Hi",
//   m.tokenizer->add_bos())); EDGEQ_ASSIGN_OR_RETURN(absl::Span<const float> logits,
//   m.model->Prefill(ids, 0));
//
// A front end that needs the tokenizer before it can choose the model's options (`edgeq run`
// sizes the KV cache from the prompt) calls OpenFile, then OpenedModel::LoadModel.
//
// Errors, in the order of the steps: checkpoint::OpenCheckpoint's (naming the file); the
// configuration's (ModelConfig::FromMetadata), prefixed "PATH: "; the tokenizer's
// (tokenizer::OpenTokenizer: "'PATH': vocabulary: ...", "'PATH' carries no vocabulary; pass
// --tokenizer=PATH"); the chat template's ("'PATH' carries no tokenizer.chat_template" NotFound,
// "'PATH': " + the Jinja parser's); Model::Load's, prefixed "PATH: ".
#ifndef EDGEQ_LLM_OPEN_H_
#define EDGEQ_LLM_OPEN_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "checkpoint/formats.h"
#include "llm/arch/model_config.h"
#include "llm/model.h"
#include "tokenizer/text_tokenizer.h"

namespace edgeq {
namespace llm {

class ChatTemplate;  // llm/chat_template.h

// Which text tokenizer Open gives.
enum class TokenizerUse {
  // The model's vocabulary (tokenizer.ggml.*), or OpenOptions::tokenizer_path (a llama2.c
  // tokenizer file) when given; an error if there is neither (run, perplexity, embed).
  kRequired,
  // The model's own vocabulary only; an error naming chat if the file has none (chat).
  kModelsOwn,
  // The model's vocabulary if it has one that opens (its size not checked), else none, without
  // an error: the C API, whose tokenize calls say so later.
  kIfPresent,
  // None (bench runs random tokens).
  kNone,
};

struct OpenOptions {
  // Options of the model loaded by Open (OpenFile ignores them). mapped_file is set by Open.
  ModelOptions model;
  TokenizerUse tokenizer = TokenizerUse::kRequired;
  // A llama2.c tokenizer file used instead of the model's vocabulary (--tokenizer; kRequired).
  std::string tokenizer_path;
  // Open the model's own chat template (tokenizer.chat_template, Jinja, with the tokenizer's BOS
  // and EOS texts); an error if the file has none or it does not parse. Needs a tokenizer.
  // FailedPrecondition in a build without chat templates (--define=edgeq_chat=off).
  bool chat_template = false;
};

struct OpenedModel {
  std::string path;
  // The mapped checkpoint (its dict's tensors view file_bytes; the model's weights keep the
  // mapping alive on their own). OpenFile leaves out of its dict the vocabulary's arrays
  // (tokenizer.ggml.tokens, scores, token_type, merges: `tokenizer` holds them) and drops the
  // resident pages of the file's header.
  checkpoint::OpenedCheckpoint file;
  ModelConfig config;
  // Null for TokenizerUse::kNone, or kIfPresent without a vocabulary.
  std::unique_ptr<tokenizer::TextTokenizer> tokenizer;
  // Null unless OpenOptions::chat_template.
  std::shared_ptr<const ChatTemplate> chat_template;
  // Null after OpenFile until LoadModel.
  std::unique_ptr<Model> model;

  // Loads the model from `file` with `options` (mapped_file set to the file: copied weights'
  // pages are dropped). Errors: Model::Load's, prefixed "PATH: ".
  absl::Status LoadModel(ModelOptions options);
};

// Everything but the model: checkpoint, configuration, tokenizer, chat template.
absl::StatusOr<OpenedModel> OpenFile(const std::string& path, const OpenOptions& options = {});
// The same for a checkpoint the caller has already opened from `path` (`edgeq embed` reads its
// architecture first to tell a decoder from an encoder); errors as OpenFile's after the mapping.
absl::StatusOr<OpenedModel> OpenFile(const std::string& path, checkpoint::OpenedCheckpoint file,
                                     const OpenOptions& options = {});

// The model's own chat template (what OpenOptions::chat_template opens): tokenizer.chat_template
// as Jinja with the tokenizer's BOS and EOS texts. NotFound "'PATH' carries no
// tokenizer.chat_template"; the parser's error prefixed "'PATH': "; FailedPrecondition without a
// tokenizer or in a build without chat templates.
absl::StatusOr<std::shared_ptr<const ChatTemplate>> OpenChatTemplate(const OpenedModel& m);

// OpenFile, then LoadModel(options.model).
absl::StatusOr<OpenedModel> Open(const std::string& path, const OpenOptions& options = {});
absl::StatusOr<OpenedModel> Open(const std::string& path, checkpoint::OpenedCheckpoint file,
                                 const OpenOptions& options = {});

}  // namespace llm
}  // namespace edgeq

#endif  // EDGEQ_LLM_OPEN_H_
