// The C API's chat functions with tools (include/edgeq/edgeq.h, "Chat with tools"): a
// conversation as JSON rendered through a chat template with tool definitions, and tool calls
// parsed from a model's reply (llm/tool_calls.h) into name + JSON arguments.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "c_api/internal.h"
#include "core/bounded_input.h"
#include "core/status_macros.h"
#include "edgeq/edgeq.h"
#ifndef EDGEQ_NO_CHAT_TEMPLATES
#include "llm/chat_template.h"
#include "llm/tool_calls.h"
#endif
#include "nlohmann/json.hpp"
#include "tokenizer/tokenizer.h"

using edgeq::c_api::Fail;
using edgeq::c_api::FromStatus;
using json = nlohmann::ordered_json;

struct edgeq_tool_calls {
  struct Call {
    std::string name, arguments;
  };
  std::string format;
  std::string content;
  std::vector<Call> calls;
  std::string message;
};

namespace {

constexpr size_t kMaxChatJsonBytes = size_t{16} << 20;

// --define=edgeq_chat=off leaves chat templates and tool calls out of the library.
[[maybe_unused]] absl::Status NoChat(const char* fn) {
  return absl::FailedPreconditionError(absl::StrCat(
      fn, ": this libedgeq was built without chat templates (--define=edgeq_chat=off)"));
}

// `text` (NULL or "" -> `empty`) parsed as JSON; InvalidArgument naming `what` otherwise.
[[maybe_unused]] absl::StatusOr<json> ParseArgJson(const char* fn, const char* what,
                                                   const char* text, json empty) {
  if (text == nullptr || *text == '\0') return empty;
  const absl::string_view s(text);
  const std::string name = absl::StrCat(fn, ": ", what);
  if (s.size() > kMaxChatJsonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " holds ", s.size(), " bytes; expected at most ", kMaxChatJsonBytes));
  }
  EDGEQ_RETURN_IF_ERROR(edgeq::CheckJsonDepth(s, edgeq::kMaxJsonDepth, name));
  json j = json::parse(s, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " is not a JSON array: ", edgeq::QuoteForError(s), "; expected [{...}, ...]"));
  }
  return j;
}

[[maybe_unused]] std::string Dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The model's own template (chat_template NULL or "") or the given name / Jinja text.
[[maybe_unused]] absl::StatusOr<std::string> TemplateText(const edgeq_llm* llm, const char* fn,
                                                          const char* chat_template) {
  if (chat_template != nullptr && *chat_template != '\0') return std::string(chat_template);
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  (void)llm;
  return NoChat(fn);
#else
  absl::StatusOr<std::string> text =
      edgeq::llm::ChatTemplate::TextFromGguf(edgeq::c_api::LlmWeights(llm));
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat(fn, ": ", text.status().message(),
                                     "; pass a template name (chatml, llama3, ...) or Jinja text"));
  }
  return text;
#endif
}

struct Rendered {
  std::string prompt;
  std::string bos;
};

absl::StatusOr<Rendered> RenderChat(const edgeq_llm* llm, const char* fn, const char* chat_template,
                                    const char* messages_json, const char* tools_json,
                                    int add_generation_prompt) {
  const edgeq::tokenizer::Tokenizer* tok = edgeq::c_api::LlmTokenizer(llm);
  if (tok == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(fn, ": the model file holds no tokenizer.ggml.* vocabulary"));
  }
  if (messages_json == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": messages_json is NULL"));
  }
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  (void)chat_template, (void)tools_json, (void)add_generation_prompt;
  return NoChat(fn);
#else
  EDGEQ_ASSIGN_OR_RETURN(json messages,
                         ParseArgJson(fn, "messages_json", messages_json, json::array()));
  EDGEQ_ASSIGN_OR_RETURN(json tools, ParseArgJson(fn, "tools_json", tools_json, json()));
  Rendered r;
  r.bos = tok->bos_id() >= 0 ? tok->TokenToPiece(tok->bos_id()) : "";
  const std::string eos = tok->eos_id() >= 0 ? tok->TokenToPiece(tok->eos_id()) : "";
  EDGEQ_ASSIGN_OR_RETURN(std::string text, TemplateText(llm, fn, chat_template));
  EDGEQ_ASSIGN_OR_RETURN(edgeq::llm::ChatTemplate t,
                         edgeq::llm::ChatTemplate::Open(std::move(text), r.bos, eos));
  EDGEQ_ASSIGN_OR_RETURN(r.prompt, t.RenderJson(messages, tools, add_generation_prompt != 0));
  return r;
#endif
}

#ifndef EDGEQ_NO_CHAT_TEMPLATES
edgeq_status ParseInto(const char* fn, edgeq::llm::ToolCallFormat format, const char* reply,
                       edgeq_tool_calls** out) {
  absl::StatusOr<edgeq::llm::ParsedReply> parsed = edgeq::llm::ParseToolCalls(reply, format);
  if (!parsed.ok()) {
    return FromStatus(
        absl::Status(parsed.status().code(), absl::StrCat(fn, ": ", parsed.status().message())));
  }
  auto calls = std::make_unique<edgeq_tool_calls>();
  calls->format = edgeq::llm::ToolCallFormatName(format);
  calls->message = Dump(edgeq::llm::AssistantMessage(*parsed, format));
  calls->content = std::move(parsed->content);
  for (edgeq::llm::ToolCall& c : parsed->calls) {
    calls->calls.push_back({std::move(c.name), std::move(c.arguments)});
  }
  *out = calls.release();
  return EDGEQ_OK;
}
#endif  // EDGEQ_NO_CHAT_TEMPLATES

}  // namespace

extern "C" {

edgeq_status edgeq_llm_chat_render(const edgeq_llm* llm, const char* chat_template,
                                   const char* messages_json, const char* tools_json,
                                   int add_generation_prompt, char* text, size_t capacity,
                                   size_t* length) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && length != nullptr, "llm or length is NULL");
  absl::StatusOr<Rendered> r =
      RenderChat(llm, __func__, chat_template, messages_json, tools_json, add_generation_prompt);
  if (!r.ok()) return FromStatus(r.status());
  *length = r->prompt.size();
  if (text == nullptr || capacity < r->prompt.size() + 1) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL,
                absl::StrCat(__func__, ": the prompt needs ", r->prompt.size() + 1,
                             " bytes with its NUL, capacity ", capacity));
  }
  std::memcpy(text, r->prompt.data(), r->prompt.size());
  text[r->prompt.size()] = '\0';
  return EDGEQ_OK;
}

edgeq_status edgeq_llm_chat_tokenize_json(const edgeq_llm* llm, const char* chat_template,
                                          const char* messages_json, const char* tools_json,
                                          int add_generation_prompt, int32_t* tokens,
                                          size_t capacity, size_t* n_tokens) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && n_tokens != nullptr, "llm or n_tokens is NULL");
  absl::StatusOr<Rendered> r =
      RenderChat(llm, __func__, chat_template, messages_json, tools_json, add_generation_prompt);
  if (!r.ok()) return FromStatus(r.status());
  edgeq::tokenizer::Tokenizer::EncodeOptions eo;
  eo.add_special = r->bos.empty() || r->prompt.compare(0, r->bos.size(), r->bos) != 0;
  eo.parse_special = true;
  auto ids = edgeq::c_api::LlmTokenizer(llm)->Encode(r->prompt, eo);
  if (!ids.ok()) return FromStatus(ids.status());
  *n_tokens = ids->size();
  if (capacity < ids->size() || (tokens == nullptr && !ids->empty())) {
    return Fail(EDGEQ_ERROR_BUFFER_TOO_SMALL,
                absl::StrCat(__func__, ": ", ids->size(), " tokens, capacity ", capacity));
  }
  if (!ids->empty()) std::memcpy(tokens, ids->data(), ids->size() * sizeof(int32_t));
  return EDGEQ_OK;
}

const char* edgeq_tool_call_format(const char* chat_template_text) {
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  (void)chat_template_text;
  return "";
#else
  return edgeq::llm::ToolCallFormatName(edgeq::llm::ToolCallFormatForTemplate(
      chat_template_text != nullptr ? chat_template_text : ""));
#endif
}

edgeq_status edgeq_llm_parse_tool_calls(const edgeq_llm* llm, const char* chat_template,
                                        const char* reply, edgeq_tool_calls** out) {
  EDGEQ_C_CHECK_ARG(llm != nullptr && reply != nullptr && out != nullptr,
                    "llm, reply or out is NULL");
  *out = nullptr;
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  (void)chat_template;
  return FromStatus(NoChat(__func__));
#else
  absl::StatusOr<std::string> text = TemplateText(llm, __func__, chat_template);
  if (!text.ok()) return FromStatus(text.status());
  return ParseInto(__func__, edgeq::llm::ToolCallFormatForTemplate(*text), reply, out);
#endif
}

edgeq_status edgeq_parse_tool_calls(const char* format, const char* reply, edgeq_tool_calls** out) {
  EDGEQ_C_CHECK_ARG(format != nullptr && reply != nullptr && out != nullptr,
                    "format, reply or out is NULL");
  *out = nullptr;
#ifdef EDGEQ_NO_CHAT_TEMPLATES
  return FromStatus(NoChat(__func__));
#else
  using edgeq::llm::ToolCallFormat;
  for (ToolCallFormat f :
       {ToolCallFormat::kGeneric, ToolCallFormat::kHermes, ToolCallFormat::kLlama31,
        ToolCallFormat::kDeepSeekV3, ToolCallFormat::kMistral, ToolCallFormat::kGptOss}) {
    if (std::strcmp(format, edgeq::llm::ToolCallFormatName(f)) == 0) {
      return ParseInto(__func__, f, reply, out);
    }
  }
  return Fail(
      EDGEQ_ERROR_INVALID_ARGUMENT,
      absl::StrCat(__func__, ": unknown tool-call format ", edgeq::QuoteForError(format),
                   "; expected hermes, llama3.1, deepseek-v3, mistral, gpt-oss or generic"));
#endif
}

void edgeq_tool_calls_free(edgeq_tool_calls* calls) { delete calls; }

const char* edgeq_tool_calls_format(const edgeq_tool_calls* calls) {
  return calls != nullptr ? calls->format.c_str() : "";
}

size_t edgeq_tool_calls_count(const edgeq_tool_calls* calls) {
  return calls != nullptr ? calls->calls.size() : 0;
}

edgeq_status edgeq_tool_calls_get(const edgeq_tool_calls* calls, size_t index, const char** name,
                                  const char** arguments_json) {
  EDGEQ_C_CHECK_ARG(calls != nullptr && name != nullptr && arguments_json != nullptr,
                    "calls, name or arguments_json is NULL");
  if (index >= calls->calls.size()) {
    return Fail(EDGEQ_ERROR_OUT_OF_RANGE, absl::StrCat(__func__, ": index ", index,
                                                       "; expected below ", calls->calls.size()));
  }
  *name = calls->calls[index].name.c_str();
  *arguments_json = calls->calls[index].arguments.c_str();
  return EDGEQ_OK;
}

const char* edgeq_tool_calls_content(const edgeq_tool_calls* calls) {
  return calls != nullptr ? calls->content.c_str() : "";
}

const char* edgeq_tool_calls_message(const edgeq_tool_calls* calls) {
  return calls != nullptr ? calls->message.c_str() : "";
}

}  // extern "C"
