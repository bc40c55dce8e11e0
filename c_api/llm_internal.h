// The edgeq_llm handle, shared by the C API's LLM translation units (not part of the API).
#ifndef EDGEQ_C_API_LLM_INTERNAL_H_
#define EDGEQ_C_API_LLM_INTERNAL_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "edgeq/edgeq.h"
#include "grammar/gbnf.h"
#include "llm/model.h"
#include "llm/sampler.h"
#include "llm/session.h"
#include "tokenizer/text_tokenizer.h"
#include "tokenizer/tokenizer.h"

// Forwards to a Sampler replaced on every generate call (Session keeps a reference).
class SwitchableSampler : public edgeq::llm::TokenSampler {
 public:
  int Sample(absl::Span<const float> logits) override { return sampler->Sample(logits); }
  void Accept(int token) override { sampler->Accept(token); }
  absl::Status TakeError() override { return sampler->TakeError(); }
  void Reset() override {
    if (sampler) sampler->Reset();
  }
  std::string SaveState() const override { return sampler ? sampler->SaveState() : ""; }
  absl::Status LoadState(absl::string_view state) override {
    return sampler ? sampler->LoadState(state) : absl::OkStatus();
  }
  std::optional<edgeq::llm::Sampler> sampler;
};

struct edgeq_llm {
  std::unique_ptr<edgeq::llm::Model> model;
  // The file's vocabulary when it has one that opens (llm::Open, TokenizerUse::kIfPresent), and
  // the tokenizer behind it (null without one).
  std::unique_ptr<edgeq::tokenizer::TextTokenizer> text_tokenizer;
  const edgeq::tokenizer::Tokenizer* tokenizer = nullptr;
  SwitchableSampler sampler;
  std::unique_ptr<edgeq::llm::Session> session;
  // Set by edgeq_llm_set_grammar / _set_json_schema; the vocabulary's pieces built once.
  std::shared_ptr<const edgeq::grammar::Grammar> grammar;
  std::shared_ptr<const edgeq::llm::GrammarVocab> grammar_vocab;
  // edgeq_llm_cancel (any thread); cleared when edgeq_llm_generate starts.
  std::atomic<bool> cancel{false};
  // edgeq_llm_set_abort_callback.
  edgeq_abort_callback abort_callback = nullptr;
  void* abort_user_data = nullptr;
  // The sampler state of the last edgeq_llm_state_load, applied by the next edgeq_llm_generate
  // (which makes its sampler from its params) and saved as is until then.
  std::string restored_sampler;
};

namespace edgeq {
namespace c_api {

// Makes the session's abort check read llm->cancel and the abort callback.
void InstallAbortCheck(edgeq_llm* llm);

}  // namespace c_api
}  // namespace edgeq

#endif  // EDGEQ_C_API_LLM_INTERNAL_H_
