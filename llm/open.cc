#include "llm/open.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "checkpoint/mapped_file.h"
#include "core/status_macros.h"
#include "tokenizer/tokenizer.h"
#ifndef EDGEQ_NO_CHAT_TEMPLATES
#include "llm/chat_template.h"
#endif

namespace edgeq {
namespace llm {
namespace {

// `status` with "PATH: " before its message.
absl::Status Prefixed(const std::string& path, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(path, ": ", status.message()));
}

// Once OpenFile has read what it needs of the metadata (configuration, tokenizer, template), the
// vocabulary's large arrays go from the dict (the reader's copy of them; a tokenizer holds its own:
// Gemma 3's 262,144 tokens are some 12 MiB of strings, scores and types), and the resident pages
// of the file's header they were read from are dropped (they come back from the file if read).
void DropVocabularyCopies(checkpoint::OpenedCheckpoint& file) {
  for (const char* key : {"tokenizer.ggml.tokens", "tokenizer.ggml.scores",
                          "tokenizer.ggml.token_type", "tokenizer.ggml.merges"}) {
    file.dict.RemoveMetadata(key);
  }
  const uint8_t* begin = file.file_bytes.data();
  const uint8_t* end = begin + file.file_bytes.size();
  const uint8_t* first_data = end;  // the header ends where the first tensor's data begins
  for (const std::string& name : file.dict.Keys()) {
    const absl::StatusOr<const Tensor*> t = file.dict.Get(name);
    if (!t.ok()) continue;
    const auto* p = static_cast<const uint8_t*>((*t)->raw_data());
    if (p >= begin && p < first_data) first_data = p;
  }
  if (begin != nullptr && first_data != end) {
    checkpoint::ReleaseMappedPages(file.file_bytes, begin, static_cast<size_t>(first_data - begin));
  }
}

absl::StatusOr<std::unique_ptr<tokenizer::TextTokenizer>> OpenTextTokenizer(
    const OpenedModel& m, const OpenOptions& options) {
  const checkpoint::TensorDict& dict = m.file.dict;
  const bool has_vocabulary = dict.HasMetadata("tokenizer.ggml.model");
  switch (options.tokenizer) {
    case TokenizerUse::kNone:
      return nullptr;
    case TokenizerUse::kIfPresent: {
      if (!has_vocabulary) return nullptr;
      absl::StatusOr<tokenizer::Tokenizer> vocab = tokenizer::Tokenizer::FromGguf(dict);
      if (!vocab.ok()) return nullptr;
      return tokenizer::VocabularyTokenizer(*std::move(vocab));
    }
    case TokenizerUse::kModelsOwn:
      if (!has_vocabulary) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "'%s' carries no vocabulary (tokenizer.ggml.*); chat needs the model's own", m.path));
      }
      return tokenizer::OpenTokenizer(dict, m.path, "", m.config.vocab_size);
    case TokenizerUse::kRequired:
      break;
  }
  return tokenizer::OpenTokenizer(dict, m.path, options.tokenizer_path, m.config.vocab_size);
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ChatTemplate>> OpenChatTemplate(const OpenedModel& m) {
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  (void)m;
  return absl::FailedPreconditionError(
      "this build has no chat templates (--define=edgeq_chat=off)");
#else
  if (m.tokenizer == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrFormat("'%s': a chat template needs the model's tokenizer", m.path));
  }
  const tokenizer::TextTokenizer& tok = *m.tokenizer;
  absl::StatusOr<std::string> text = ChatTemplate::TextFromGguf(m.file.dict);
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(absl::StrFormat("'%s' carries no tokenizer.chat_template", m.path));
  }
  EDGEQ_RETURN_IF_ERROR(text.status());
  absl::StatusOr<ChatTemplate> t =
      ChatTemplate::FromJinja(*std::move(text), tok.bos() >= 0 ? tok.PieceText(tok.bos()) : "",
                              tok.eos() >= 0 ? tok.PieceText(tok.eos()) : "");
  if (!t.ok()) {
    return absl::Status(t.status().code(), absl::StrCat("'", m.path, "': ", t.status().message()));
  }
  return std::make_shared<const ChatTemplate>(*std::move(t));
#endif
}

absl::Status OpenedModel::LoadModel(ModelOptions options) {
  options.mapped_file = file.file_bytes;  // drop copied weights' pages
  absl::StatusOr<std::unique_ptr<Model>> loaded = Model::Load(file.dict, options);
  if (!loaded.ok()) return Prefixed(path, loaded.status());
  model = *std::move(loaded);
  return absl::OkStatus();
}

absl::StatusOr<OpenedModel> OpenFile(const std::string& path, const OpenOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(checkpoint::OpenedCheckpoint file, checkpoint::OpenCheckpoint(path));
  return OpenFile(path, std::move(file), options);
}

absl::StatusOr<OpenedModel> OpenFile(const std::string& path, checkpoint::OpenedCheckpoint file,
                                     const OpenOptions& options) {
  OpenedModel m;
  m.path = path;
  m.file = std::move(file);
  absl::StatusOr<ModelConfig> config = ModelConfig::FromMetadata(m.file.dict);
  if (!config.ok()) return Prefixed(path, config.status());
  m.config = *std::move(config);
  EDGEQ_ASSIGN_OR_RETURN(m.tokenizer, OpenTextTokenizer(m, options));
  if (options.chat_template) {
    EDGEQ_ASSIGN_OR_RETURN(m.chat_template, OpenChatTemplate(m));
  }
  DropVocabularyCopies(m.file);
  return m;
}

absl::StatusOr<OpenedModel> Open(const std::string& path, const OpenOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(OpenedModel m, OpenFile(path, options));
  EDGEQ_RETURN_IF_ERROR(m.LoadModel(options.model));
  return m;
}

absl::StatusOr<OpenedModel> Open(const std::string& path, checkpoint::OpenedCheckpoint file,
                                 const OpenOptions& options) {
  EDGEQ_ASSIGN_OR_RETURN(OpenedModel m, OpenFile(path, std::move(file), options));
  EDGEQ_RETURN_IF_ERROR(m.LoadModel(options.model));
  return m;
}

}  // namespace llm
}  // namespace edgeq
